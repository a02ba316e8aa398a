"""A long change is read in time linear in its length.

A setting's or package's name pattern tried from every offset inside a long run ("-D-D-D…",
"a.a.a…") scanned the rest of the run from each: 16 KB of such a change took the experiment
command 159 s to read. Each shape here, 32 KB long, must be read well within a bound that a
quadratic reader cannot meet at that size (minutes), while a linear one takes a fraction of a
second even on a loaded machine.
"""

from __future__ import annotations

import time

import pytest

from casefile.domain.change_forms import change_readings
from casefile.domain.nearest_rules import nearest_rules
from tests.triage.test_wording_breadth import PLAYBOOK_V3, _reading

SIZE = 32_000
BOUND_S = 10.0

#: runs of a name's characters (with "-", "." and "+" inside), versions, settings and words
SHAPES = ("-D", "a.", "a-", "a+", "v1.", "x==", "A_B ", "NCCL_P2P_DISABLE=1 ", "batch size ", "-> ")


def _long(unit: str) -> str:
    return "x " + (unit * (SIZE // len(unit) + 1))[:SIZE]


@pytest.mark.parametrize("unit", SHAPES)
def test_a_long_change_is_read_in_linear_time(unit: str) -> None:
    change = _long(unit)
    change_readings.cache_clear()
    started = time.perf_counter()
    _reading(change)
    nearest_rules(PLAYBOOK_V3.experiments, change)
    assert time.perf_counter() - started < BOUND_S
