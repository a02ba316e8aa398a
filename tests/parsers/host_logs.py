"""Fixtures for the host-load probes (top, mpstat, pidstat), the application-log probe and
``ollama ps`` (the application's own account of where it placed the model).

Each ``tests/golden/<folder>/<stem>.txt`` is an output as someone posted it in a public thread
(copied exactly; its source is in the folder's ``SOURCES`` file, with what is odd about it) and
``<stem>.json`` the result, checked by hand against the text.

    .venv/bin/python tests/parsers/host_logs.py      # rewrite these goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.app_log import looks_like_app_log, parse_app_log
from casefile_probes.cpu_load import (
    looks_like_mpstat,
    looks_like_pidstat,
    looks_like_top,
    parse_mpstat,
    parse_pidstat,
    parse_top,
)
from casefile_probes.ollama_ps import looks_like_ollama_ps, parse_ollama_ps

from tests.parsers.corpus import Parser, regenerate

#: Fixture folders under tests/golden (each named after its probe) and the parser of each.
HOST_LOGS: dict[str, Parser] = {
    "top": parse_top,
    "mpstat": parse_mpstat,
    "pidstat": parse_pidstat,
    "app-log": parse_app_log,
    "ollama-ps": parse_ollama_ps,
}
RECOGNISERS: dict[str, Callable[[str], bool]] = {
    "top": looks_like_top,
    "mpstat": looks_like_mpstat,
    "pidstat": looks_like_pidstat,
    "app-log": looks_like_app_log,
    "ollama-ps": looks_like_ollama_ps,
}
#: Samples kept because their parser must say why it reads nothing from them.
UNREADABLE = {
    "pidstat/006": "pidstat printed headers only: no task matched its -C filter",
    # reports without an interval: averages since boot, not the load of the moment
    "mpstat/006": "mpstat since boot: header and row share one time",
    "mpstat/007": "mpstat since boot through pdsh: header and row share one time",
    "mpstat/009": "mpstat since boot through pdsh: header and row share one time",
    "pidstat/003": "pidstat -h since boot: the command above its banner gives no interval",
    "pidstat/004": "pidstat since boot: header and row share one time",
    "app-log/106": "two machines' llama.cpp runs, 1.02 and 57.04 tokens/s: no one rate",
}


if __name__ == "__main__":
    regenerate(HOST_LOGS)
