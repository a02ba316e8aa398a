"""Golden results for the lspci, nccl-tests, p2p and bandwidth parsers over the real corpus.

Each sample in ``../shared/corpus/<folder>/`` has its expected result, checked by hand
against the raw text, in ``tests/golden/<folder>/<stem>.json``. Regenerate with
``tests/parsers/regen_golden.py`` only when a parser's behaviour changes on purpose,
and read every changed file against its sample before committing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .corpus import CORPUS, assert_matches_golden, corpus_files, golden_path
from .corpus import OTHER_PARSERS as PARSERS

CASES = [
    pytest.param(folder, path, id=f"{folder}/{path.stem}")
    for folder in PARSERS
    for path in corpus_files(folder)
]


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
@pytest.mark.parametrize(("folder", "path"), CASES)
def test_other_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, PARSERS[folder])


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
def test_other_every_folder_has_samples() -> None:
    for folder in PARSERS:
        assert corpus_files(folder), f"corpus folder {folder}/ is empty or missing"


def test_other_no_orphan_golden_files() -> None:
    """A golden file whose sample disappeared would silently stop being checked."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    for folder in PARSERS:
        stems = {path.stem for path in corpus_files(folder)}
        goldens = golden_path(folder, "x").parent.glob("*.json")
        orphans = sorted(g.name for g in goldens if g.stem not in stems)
        assert not orphans, f"golden files without a corpus sample in {folder}/: {orphans}"
