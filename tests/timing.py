"""Timing a call in a test, on a machine that other work keeps busy.

A test that bounds a parser's cost is asking how much work the parser does, not how long the
machine took to get round to it. Wall time answers the second question: on CI's two cores, with
the suite on two workers and other processes beside it, a parse that costs 0.09 s once read
0.66 s as the best of three back-to-back runs, because the other worker was busy the whole
time. So cost is this process's CPU time, with the collector paused (a full collection walks
every object the test session holds, a cost of the session and not of the call), and the best
of a few runs. A pattern that backtracks still shows: its cost is CPU time too.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: runs of a call whose best is kept
ROUNDS = 3


def cpu_seconds(call: Callable[[], object], rounds: int = ROUNDS) -> float:
    """The least CPU time this process spent in ``call()`` over ``rounds`` runs."""
    best = float("inf")
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            started = time.process_time()
            call()
            best = min(best, time.process_time() - started)
    finally:
        if collecting:
            gc.enable()
    return best
