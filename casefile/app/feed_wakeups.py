"""When a change feed looks next: LISTEN where the store announces its appends, polling
otherwise, and polling again while LISTEN is down.

A wake-up only says "look" (see :mod:`casefile.app.feed` for why that keeps delivery exact).
A :class:`~casefile.store.base.NotifyingStore` (PostgreSQL) is followed by LISTENing on a
connection of the feed's own (:mod:`casefile.store.sql_listen`; the store's connections are busy
and pooled), plus a look every ``safety_interval`` seconds anyway, because a notification can
be missed without anyone noticing. Where LISTEN cannot be set up or its connection drops, the
feed polls instead, says so once, and tries LISTEN again now and then with a growing interval.
Every other store (SQLite, a case directory, memory) is polled: its ``change_token`` every
``poll_interval`` seconds, a cheap comparison; the events are read only when it changed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from casefile.app.interrupts import StopRequest
from casefile.store.base import EventStore, Listener, NotifyingStore

__all__ = ["ListenerFactory", "Wakeups", "store_listener"]

RELISTEN_MAX = 60.0  # seconds: the longest wait between two tries of a LISTEN that failed
SLICE = 0.1  # longest uninterrupted wait: how soon a stop or a nudge is noticed

ListenerFactory = Callable[[], Listener]


def store_listener(store: EventStore) -> ListenerFactory | None:
    """How to LISTEN for the store's appends, when it announces them; ``None``: poll."""
    if not isinstance(store, NotifyingStore):
        return None

    def open_store_listener() -> Listener:
        return store.listen(connect_timeout=3)

    return open_store_listener


class Wakeups:
    """Waits until one case's feed should look again: LISTEN with a safety-net look, or
    polling the change token.

    ``factory`` opens the listener (``None``: always poll); ``nudge`` cuts any wait short (the
    feed sets it on a resync); ``notice`` hears, once each, that the feed fell back to polling
    and that LISTEN was restored. Used by one thread at a time, the follower's.
    """

    def __init__(
        self,
        factory: ListenerFactory | None,
        *,
        case_id: str,
        poll_interval: float,
        safety_interval: float,
        relisten_interval: float,
        nudge: threading.Event,
        notice: Callable[[str], None],
    ) -> None:
        self._factory = factory
        self._case_id = case_id
        self._poll_interval = poll_interval
        self._safety_interval = safety_interval
        self._relisten_interval = relisten_interval
        self._nudge = nudge
        self._notice = notice
        self._listener: Listener | None = None
        self._polling_noticed = False
        self._backoff = relisten_interval
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
        self._backoff = self._relisten_interval
        if self._polling_noticed:
            self._polling_noticed = False
            self._notice("change feed: LISTEN restored; polling stopped")
        return True

    def _fall_back(self, what: str, error: BaseException) -> None:
        self._listener = None
        self._relisten_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, RELISTEN_MAX)
        if not self._polling_noticed:
            self._polling_noticed = True
            self._notice(f"change feed: {what} ({error}); polling every {self._poll_interval:g} s")

    def wait(self, stop: StopRequest, deadline: float | None) -> bool:
        """Block until the next look is due (or ``stop``); whether it should first compare
        the change token (only when polling: a notification or a safety look reads)."""
        nudge = self._nudge
        listener = self._listener
        if listener is not None:
            end = _earliest(time.monotonic() + self._safety_interval, deadline)
            while not stop.is_set():
                if nudge.is_set():
                    break
                remaining = end - time.monotonic()
                if remaining <= 0:
                    break  # the safety-net look
                try:
                    payloads = listener.wait(min(SLICE, remaining))
                except Exception as error:
                    listener.close()
                    self._fall_back("LISTEN connection lost", error)
                    break  # look now: a commit may have gone unnotified
                if any(p in ("", self._case_id) for p in payloads):
                    break
            nudge.clear()
            return False
        end = _earliest(time.monotonic() + self._poll_interval, deadline)
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


def _sleep(stop: StopRequest, nudge: threading.Event, until: float) -> bool:
    """Wait until ``until``; False if ``stop`` or ``nudge`` cut the wait short."""
    while True:
        if stop.is_set() or nudge.is_set():
            return False
        remaining = until - time.monotonic()
        if remaining <= 0:
            return True
        stop.wait(min(SLICE, remaining))


def _earliest(moment: float, deadline: float | None) -> float:
    return moment if deadline is None else min(moment, deadline)
