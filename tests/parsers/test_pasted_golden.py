"""Golden results for outputs collected from public bug reports, and for the newer parsers
(``nccl-debug``, ``nvbandwidth``) over the shared corpus.

Every ``.txt`` fixture has its source address in the folder's ``SOURCES`` file and its hand-
checked result in ``<stem>.json``; see ``tests/parsers/pasted.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .corpus import (
    CORPUS,
    GOLDEN,
    assert_matches_golden,
    corpus_files,
    golden_cases,
    golden_files,
    sources,
)
from .pasted import ON_CORPUS, PASTED

CASES = golden_cases(PASTED)

CORPUS_CASES = [
    pytest.param(golden, path, parse, id=f"{golden}/{path.stem}")
    for golden, corpus_folder, parse in ON_CORPUS
    for path in corpus_files(corpus_folder)
]


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_pasted_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, PASTED[folder])


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
@pytest.mark.parametrize(("golden", "path", "parse"), CORPUS_CASES)
def test_newer_parsers_on_the_shared_corpus(golden: str, path: Path, parse: object) -> None:
    assert callable(parse)
    assert_matches_golden(golden, path, parse)


@pytest.mark.parametrize("folder", PASTED)
def test_every_fixture_names_its_public_source(folder: str) -> None:
    files = {path.name for path in golden_files(folder)}
    listed = sources(folder)
    assert files, f"no fixtures in {folder}"
    assert files == set(listed), f"SOURCES of {folder} and its .txt files differ"
    assert all(url.startswith("https://github.com/") for url in listed.values())


@pytest.mark.parametrize("folder", PASTED)
def test_no_golden_without_its_fixture(folder: str) -> None:
    stems = {path.stem for path in golden_files(folder)}
    orphans = sorted(p.name for p in (GOLDEN / folder).glob("*.json") if p.stem not in stems)
    assert not orphans, f"golden files without a fixture in {folder}: {orphans}"


def test_the_fixtures_cover_the_shapes_the_issue_names() -> None:
    """Parse results the issue asked for, stated on the real fixtures themselves."""
    from casefile_probes.nccl import parse_nccl
    from casefile_probes.nccl_debug import parse_nccl_debug
    from casefile_probes.nvbandwidth import parse_nvbandwidth
    from casefile_probes.p2p import parse_p2p

    def read(folder: str, stem: str) -> str:
        return (GOLDEN / folder / f"{stem}.txt").read_text(encoding="utf-8")

    # INFO lines interleaved, cut before the first row: parsed, the cut stated
    truncated = parse_nccl(read("nccl/issues", "003"))
    assert truncated.parsed
    assert truncated.values("nccl.env.NCCL_SOCKET_IFNAME") == {"host": "enp9s0np0"}
    assert truncated.problems[0].startswith("nccl-tests output without a results table")
    # the transport of each channel
    debug = parse_nccl_debug(read("nccl-debug", "001"))
    assert debug.values("nccl.transport")["rank15-rank6"] == "NET/Socket"
    assert debug.values("nccl.transport")["rank8-rank15"] == "P2P/IPC"
    assert parse_nccl_debug(read("nccl-debug", "006")).values("nccl.transports") == {"host": "SHM"}
    # a short matrix row read as far as it goes, and said so
    p2p = parse_p2p(read("p2p/issues", "001"))
    assert p2p.values("p2p.bidir_bw.disabled")["gpu0-gpu3"] == 29.85
    assert "gpu0-gpu4" not in p2p.values("p2p.bidir_bw.disabled")
    assert any("row 0: 4 of 6 values" in problem for problem in p2p.problems)
    # the GPU count from the matrix header, the device list being absent
    assert parse_p2p(read("p2p/issues", "002")).values("p2p.gpus") == {"host": 8}
    nvb = parse_nvbandwidth(read("nvbandwidth", "001"))
    assert nvb.values("nvbandwidth.gpus") == {"host": 6}
    assert nvb.values("nvbandwidth.device_to_device_memcpy_read_ce")["gpu3-gpu0"] == 21.82
