"""Golden results for the ``torch-env`` parser over real collect_env reports and one-liner
checks, and its ``recognises`` guess: every sample of its own, none of any other tool's (every
other golden folder and the shared corpus).

Every ``.txt`` has its source address in its folder's ``SOURCES`` file and a hand-checked
``.json`` beside it; see ``tests/parsers/torch_env.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.torch_env import PROBE, looks_like_torch_env, parse_torch_env

from casefile.plugins import Registry

from .corpus import (
    assert_matches_golden,
    check_probe_declarations,
    check_recognises_no_other,
    check_sources_and_goldens,
    golden_cases,
    read_sample,
)
from .torch_env import TORCH_ENV

CASES = golden_cases(TORCH_ENV)


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_torch_env_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, TORCH_ENV[folder])


def test_every_torch_env_fixture_has_a_source_and_a_golden() -> None:
    check_sources_and_goldens("torch-env", least=8, url_prefix="https://github.com/")
    check_sources_and_goldens("torch-env/one-liners", least=3, url_prefix="https://github.com/")


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_every_torch_env_fixture_parses_to_facts(folder: str, path: Path) -> None:
    result = parse_torch_env(read_sample(path))
    assert result.parsed and result.facts, result.problems


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_recognises_its_own_samples(folder: str, path: Path) -> None:
    assert looks_like_torch_env(read_sample(path))


def test_recognises_no_other_tools_output() -> None:
    check_recognises_no_other("torch-env", looks_like_torch_env, least=100)


def test_the_probe_declares_its_recogniser_and_every_fact_it_gives() -> None:
    check_probe_declarations(PROBE, looks_like_torch_env)
    given = {
        fact.name
        for _, path in ((c.values[0], c.values[1]) for c in CASES)
        for fact in parse_torch_env(read_sample(Path(str(path)))).facts
    }
    assert given <= set(PROBE.facts)


def test_the_probe_is_registered_and_cheap_to_run() -> None:
    probes = Registry.discover().all_probes()
    assert probes["torch-env"].parse is PROBE.parse
    # collect_env with the shell's Python, as an argv list (never a shell string)
    assert PROBE.argv == ("python3", "-m", "torch.utils.collect_env")
    assert PROBE.cost == "instant" and not PROBE.needs_load
