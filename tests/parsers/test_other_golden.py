"""Golden results for the lspci, nccl-tests, p2p and bandwidth parsers over the real corpus.

Each sample in ``../shared/corpus/<folder>/`` has its expected result, checked by hand
against the raw text, in ``tests/golden/<folder>/<stem>.json``. Regenerate with
``tests/parsers/regen_golden_other.py`` only when a parser's behaviour changes on purpose,
and read every changed file against its sample before committing it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.lspci import parse_lspci
from casefile_probes.nccl import parse_nccl
from casefile_probes.p2p import parse_p2p

from casefile.domain.facts import ParseResult

from .corpus import CORPUS, corpus_files, facts_as_json, golden_path, load_golden

PARSERS: dict[str, Callable[[str], ParseResult]] = {
    "lspci": parse_lspci,
    "nccl": parse_nccl,
    "p2p": parse_p2p,
    "bandwidth": parse_bandwidth,
}

CASES = [
    pytest.param(folder, path, id=f"{folder}/{path.stem}")
    for folder in PARSERS
    for path in corpus_files(folder)
]


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
@pytest.mark.parametrize(("folder", "path"), CASES)
def test_other_golden(folder: str, path: Path) -> None:
    expected = load_golden(folder, path.stem)
    if expected is None:
        pytest.fail(
            f"no golden result for corpus sample {folder}/{path.name}: write "
            f"{golden_path(folder, path.stem)} (tests/parsers/regen_golden_other.py {folder}), "
            "then check every value against the sample by hand"
        )
    text = path.read_text(encoding="utf-8", errors="replace")
    assert facts_as_json(PARSERS[folder](text)) == expected


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
