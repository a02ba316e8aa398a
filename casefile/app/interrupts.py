"""Ctrl-C as a request to stop, for loops that must end cleanly.

Python turns SIGINT into ``KeyboardInterrupt`` at whichever bytecode the main thread happens to
run. In a follower that is most often inside the store: SQLAlchemy's connection pool or psycopg
between taking a lock and releasing it. An exception there can leave the lock held, and closing
the store afterwards waits for it forever; on a loaded machine, where every read takes longer,
that window is wide enough to hit one Ctrl-C in a few. A follower therefore never lets SIGINT
raise inside its work: while :class:`StopOnInterrupt` is active, SIGINT only records that it
came, which the follower checks between looks (it waits in slices of a tenth of a second) and
between the rows it prints, and the loop ends through its ordinary exits, closing what it opened.

The handler takes no lock, not even a :class:`threading.Event`'s: it runs between two bytecodes
of the main thread, which may be inside that very event's ``wait`` holding its lock, and a
handler that then calls ``set()`` waits for itself for ever (a follower that ignored Ctrl-C, one
run in a few hundred). It sets a plain attribute; the loops poll it.

Only the main thread can install a signal handler, and only the default one is replaced: a
program that installed its own (a TUI, a test harness) keeps it, and then only the stop request
the caller passed in ends the loop.
"""

from __future__ import annotations

import signal
import threading
import time
from types import FrameType, TracebackType
from typing import Protocol

__all__ = ["StopOnInterrupt", "StopRequest"]


class StopRequest(Protocol):
    """What a loop watches to know when to end: a :class:`threading.Event` is one."""

    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


class StopOnInterrupt:
    """A stop request set by SIGINT (while active) or by ``also``, whichever comes first.

    ``interrupted`` says whether a SIGINT arrived; the caller decides what that means once its
    loop has ended (a follower exits 0; :meth:`ChangeFeed.batches` raises ``KeyboardInterrupt``
    at that safe point, as its callers expect). Nesting is harmless: an inner one sees that the
    handler is no longer the default and installs nothing, so pass it the outer one as ``also``.
    """

    def __init__(self, also: StopRequest | None = None) -> None:
        self._also = also
        self.interrupted = False
        self.installed = False

    def is_set(self) -> bool:
        return self.interrupted or (self._also is not None and self._also.is_set())

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (callers wait in short slices) or until ``also`` is
        set; a SIGINT meanwhile is seen at the end of the slice at the latest."""
        if self._also is not None:
            self._also.wait(timeout)
        elif timeout is not None:
            time.sleep(timeout)
        return self.is_set()

    def _on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        self.interrupted = True  # a plain attribute: no lock (see the module docstring)

    def __enter__(self) -> StopOnInterrupt:
        in_main = threading.current_thread() is threading.main_thread()
        if in_main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._on_sigint)
            self.installed = True
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self.installed = False
