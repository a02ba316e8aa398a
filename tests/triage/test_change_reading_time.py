"""A long change is read in time linear in its length.

A setting's or package's name pattern tried from every offset inside a long run ("-D-D-D…",
"a.a.a…") scanned the rest of the run from each: 16 KB of such a change took the experiment
command 159 s to read. A pattern with an unbounded gap (".*" between "after 1 h" and "load")
does the same more mildly: 3 s at 32 KB, four times that at twice the length. Each shape is
read at two lengths, four times apart: a linear reader takes about four times as long for the
longer, a quadratic one sixteen times; the best of three runs of each, in CPU time, keeps a
loaded machine's pauses out of the ratio (``tests/timing.py``), and an absolute bound catches a
reader slow at both lengths.
"""

from __future__ import annotations

import pytest

from casefile.domain.change_forms import change_readings
from casefile.domain.nearest_rules import nearest_rules
from tests.timing import cpu_seconds
from tests.triage.test_wording_breadth import PLAYBOOK_V3, _reading

SHORT = 8_000
LONG = 4 * SHORT
#: a linear reader's ratio is about 4 (its length's); a quadratic one's about 16
RATIO = 9.0
#: what a run may cost beside the ratio, where a short run is too quick to time well
SLACK_S = 0.3
BOUND_S = 20.0

#: runs of a name's characters (with "-", "." and "+" inside), versions, settings and words,
#: and the shapes each rule's widest alternatives meet: numbers before a unit, hours before a
#: load, the words beside a collective's channels, a link's generation
SHAPES = (
    "-D",
    "a.",
    "a-",
    "a+",
    "v1.",
    "x==",
    "1.",
    "A_B ",
    "NCCL_P2P_DISABLE=1 ",
    "batch size ",
    "-> ",
    "after 1 h ",
    "steady-state ",
    "channels for ",
    "NCCL channels ",
    "PCIe version ",
    "pin thread ",
    "restrict NUMA ",
    "/dev/shm ",
    "cuda instead ",
    "we downgraded ",
    "tensor parallel on devices 0,",
    "server slots ",
    "NCCL_SOCKET_IFNAME ",
    "单卡 ",
    "util from 0.9 to ",
    "temperature lowered 0.8 to ",
    "sampling temperature 0.",
    "TCP instead of ",
    "switch to gloo ",
    "instead of CUDA IPC, use ",
    "replaced TCP with ",
    "falls back to TCP when ",
    "backend=gloo ",
    "TCP \n",
    " \n",
    "\n",
    "use ",
    "batch from 1 to ",
    "power limit from    ",
    "bound to ",
    "moved off ",
    "PCIe Gen4 -> Gen",
    "OLLAMA_NUM_PARALLEL=1 ",
    "num_threads data loader ",
    "a_b=0 ",
)


def _long(unit: str, size: int) -> str:
    return "x " + (unit * (size // len(unit) + 1))[:size]


def _best_of_three(change: str) -> float:
    def read() -> None:
        change_readings.cache_clear()
        _reading(change)
        nearest_rules(PLAYBOOK_V3.experiments, change)

    return cpu_seconds(read, rounds=3)


@pytest.mark.parametrize("unit", SHAPES)
def test_a_long_change_is_read_in_linear_time(unit: str) -> None:
    short = _best_of_three(_long(unit, SHORT))
    long = _best_of_three(_long(unit, LONG))
    assert long < RATIO * short + SLACK_S, (short, long)
    assert long < BOUND_S
