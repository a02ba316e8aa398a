"""Ctrl-C as a request to stop, for loops that must end cleanly.

Python turns SIGINT into ``KeyboardInterrupt`` at whichever bytecode the main thread happens to
run. In a follower that is most often inside the store: SQLAlchemy's connection pool or psycopg
between taking a lock and releasing it. An exception there can leave the lock held, and closing
the store afterwards waits for it forever; on a loaded machine, where every read takes longer,
that window is wide enough to hit one Ctrl-C in a few. A follower therefore never lets SIGINT
raise inside its work: while :class:`StopOnInterrupt` is active, SIGINT only sets an event,
which the follower checks between looks (it waits in slices of a tenth of a second) and
between the rows it prints, and the loop ends through its ordinary exits, closing what it opened.

Only the main thread can install a signal handler, and only the default one is replaced: a
program that installed its own (a TUI, a test harness) keeps it, and then the event is simply
never set by a signal.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType

__all__ = ["StopOnInterrupt"]


class StopOnInterrupt:
    """While active, SIGINT sets :attr:`stop` (and every event in ``wake``) instead of raising.

    ``interrupted`` says whether a SIGINT arrived; the caller decides what that means once its
    loop has ended (a follower exits 0; :meth:`ChangeFeed.batches` raises ``KeyboardInterrupt``
    at that safe point, as its callers expect). Nesting is harmless: an inner one sees that the
    handler is no longer the default and installs nothing, so share the outer one's ``stop``.
    """

    def __init__(self, stop: threading.Event | None = None) -> None:
        self.stop = stop if stop is not None else threading.Event()
        self.interrupted = False
        self.installed = False

    def _on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        # A signal handler runs between two bytecodes of the main thread: it only sets flags.
        self.interrupted = True
        self.stop.set()

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
