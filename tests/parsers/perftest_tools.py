"""Fixtures for RDMA ``perftest`` (``ib_write_bw``, ``ib_read_bw``, ``ib_send_bw`` and the
latency tests).

Each ``tests/golden/perftest/<stem>.txt`` is an output as someone posted it in a public thread
(copied exactly; its source is in the folder's ``SOURCES`` file, with what is odd about it) and
``<stem>.json`` the result, checked by hand against the text.

    .venv/bin/python tests/parsers/perftest_tools.py      # rewrite these goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.perftest import parse_perftest

from tests.parsers.corpus import Parser, regenerate

#: the fixture folder under tests/golden (named after its probe) and its parser
PERFTEST_TOOLS: dict[str, Parser] = {"perftest": parse_perftest}


if __name__ == "__main__":
    regenerate(PERFTEST_TOOLS)
