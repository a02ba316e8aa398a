"""The one thread that talks to the service, so a case's fold is only ever touched by it.

A :class:`~casefile.app.session.CaseSession` is not thread-safe and the SQL store keeps a
connection per thread, so the TUI never calls the service from its event loop nor from a fresh
thread per task: every call on the case's service, its boards and its feeds is queued on
:class:`CaseThread`, one long-lived thread, and the event loop awaits the result (Textual
workers await :meth:`CaseThread.call`). Probes are the one exception, by design: they run on a
second thread with a service of their own over the same store (:meth:`CaseThread.probe_call`),
so a long probe never holds up the case thread; their events come back through the feed.
An ingest proposal (parsing a transcript, which reads no case) runs on a Textual thread worker
with a service of its own (:meth:`CaseThread.proposer`); appending what the review kept goes
through the case thread like any other write.
What comes back is an immutable view; the fold stays on this thread (the dolphie failure mode,
live refresh and replay sharing mutable state, cannot happen). No Textual import here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from casefile.app.board import Board

if TYPE_CHECKING:
    from casefile.app.feed_watcher import FeedWatcher
    from casefile.app.service import CaseService
    from casefile.domain.events import Event
    from casefile.errors import CasefileError

T = TypeVar("T")


class CaseThread:
    """A service and the boards of its open cases, used from one thread only."""

    def __init__(self, service: CaseService) -> None:
        self.service = service
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="casefile-case")
        # Probes run for seconds to minutes: on a thread and a service of their own, so the
        # case thread keeps drawing frames (replay, live) meanwhile. Their events reach the
        # board like anyone else's, through the change feed and the next refresh.
        self._probe_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="casefile-probe"
        )
        self._probe_service: CaseService | None = None
        self._proposer: CaseService | None = None
        self._boards: dict[str, Board] = {}
        self._watchers: dict[str, FeedWatcher] = {}

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        return self._executor.submit(fn)

    async def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the case thread and wait for it without blocking the event loop."""
        return await asyncio.wrap_future(self._executor.submit(fn))

    async def probe_call(self, fn: Callable[[CaseService], T]) -> T:
        """Run ``fn`` with the probe service on the probe thread (one probe at a time)."""

        def run() -> T:
            if self._probe_service is None:
                from casefile.app.service import CaseService

                self._probe_service = CaseService(self.service.store, self.service.registry)
            return fn(self._probe_service)

        return await asyncio.wrap_future(self._probe_executor.submit(run))

    def proposer(self) -> CaseService:
        """A service for work that reads no case and holds no session (an ingest proposal
        parses a file against the registry's probe shapes), safe to use off the case thread:
        it shares only the store object (which it does not touch) and the registry."""
        if self._proposer is None:
            from casefile.app.service import CaseService

            self._proposer = CaseService(self.service.store, self.service.registry)
        return self._proposer

    def board(self, case_id: str) -> Board:
        """The board of a case (case thread only)."""
        board = self._boards.get(case_id)
        if board is None:
            board = self._boards[case_id] = Board(self.service, case_id)
        return board

    def watch(
        self,
        case_id: str,
        after: tuple[int, str],
        on_events: Callable[[list[Event]], None],
        on_error: Callable[[CasefileError], None],
        on_notice: Callable[[str], None],
    ) -> None:
        """Follow a case from a position: ``on_events`` hears (on the feed's own thread) of
        every batch another writer appends; the board reads them on the next refresh."""
        self.unwatch(case_id)
        feed = self.service.reader.follow(case_id, after[0], after[1], on_notice=on_notice)

        def rewritten(_rewrite: object) -> None:
            # the board sees the rewrite itself on its next refresh and folds again; the feed
            # only needs to carry on from the store's new head
            feed.resync(*feed.store.head(case_id))  # (the feed's thread: the store is shared)
            on_events([])

        watcher = feed.watch(on_events, on_error=on_error, on_rewrite=rewritten)
        self._watchers[case_id] = watcher.start()

    def unwatch(self, case_id: str) -> None:
        watcher = self._watchers.pop(case_id, None)
        if watcher is not None:
            watcher.stop(timeout=1.0)
            watcher.feed.close()

    def close(self) -> None:
        """Stop following and close the service, on the case thread (where they live)."""

        def close_all() -> None:
            for case_id in list(self._watchers):
                self.unwatch(case_id)
            self.service.close()

        with contextlib.suppress(Exception):  # closing at exit: nothing left to tell
            self._executor.submit(close_all).result(timeout=10)
        self._executor.shutdown(wait=False, cancel_futures=True)
        # a probe still running was cancelled by its screen; its thread ends with the run
        self._probe_executor.shutdown(wait=False, cancel_futures=True)
