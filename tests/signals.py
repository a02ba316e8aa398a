"""Signals as a terminal would deliver them, whatever started the test run.

A test run started in the background by a shell without job control (CI is one) inherits
SIGINT ignored, and its children inherit that too: Python in them then never raises
KeyboardInterrupt, and casefile, which rightly leaves an ignored SIGINT ignored, cannot be
interrupted. Tests of Ctrl-C and SIGTERM give their processes the default dispositions back,
as a terminal's foreground job has them.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


def default_signals() -> None:
    """``preexec_fn`` for a child that must answer SIGINT and SIGTERM as by default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def python_ctrl_c() -> Iterator[None]:
    """In this (the main) thread, SIGINT raises KeyboardInterrupt for the duration, as in an
    interpreter started from a terminal."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
