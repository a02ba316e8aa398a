"""Fixtures for a Jetson's own tools: ``tegrastats`` and ``nvpmodel -q`` (with
``jetson_clocks --show``, which prints the same power-mode line).

Each ``tests/golden/<folder>/<stem>.txt`` is an output as someone posted it in a public thread
(copied exactly; its source is in the folder's ``SOURCES`` file, with what is odd about it) and
``<stem>.json`` the result, checked by hand against the text.

    .venv/bin/python tests/parsers/jetson_tools.py      # rewrite these goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.nvpmodel import parse_nvpmodel, recognise_nvpmodel
from casefile_probes.tegrastats import parse_tegrastats, recognise_tegrastats

from tests.parsers.corpus import Parser, regenerate

#: Fixture folders under tests/golden (each named after its probe) and the parser of each.
JETSON_TOOLS: dict[str, Parser] = {
    "tegrastats": parse_tegrastats,
    "nvpmodel": parse_nvpmodel,
}
RECOGNISERS: dict[str, Callable[[str], bool]] = {
    "tegrastats": recognise_tegrastats,
    "nvpmodel": recognise_nvpmodel,
}


if __name__ == "__main__":
    regenerate(JETSON_TOOLS)
