"""Fixtures for the host-bound probes: the PyTorch profiler table, ``nsys stats`` and py-spy.

Each ``tests/golden/<folder>/<stem>.txt`` is an output as someone posted it (copied exactly; its
source is in the folder's ``SOURCES`` file, with what is odd about it) and ``<stem>.json`` the
result, checked by hand against the text.

    .venv/bin/python tests/parsers/profilers.py      # rewrite these goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.nsys_stats import looks_like_nsys_stats, parse_nsys_stats
from casefile_probes.py_spy import looks_like_py_spy, parse_py_spy
from casefile_probes.torch_profiler import looks_like_torch_profiler, parse_torch_profiler

from tests.parsers.corpus import Parser, regenerate

#: Fixture folders under tests/golden, the parser of each and its ``recognises`` guess.
PROFILERS: dict[str, Parser] = {
    "torch-profiler": parse_torch_profiler,
    "nsys-stats": parse_nsys_stats,
    "py-spy": parse_py_spy,
}
RECOGNISERS = {
    "torch-profiler": looks_like_torch_profiler,
    "nsys-stats": looks_like_nsys_stats,
    "py-spy": looks_like_py_spy,
}


if __name__ == "__main__":
    regenerate(PROFILERS)
