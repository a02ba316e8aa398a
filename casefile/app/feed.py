"""Follow one case as it grows: every new event once, in ``seq`` order, without a gap.

A :class:`ChangeFeed` holds a position (the last ``seq`` and hash it delivered) and, each time
it looks, reads ``store.load(case_id, after=…)`` and delivers what is new. It is UI-free: the
CLI iterates :meth:`ChangeFeed.batches` (``casefile log --follow``), the terminal UI runs a
:class:`FeedWatcher` thread that calls back, as toolong's watchers do.

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

Wake-up sources. PostgreSQL: LISTEN on a connection of the feed's own
(:mod:`casefile.store.sql_listen`; the store's connections are busy and pooled), plus a look
every ``safety_interval`` seconds anyway, because a notification can be missed without anyone
noticing. Where LISTEN cannot be set up or its connection drops, the feed polls instead, says so
once through ``on_notice``, and tries LISTEN again now and then. SQLite, a case directory and
the memory store: the store's ``change_token`` every ``poll_interval`` seconds (a cheap
comparison; the events are read only when it changed).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from casefile.app.interrupts import StopOnInterrupt, StopRequest
from casefile.domain.events import GENESIS_HASH, Event
from casefile.errors import CasefileError, IntegrityError, StoreError
from casefile.store.base import EventStore

__all__ = [
    "POLL_INTERVAL",
    "SAFETY_INTERVAL",
    "ChangeFeed",
    "FeedWatcher",
    "HistoryRewritten",
    "Listener",
    "ListenerFactory",
]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

POLL_INTERVAL = 0.5  # seconds between change-token checks when polling
SAFETY_INTERVAL = 2.0  # seconds between looks while LISTENing, notified or not
RELISTEN_INTERVAL = 5.0  # first retry of a LISTEN that failed; doubles up to _RELISTEN_MAX
_RELISTEN_MAX = 60.0
_SLICE = 0.1  # longest uninterrupted wait: how soon a stop or a resync is noticed
_UNSEEN = object()  # a change token no store returns: the next gated look reads


class Listener(Protocol):
    """A wake-up source that waits for notifications (see :mod:`casefile.store.sql_listen`)."""

    def wait(self, timeout: float) -> list[str]:
        """Payloads received within ``timeout`` seconds; raises ``StoreError`` when lost."""
        ...

    def close(self) -> None: ...


ListenerFactory = Callable[[], Listener]


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
    ``listener`` chooses the wake-up source: ``"auto"`` LISTENs when the store is PostgreSQL
    and polls otherwise; ``None`` always polls; a factory (for tests, or another database)
    is called to open a :class:`Listener`. ``on_notice`` receives one-line remarks about how
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
        self._listener_factory = _default_listener(store) if isinstance(listener, str) else listener
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
        with interrupt, closing(self._follow(interrupt, deadline)) as items:
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
        """A :class:`FeedWatcher` for this feed, not yet started (``with`` starts it)."""
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

    def _notice(self, message: str) -> None:
        message = _mask(self.store, message)
        if self._on_notice is None:
            log.info("%s", message)
        else:
            self._on_notice(message)

    def _follow(
        self, stop: StopRequest, deadline: float | None
    ) -> Generator[list[Event] | HistoryRewritten | CasefileError, None, None]:
        """Look, wait for a wake-up, look again … until ``stop`` or ``deadline``.

        Yields every look's result (an empty list only for the first success after a
        failure), and failures as values: the iterator raises them, the watcher reports them.
        """
        wakeups = _Wakeups(self)  # LISTEN before the first look, so no commit falls between
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
            with closing(self.feed._follow(self._stop, None)) as items:
                for item in items:
                    if isinstance(item, CasefileError):
                        if not failing:
                            self._error(item)
                        failing = True
                        continue
                    if failing:
                        failing = False
                        self.feed._notice(f"change feed: reading case {self.feed.case_id} again")
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


class _Wakeups:
    """When the feed looks next: LISTEN with a safety-net look, or polling the change token.

    Falls back to polling when LISTEN fails (saying so once) and tries LISTEN again with a
    growing interval; a restored LISTEN is noticed too.
    """

    def __init__(self, feed: ChangeFeed) -> None:
        self._feed = feed
        self._factory = feed._listener_factory
        self._listener: Listener | None = None
        self._polling_noticed = False
        self._backoff = feed.relisten_interval
        self._relisten_at = 0.0
        if self._factory is not None:
            self._connect()

    def _connect(self) -> bool:
        assert self._factory is not None
        try:
            self._listener = self._factory()
        except Exception as error:  # whatever a factory raises: polling still works
            self._fall_back("LISTEN unavailable", error)
            return False
        self._backoff = self._feed.relisten_interval
        if self._polling_noticed:
            self._polling_noticed = False
            self._feed._notice("change feed: LISTEN restored; polling stopped")
        return True

    def _fall_back(self, what: str, error: BaseException) -> None:
        self._listener = None
        self._relisten_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, _RELISTEN_MAX)
        if not self._polling_noticed:
            self._polling_noticed = True
            self._feed._notice(
                f"change feed: {what} ({error}); polling every {self._feed.poll_interval:g} s"
            )

    def wait(self, stop: StopRequest, deadline: float | None) -> bool:
        """Block until the next look is due (or ``stop``); whether it should first compare
        the change token (only when polling: a notification or a safety look reads)."""
        nudge = self._feed._nudge
        listener = self._listener
        if listener is not None:
            end = _earliest(time.monotonic() + self._feed.safety_interval, deadline)
            while not stop.is_set():
                if nudge.is_set():
                    break
                remaining = end - time.monotonic()
                if remaining <= 0:
                    break  # the safety-net look
                try:
                    payloads = listener.wait(min(_SLICE, remaining))
                except Exception as error:
                    listener.close()
                    self._fall_back("LISTEN connection lost", error)
                    break  # look now: a commit may have gone unnotified
                if any(p in ("", self._feed.case_id) for p in payloads):
                    break
            nudge.clear()
            return False
        end = _earliest(time.monotonic() + self._feed.poll_interval, deadline)
        if self._factory is not None and self._relisten_at <= end:
            if _sleep(stop, nudge, min(self._relisten_at, end)) and self._connect():
                return False  # LISTENing again: look once, nothing was notified meanwhile
            if nudge.is_set():
                nudge.clear()
                return False
        if not _sleep(stop, nudge, end):
            nudge.clear()
            return False
        return True

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None


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


def _default_listener(store: EventStore) -> ListenerFactory | None:
    """LISTEN on the store's own database when it is PostgreSQL; poll otherwise."""
    # Only the SQL store has a dialect and a URL; the others are polled.
    dialect = getattr(store, "dialect", None)
    url = getattr(store, "url", None)
    if dialect != "postgresql" or not isinstance(url, str):
        return None

    def open_store_listener() -> Listener:
        # Imported here: following a SQLite case never loads the PostgreSQL driver.
        from casefile.store.sql_listen import open_listener

        return open_listener(url, connect_timeout=3)

    return open_store_listener


def _mask(store: object, message: str) -> str:
    """``message`` without the password of the store's URL, if it has one."""
    url = getattr(store, "url", None)
    if not isinstance(url, str) or "@" not in url:
        return message
    from casefile.store.sql_listen import mask_secrets

    return mask_secrets(message, url)


def _sleep(stop: StopRequest, nudge: threading.Event, until: float) -> bool:
    """Wait until ``until``; False if ``stop`` or ``nudge`` cut the wait short."""
    while True:
        if stop.is_set() or nudge.is_set():
            return False
        remaining = until - time.monotonic()
        if remaining <= 0:
            return True
        stop.wait(min(_SLICE, remaining))


def _earliest(moment: float, deadline: float | None) -> float:
    return moment if deadline is None else min(moment, deadline)


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline
