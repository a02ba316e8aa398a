"""Golden results for the top, mpstat, pidstat and app-log parsers over real outputs, and the
``recognises`` guess of each probe: it takes every readable sample of its own tool and none of
any other tool's (every other golden folder and the shared corpus).

Every ``.txt`` has its source address in its folder's ``SOURCES`` file and a hand-checked
``.json`` beside it; see ``tests/parsers/host_logs.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.app_log import PROBE as APP_LOG
from casefile_probes.cpu_load import MPSTAT_PROBE, PIDSTAT_PROBE
from casefile_probes.cpu_load import PROBE as TOP

from casefile.plugins import Registry

from .corpus import (
    assert_matches_golden,
    check_probe_declarations,
    check_recognises_no_other,
    check_sources_and_goldens,
    golden_cases,
    read_sample,
)
from .host_logs import HOST_LOGS, RECOGNISERS, UNREADABLE

CASES = golden_cases(HOST_LOGS)


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_host_log_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, HOST_LOGS[folder])


@pytest.mark.parametrize("folder", sorted(HOST_LOGS))
def test_every_host_log_fixture_has_a_source_and_a_golden(folder: str) -> None:
    check_sources_and_goldens(folder, least=4, url_prefix="https://github.com/")


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_every_host_log_fixture_parses_to_facts_or_says_why_not(folder: str, path: Path) -> None:
    """Each sample was chosen because it holds something readable, except the few kept to show
    that their parser says why it reads nothing."""
    result = HOST_LOGS[folder](read_sample(path))
    if f"{folder}/{path.stem}" in UNREADABLE:
        assert not result.parsed and not result.facts and result.problems
    else:
        assert result.parsed and result.facts, result.problems


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_recognises_its_own_samples(folder: str, path: Path) -> None:
    assert RECOGNISERS[folder](read_sample(path))


@pytest.mark.parametrize("folder", sorted(HOST_LOGS))
def test_recognises_no_other_tools_output(folder: str) -> None:
    check_recognises_no_other(folder, RECOGNISERS[folder], least=100)


def test_the_probes_declare_their_recogniser_and_every_fact_they_give() -> None:
    for probe in (TOP, MPSTAT_PROBE, PIDSTAT_PROBE, APP_LOG):
        check_probe_declarations(probe, RECOGNISERS[probe.name])
        assert probe.needs_load


def test_the_probes_are_registered_under_their_names() -> None:
    probes = Registry.discover().all_probes()
    for probe in (TOP, MPSTAT_PROBE, PIDSTAT_PROBE, APP_LOG):
        assert probes[probe.name].parse is probe.parse
    assert TOP.argv == ("top", "-b", "-n", "1")
    assert MPSTAT_PROBE.argv == ("mpstat", "-P", "ALL", "1", "1")
    assert PIDSTAT_PROBE.argv == ("pidstat", "-u", "1", "1")
    assert APP_LOG.argv == () and APP_LOG.cost == "cheap"  # reading a log of a run already made
