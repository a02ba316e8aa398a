"""Following a case on a thread of its own, for a subscriber that is called back.

The terminal UI cannot block in :meth:`ChangeFeed.batches`, so a :class:`FeedWatcher` runs the
feed's loop on a daemon thread and hands each batch, rewrite or failure to callbacks, as
toolong's watchers do. What is delivered, and in which order, is the feed's
(:mod:`casefile.app.feed`); when it looks, the wake-ups' (:mod:`casefile.app.feed_wakeups`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import closing

from casefile.app.feed import ChangeFeed, HistoryRewritten
from casefile.domain.events import Event
from casefile.errors import CasefileError

__all__ = ["FeedWatcher"]

log = logging.getLogger(__name__)


class FeedWatcher:
    """Runs a :class:`ChangeFeed` on a daemon thread and calls back from that thread.

    ``on_events`` gets each batch (never empty); ``on_error`` the first failure of an outage
    (the watcher keeps retrying every ``safety_interval`` and notices when it reads again);
    ``on_rewrite`` a :class:`HistoryRewritten`, after which nothing is delivered until
    :meth:`ChangeFeed.resync` (which the callback may call). Without ``on_rewrite`` a rewrite
    goes to ``on_error`` as an :class:`~casefile.errors.IntegrityError`; without ``on_error``
    failures are logged. A callback that raises ends the watcher (logged, kept in
    :attr:`exception`): a subscriber that cannot take events must not be fed more.
    A TUI's callbacks hand the data to its own thread (Textual's ``call_from_thread``).
    Made by :meth:`ChangeFeed.watch`, which stops it when the feed closes.
    """

    def __init__(
        self,
        feed: ChangeFeed,
        on_events: Callable[[list[Event]], None],
        on_error: Callable[[CasefileError], None] | None = None,
        on_rewrite: Callable[[HistoryRewritten], None] | None = None,
    ) -> None:
        self.feed = feed
        self._on_events = on_events
        self._on_error = on_error
        self._on_rewrite = on_rewrite
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.exception: BaseException | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> FeedWatcher:
        if self._thread is not None:
            raise RuntimeError("a watcher starts once; make another with ChangeFeed.watch")
        self._thread = threading.Thread(
            target=self._run, name=f"casefile-feed:{self.feed.case_id}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop following and wait up to ``timeout`` seconds; whether the thread has ended.

        Prompt (a tenth of a second) unless a read is in progress on a database that hangs.
        """
        self._stop.set()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def __enter__(self) -> FeedWatcher:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        failing = False
        try:
            with closing(self.feed.follow(self._stop, None)) as items:
                for item in items:
                    if isinstance(item, CasefileError):
                        if not failing:
                            self._error(item)
                        failing = True
                        continue
                    if failing:
                        failing = False
                        self.feed.notice(f"change feed: reading case {self.feed.case_id} again")
                    if isinstance(item, HistoryRewritten):
                        if self._on_rewrite is None:
                            self._error(item.error())
                        else:
                            self._on_rewrite(item)
                    elif item:
                        self._on_events(item)
        except BaseException as error:
            self.exception = error
            log.exception("change feed for case %s ended", self.feed.case_id)

    def _error(self, error: CasefileError) -> None:
        if self._on_error is None:
            log.warning("%s", error)
        else:
            self._on_error(error)
