"""Waiting in tests, on a machine that may be slow today.

CI runs the suite on two cores that another process keeps busy, and a test that fails there one
run in ten is a bug. So a test that waits for something polls for it, with a deadline at least
five times what it takes on such a machine, instead of sleeping a fixed time and hoping: the
deadline is only an upper bound, reached when the thing never happens, so it costs nothing when
the machine is idle. (A timeout handed to casefile on purpose, to make it time out, is the thing
under test and stays short; these are the test's own waits.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

#: The deadline of a wait for something that takes well under a second at rest: a thread or a
#: process getting somewhere, a file appearing, a server accepting a connection.
WAIT_S = 60.0
#: The deadline of a whole run of a subprocess: an interpreter's start and imports included.
PROCESS_S = 120.0


def wait_until(
    condition: Callable[[], object],
    timeout: float = WAIT_S,
    *,
    interval: float = 0.02,
    what: str = "the awaited condition",
) -> None:
    """Return as soon as ``condition()`` is true; fail the test if it is still false after
    ``timeout`` seconds (``what`` names it in the failure)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: still not so after {timeout:g} s")
        time.sleep(interval)


def process_running(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie (containers may not reap orphans)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")
