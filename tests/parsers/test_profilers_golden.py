"""Golden results for the torch-profiler, nsys-stats and py-spy parsers over real outputs, and
the ``recognises`` guess of each probe: it takes every sample of its own tool and none of any
other tool's (every other golden folder and the shared corpus).

Every ``.txt`` has its source address in its folder's ``SOURCES`` file and a hand-checked
``.json`` beside it; see ``tests/parsers/profilers.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.nsys_stats import PROBE as NSYS
from casefile_probes.py_spy import PROBE as PY_SPY
from casefile_probes.torch_profiler import PROBE as TORCH

from .corpus import (
    assert_matches_golden,
    check_probe_declarations,
    check_recognises_no_other,
    check_sources_and_goldens,
    golden_cases,
    read_sample,
)
from .profilers import PROFILERS, RECOGNISERS

CASES = golden_cases(PROFILERS)


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_profiler_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, PROFILERS[folder])


@pytest.mark.parametrize("folder", sorted(PROFILERS))
def test_every_profiler_fixture_has_a_source_and_a_golden(folder: str) -> None:
    check_sources_and_goldens(folder, least=4)


#: samples from which nothing can be read for sure, each with why (its golden says so too)
NOTHING_SURE = {
    # four rows of a table sorted by host time, cut inside the fourth, no footer: the device
    # time they leave unshown (50.45 %) is more than their largest row's (48.9 %), so the top
    # op may be below the cut (its kernels' rows repeat its time)
    "torch-profiler/007.txt",
    # nsys under a locale with decimal commas and space-grouped thousands ("19,0",
    # "285 118 634"): its cells are not the columns, so the table is refused with a reason
    "nsys-stats/011.txt",
}


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_every_profiler_fixture_parses_to_facts(folder: str, path: Path) -> None:
    """Each sample was chosen because it holds something readable: none may come out empty,
    except those listed in :data:`NOTHING_SURE`, which must come out empty with a reason."""
    result = PROFILERS[folder](read_sample(path))
    if f"{folder}/{path.name}" in NOTHING_SURE:
        assert not result.facts and result.problems
        return
    assert result.parsed and result.facts, result.problems


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_recognises_its_own_samples(folder: str, path: Path) -> None:
    assert RECOGNISERS[folder](read_sample(path))


@pytest.mark.parametrize("folder", sorted(PROFILERS))
def test_recognises_no_other_tools_output(folder: str) -> None:
    check_recognises_no_other(folder, RECOGNISERS[folder], least=20)


def test_the_probes_declare_their_recogniser_and_every_fact_they_give() -> None:
    for probe in (TORCH, NSYS, PY_SPY):
        check_probe_declarations(probe, RECOGNISERS[probe.name])
