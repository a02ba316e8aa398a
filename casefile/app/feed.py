"""Follow one case as it grows: every new event once, in ``seq`` order, without a gap.

A :class:`ChangeFeed` holds a position (the last ``seq`` and hash it delivered) and, each time
it looks, reads ``store.load(case_id, after=…)`` and delivers what is new. It is UI-free: the
CLI iterates :meth:`ChangeFeed.batches` (``casefile log --follow``), the terminal UI runs a
:class:`~casefile.app.feed_watcher.FeedWatcher` thread that calls back, as toolong's watchers
do. When to look is :mod:`casefile.app.feed_wakeups`' job: LISTEN where the store announces its
appends, polling otherwise.

Why wake-ups only say "look". Whatever wakes the feed (a PostgreSQL notification, a changed
change token, a timer) carries no position and no events: notifications are coalesced (a burst
of commits may arrive as one), can be missed (the listening connection was down, a pooler in
between never forwards them) and may be for another case. The position lives in the feed and
the events in the store, so a wake-up that is spurious costs one empty read and one that is
missed is made good by the next look, which reads everything after the position. Delivery is
therefore exactly once and in order however the wake-ups behave (eventsourcing's subscriptions
read "from a position" for the same reason).

Continuity. Each look re-reads the last delivered event with the new ones and checks that its
hash is the one delivered and that the new events chain on from it. If not, the history was
rewritten under the subscriber (a database file swapped, a directory's ``events.jsonl``
replaced) and folding the new events onto the old ones would be wrong, so the feed reports
:class:`HistoryRewritten` and delivers nothing more until the subscriber calls
:meth:`ChangeFeed.resync` (typically from seq 0, to rebuild).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

from casefile.app.feed_wakeups import ListenerFactory, Wakeups, store_listener
from casefile.app.interrupts import StopOnInterrupt, StopRequest
from casefile.domain.events import GENESIS_HASH, Event
from casefile.errors import CasefileError, IntegrityError, StoreError
from casefile.store.base import DatabaseStore, EventStore

if TYPE_CHECKING:
    from casefile.app.feed_watcher import FeedWatcher

__all__ = [
    "POLL_INTERVAL",
    "SAFETY_INTERVAL",
    "ChangeFeed",
    "FeedItem",
    "HistoryRewritten",
]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

POLL_INTERVAL = 0.5  # seconds between change-token checks when polling
SAFETY_INTERVAL = 2.0  # seconds between looks while LISTENing, notified or not
RELISTEN_INTERVAL = 5.0  # first retry of a LISTEN that failed; doubles up to a minute
_UNSEEN = object()  # a change token no store returns: the next gated look reads


@dataclass(frozen=True, slots=True)
class HistoryRewritten:
    """The stored stream no longer continues the events this feed delivered.

    ``seq`` and ``delivered_hash`` are the feed's position when it noticed (what the subscriber
    holds); ``found`` says what the store holds instead. The feed delivers nothing more until
    :meth:`ChangeFeed.resync`.
    """

    case_id: str
    seq: int
    delivered_hash: str
    found: str

    @property
    def message(self) -> str:
        return (
            f"case {self.case_id}: history was rewritten under the feed: delivered up to "
            f"seq {self.seq} ({self.delivered_hash[:12]}…), but {self.found}; "
            "resync to follow the new history"
        )

    def error(self) -> IntegrityError:
        """The condition as an error, for a subscriber that only handles errors."""
        return IntegrityError(self.message, seq=self.seq)


#: What :meth:`ChangeFeed.batches` yields: new events (never empty), or a rewrite.
FeedItem = list[Event] | HistoryRewritten


class ChangeFeed:
    """Follows ``case_id`` in ``store`` from ``(after_seq, after_hash)``.

    ``(0, GENESIS_HASH)`` follows from the beginning: the first batch is the whole case so far.
    ``listener`` chooses the wake-up source: ``"auto"`` LISTENs when the store announces its
    appends (a :class:`~casefile.store.base.NotifyingStore`) and polls otherwise; ``None``
    always polls; a factory (for tests, or another database) is called to open a
    :class:`~casefile.store.base.Listener`. ``on_notice`` receives one-line remarks about how
    the feed is following (LISTEN unavailable, restored); without it they are logged.

    The feed reads through ``store`` from whichever thread follows; the SQL store gives each
    thread its own connection. The feed never closes the store. Follow with one iterator or
    one watcher at a time: they share the position, so two would split the events between
    them.
    """

    def __init__(
        self,
        store: EventStore,
        case_id: str,
        after_seq: int = 0,
        after_hash: str = GENESIS_HASH,
        *,
        poll_interval: float = POLL_INTERVAL,
        safety_interval: float = SAFETY_INTERVAL,
        relisten_interval: float = RELISTEN_INTERVAL,
        listener: ListenerFactory | Literal["auto"] | None = "auto",
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        if after_seq < 0:
            raise ValueError("after_seq must be 0 or more")
        self.store = store
        self.case_id = case_id
        self.poll_interval = poll_interval
        self.safety_interval = safety_interval
        self.relisten_interval = relisten_interval
        self._listener_factory = store_listener(store) if isinstance(listener, str) else listener
        self._on_notice = on_notice
        self._lock = threading.RLock()
        self._seq = after_seq
        self._hash = after_hash
        self._token: object = _UNSEEN
        self._halted: HistoryRewritten | None = None
        self._nudge = threading.Event()
        self._watchers: list[FeedWatcher] = []

    # -- position ---------------------------------------------------------------------------

    @property
    def position(self) -> tuple[int, str]:
        """The last ``seq`` delivered and its hash."""
        with self._lock:
            return self._seq, self._hash

    @property
    def rewritten(self) -> HistoryRewritten | None:
        """The rewrite that halted the feed, until :meth:`resync`."""
        return self._halted

    def resync(self, after_seq: int = 0, after_hash: str = GENESIS_HASH) -> None:
        """Follow from a new position (after a rewrite, from 0 to rebuild); safe from any thread,
        a callback included. The next look happens at once."""
        with self._lock:
            self._seq, self._hash = after_seq, after_hash
            self._halted = None
            self._token = _UNSEEN
        self._nudge.set()

    # -- one look ---------------------------------------------------------------------------

    def poll(self) -> list[Event] | HistoryRewritten:
        """Look now: the events after the position (possibly none), or the rewrite found.

        Raises :class:`~casefile.errors.CasefileError` (a :class:`StoreError` for anything the
        store did not translate itself).
        """
        return self._look(gated=False)

    def _look(self, *, gated: bool) -> list[Event] | HistoryRewritten:
        with self._lock:
            if self._halted is not None:
                return []
            token: object = _UNSEEN
            if gated:
                token = self._read("check case", lambda: self.store.change_token(self.case_id))
                if token == self._token:
                    return []
            seq, digest = self._seq, self._hash
            # Re-read the last delivered event too: one query checks continuity and gets news.
            rows = self._read(
                "read case", lambda: self.store.load(self.case_id, after=max(seq - 1, 0))
            )
            result = _continuation(self.case_id, seq, digest, rows)
            if isinstance(result, HistoryRewritten):
                self._halted = result
                return result
            new, complete = result
            if new:
                self._seq, self._hash = new[-1].seq, new[-1].hash
            # A batch cut short at a broken link leaves the rest for the next look.
            self._token = token if complete else _UNSEEN
            return new

    def _read(self, what: str, read: Callable[[], _T]) -> _T:
        try:
            return read()
        except CasefileError:
            raise
        except Exception as error:
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            message = _mask(self.store, f"change feed: cannot {what} {self.case_id}: {first}")
            raise StoreError(message) from error

    # -- following --------------------------------------------------------------------------

    def batches(
        self, stop: StopRequest | None = None, timeout: float | None = None
    ) -> Iterator[FeedItem]:
        """Block and yield each batch of new events as it comes, or a :class:`HistoryRewritten`.

        Ends when ``stop`` is set, after ``timeout`` seconds in all, or after a rewrite unless
        the loop body called :meth:`resync` before asking for the next item. A store failure
        is raised (a :class:`~casefile.errors.CasefileError`), ending the iteration.

        Ctrl-C in the main thread ends the iteration too, and then raises ``KeyboardInterrupt``
        as anywhere else, but only once the loop has stopped and the listening connection is
        closed: while the iterator is alive, SIGINT only asks it to stop instead of raising
        inside a store read (see :mod:`casefile.app.interrupts`). A caller that installed its
        own SIGINT handler keeps it, and stops the feed through ``stop``.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        interrupt = StopOnInterrupt(stop)
        with interrupt, closing(self.follow(interrupt, deadline)) as items:
            for item in items:
                if isinstance(item, CasefileError):
                    raise item
                if item:
                    yield item
                if isinstance(item, HistoryRewritten) and self._halted is not None:
                    return
        if interrupt.interrupted:
            raise KeyboardInterrupt

    def watch(
        self,
        on_events: Callable[[list[Event]], None],
        on_error: Callable[[CasefileError], None] | None = None,
        on_rewrite: Callable[[HistoryRewritten], None] | None = None,
    ) -> FeedWatcher:
        """A :class:`~casefile.app.feed_watcher.FeedWatcher` for this feed, not yet started
        (``with`` starts it)."""
        from casefile.app.feed_watcher import FeedWatcher

        watcher = FeedWatcher(self, on_events, on_error, on_rewrite)
        self._watchers.append(watcher)
        return watcher

    def close(self) -> None:
        """Stop the watchers made by :meth:`watch` (iterators close with their loops)."""
        for watcher in self._watchers:
            watcher.stop()
        self._watchers.clear()

    def __enter__(self) -> ChangeFeed:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def notice(self, message: str) -> None:
        """Tell the subscriber (``on_notice``, else the log) how the feed is following."""
        message = _mask(self.store, message)
        if self._on_notice is None:
            log.info("%s", message)
        else:
            self._on_notice(message)

    def follow(
        self, stop: StopRequest, deadline: float | None
    ) -> Generator[list[Event] | HistoryRewritten | CasefileError, None, None]:
        """Look, wait for a wake-up, look again … until ``stop`` or ``deadline``: the loop
        :meth:`batches` and a watcher run.

        Yields every look's result (an empty list only for the first success after a
        failure), and failures as values: the iterator raises them, the watcher reports them.
        """
        # LISTEN before the first look, so that no commit falls between the two.
        wakeups = Wakeups(
            self._listener_factory,
            case_id=self.case_id,
            poll_interval=self.poll_interval,
            safety_interval=self.safety_interval,
            relisten_interval=self.relisten_interval,
            nudge=self._nudge,
            notice=self.notice,
        )
        try:
            gated, failing, quiet_until = False, False, 0.0
            while True:
                if self._halted is None and time.monotonic() >= quiet_until:
                    try:
                        item = self._look(gated=gated)
                    except CasefileError as error:
                        failing, quiet_until = True, time.monotonic() + self.safety_interval
                        yield error
                    else:
                        if item or failing:
                            yield item
                        failing = False
                if stop.is_set() or _past(deadline):
                    return
                gated = wakeups.wait(stop, deadline)
                if stop.is_set() or _past(deadline):
                    return
        finally:
            wakeups.close()


def _continuation(
    case_id: str, seq: int, digest: str, rows: list[Event]
) -> tuple[list[Event], bool] | HistoryRewritten:
    """What ``rows`` (the events from ``seq`` on, or from 1) add after ``(seq, digest)``.

    The new events and whether all of them chained on; a batch broken after its first event
    is cut at the break (delivered up to it, the break reported by the next look).
    """
    if seq > 0:
        if not rows:
            return HistoryRewritten(case_id, seq, digest, f"the stream now ends before seq {seq}")
        if rows[0].seq != seq:
            return HistoryRewritten(case_id, seq, digest, f"seq {seq} is no longer stored")
        if rows[0].hash != digest:
            return HistoryRewritten(
                case_id, seq, digest, f"seq {seq} is now {rows[0].hash[:12]}… instead"
            )
        rows = rows[1:]
    prev_seq, prev_hash = seq, digest
    for index, event in enumerate(rows):
        if event.seq != prev_seq + 1 or event.prev_hash != prev_hash:
            if index:
                return rows[:index], False
            return HistoryRewritten(
                case_id,
                seq,
                digest,
                f"the next stored event (seq {event.seq}) follows {event.prev_hash[:12]}…",
            )
        prev_seq, prev_hash = event.seq, event.hash
    return rows, True


def _mask(store: object, message: str) -> str:
    """``message`` without the password of the store's URL, if it has one."""
    if not isinstance(store, DatabaseStore) or "@" not in store.url:
        return message
    from casefile.store.sql_listen import mask_secrets

    return mask_secrets(message, store.url)


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline
