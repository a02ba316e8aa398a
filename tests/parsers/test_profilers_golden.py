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

from .collected import collected_files, sources
from .corpus import GOLDEN, assert_matches_golden, read_sample
from .profilers import PROFILERS, RECOGNISERS, other_samples

CASES = [
    pytest.param(folder, path, id=f"{folder}/{path.stem}")
    for folder in PROFILERS
    for path in collected_files(folder)
]


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_profiler_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, PROFILERS[folder])


@pytest.mark.parametrize("folder", sorted(PROFILERS))
def test_every_profiler_fixture_has_a_source_and_a_golden(folder: str) -> None:
    samples = {path.name for path in collected_files(folder)}
    assert len(samples) >= 4, f"fewer than four samples in tests/golden/{folder}/"
    listed = sources(folder)
    assert set(listed) == samples, f"SOURCES and fixture files differ in {folder}/"
    assert all(url.startswith("https://") for url in listed.values())
    goldens = {path.stem for path in (GOLDEN / folder).glob("*.json")}
    assert goldens == {Path(name).stem for name in samples}, (
        f"orphan or missing golden in {folder}/"
    )


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_every_profiler_fixture_parses_to_facts(folder: str, path: Path) -> None:
    """Each sample was chosen because it holds something readable: none may come out empty."""
    result = PROFILERS[folder](read_sample(path))
    assert result.parsed and result.facts, result.problems


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_recognises_its_own_samples(folder: str, path: Path) -> None:
    assert RECOGNISERS[folder](read_sample(path))


@pytest.mark.parametrize("folder", sorted(PROFILERS))
def test_recognises_no_other_tools_output(folder: str) -> None:
    others = other_samples(folder)
    assert len(others) > 20, "the other samples were not found"
    taken = [str(path) for path in others if RECOGNISERS[folder](read_sample(path))]
    assert not taken, f"{folder} takes other tools' outputs for its own: {taken}"


def test_the_probes_declare_their_recogniser_and_every_fact_they_give() -> None:
    for probe in (TORCH, NSYS, PY_SPY):
        assert probe.recognises is RECOGNISERS[probe.name]
        given = {
            fact.name
            for path in collected_files(probe.name)
            for fact in probe.parse(read_sample(path)).facts
        }
        assert given <= set(probe.facts), given - set(probe.facts)
