"""Golden results for the outputs collected from public bug reports for issue 11 (items 3-5):
lspci trees, fragments and ACS blocks, kernel command lines, IOMMU kernel messages, numactl and
lscpu, nvidia-smi ``-q -d`` sections and table fragments.

Every ``.txt`` has its source address in its folder's ``SOURCES`` file and a hand-checked
``.json`` beside it; see ``tests/parsers/collected.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .collected import COLLECTED
from .corpus import assert_matches_golden, check_sources_and_goldens, golden_cases, golden_files

CASES = golden_cases(COLLECTED)


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_collected_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, COLLECTED[folder])


@pytest.mark.parametrize("folder", sorted(COLLECTED))
def test_every_fixture_has_a_source_and_a_golden(folder: str) -> None:
    check_sources_and_goldens(folder)


def test_every_fixture_parses_to_facts() -> None:
    """Each sample was chosen because it holds something readable: none may come out empty."""
    for folder, parse in COLLECTED.items():
        for path in golden_files(folder):
            result = parse(path.read_text(encoding="utf-8"))
            assert result.parsed and result.facts, f"{folder}/{path.name}: {result.problems}"
