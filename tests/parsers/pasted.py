"""Golden fixtures collected from public bug reports, kept beside their expected results.

Unlike the shared corpus (``../shared/corpus``), these samples live in this repository:
``tests/golden/<folder>/<stem>.txt`` is the output as posted (copied verbatim, the thread named
in the folder's ``SOURCES`` file) and ``<stem>.json`` the result checked by hand against it.
The parsers of the newer probes also get goldens over the shared corpus folders they read,
under ``tests/golden/<folder>/corpus/<stem>.json``.

    .venv/bin/python tests/parsers/pasted.py      # rewrite these goldens from the current code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.nccl import parse_nccl
from casefile_probes.nccl_debug import parse_nccl_debug
from casefile_probes.nvbandwidth import parse_nvbandwidth
from casefile_probes.p2p import parse_p2p

from tests.parsers.corpus import GOLDEN, Parser, corpus_files, facts_as_json, read_sample

#: Fixture folders under tests/golden and the parser each one is read with.
PASTED: dict[str, Parser] = {
    "nccl-debug": parse_nccl_debug,
    "nccl/issues": parse_nccl,
    "p2p/issues": parse_p2p,
    "nvbandwidth": parse_nvbandwidth,
}

#: (golden folder, shared corpus folder, parser): a newer parser over older real samples.
ON_CORPUS: tuple[tuple[str, str, Parser], ...] = (
    ("nccl-debug/corpus", "nccl", parse_nccl_debug),
    ("nvbandwidth/corpus", "bandwidth", parse_nvbandwidth),
)


def pasted_files(folder: str) -> list[Path]:
    """The sample files of one fixture folder, in name order."""
    return sorted((GOLDEN / folder).glob("*.txt"))


def sources(folder: str) -> dict[str, str]:
    """File name -> source address, from the folder's ``SOURCES`` (tab-separated) file."""
    path = GOLDEN / folder / "SOURCES"
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, url, *_ = line.split("\t")
        found[name] = url
    return found


def _regenerate() -> None:
    from tests.parsers.regen_golden import _dump_other

    jobs: list[tuple[Path, Parser, Path]] = []
    for folder, parse in PASTED.items():
        jobs += [
            (path, parse, GOLDEN / folder / f"{path.stem}.json") for path in pasted_files(folder)
        ]
    for folder, corpus_folder, parse in ON_CORPUS:
        (GOLDEN / folder).mkdir(parents=True, exist_ok=True)
        jobs += [
            (path, parse, GOLDEN / folder / f"{path.stem}.json")
            for path in corpus_files(corpus_folder)
        ]
    for sample, parse, target in jobs:
        text = _dump_other(facts_as_json(parse(read_sample(sample))))
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            print(f"changed {target}")


if __name__ == "__main__":
    _regenerate()
