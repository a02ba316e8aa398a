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

from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.nccl import parse_nccl
from casefile_probes.nccl_debug import parse_nccl_debug
from casefile_probes.nvbandwidth import parse_nvbandwidth
from casefile_probes.p2p import parse_p2p

from tests.parsers.corpus import Parser, regenerate

#: Fixture folders under tests/golden and the parser each one is read with.
PASTED: dict[str, Parser] = {
    "nccl-debug": parse_nccl_debug,
    "nccl/issues": parse_nccl,
    "p2p/issues": parse_p2p,
    "nvbandwidth": parse_nvbandwidth,
    "bandwidth/issues": parse_bandwidth,
}

#: (golden folder, shared corpus folder, parser): a newer parser over older real samples.
ON_CORPUS: tuple[tuple[str, str, Parser], ...] = (
    ("nccl-debug/corpus", "nccl", parse_nccl_debug),
    ("nvbandwidth/corpus", "bandwidth", parse_nvbandwidth),
)


if __name__ == "__main__":
    regenerate(PASTED, ON_CORPUS)
