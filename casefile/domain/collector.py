"""Pausing Python's cyclic garbage collector around work that builds many long-lived objects.

A fold, a view of a long case or a store load allocates tens of thousands of small objects
that all stay alive and form no reference cycles. Each generation-2 pass would rescan a heap
that only grows, so a long fold becomes quadratic and a large load pays more for the
collector than for the work. Reference counting still frees everything; only the cycle
detector waits. Here, in the lowest layer with no imports of casefile's own, so the store,
the application and the command line can all share one helper.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; leave it as it was found (a pause
    inside a pause, or one while it is already off, does not switch it back on)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
