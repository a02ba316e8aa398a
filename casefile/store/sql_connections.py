"""The store's connections: one per thread for the hot path, and driver errors translated.

:class:`~casefile.store.sql.SqlEventStore` runs its hot statements (append, head, load) as plain
SQL on the driver's cursor, on a connection each thread keeps for the life of the store, and
everything else in short SQLAlchemy transactions. Both kinds of failure leave as
:class:`~casefile.errors.StoreError` naming what was being done and where; integrity errors pass
through untranslated, because only the caller knows what they mean.
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError as SqlIntegrityError
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import PoolProxiedConnection

from casefile.errors import StoreError
from casefile.store.database import (
    BUSY_TIMEOUT_MS,
    WRITE_OPTION,
    create_store_engine,
    display_url,
    postgres_bounds,
)

SILENCE_GRACE_S = 5
"""How long past the server's statement timeout the client waits before it gives up on a
connection that has gone silent (the server would have answered with a timeout by then)."""


class _Watchdog:
    """Shuts the socket of a PostgreSQL connection whose statement outlives its deadline.

    The server's ``statement_timeout`` cannot help when the server, or something between it and
    us, has gone silent; psycopg then waits on the socket for ever. Shutting the socket down
    makes that wait end with an error at once; the connection is then discarded. One daemon
    thread watches every armed statement of the process (a thread per statement would cost the
    hot path more than the statement).
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._armed: dict[int, tuple[float, PoolProxiedConnection]] = {}
        self._fired: set[int] = set()
        self._next = 0
        self._thread: threading.Thread | None = None

    def arm(self, raw: PoolProxiedConnection, seconds: float) -> int:
        with self._changed:
            self._next += 1
            token = self._next
            self._armed[token] = (time.monotonic() + seconds, raw)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="casefile-pg-watchdog", daemon=True
                )
                self._thread.start()
            self._changed.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Stop watching; whether the deadline had passed and the socket was shut."""
        with self._changed:
            self._armed.pop(token, None)
            if token in self._fired:
                self._fired.discard(token)
                return True
            return False

    def _watch(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [t for t, (deadline, _) in self._armed.items() if deadline <= now]
                expired = [(t, self._armed.pop(t)[1]) for t in due]
                self._fired.update(due)
                if not expired:
                    soonest = min((d for d, _ in self._armed.values()), default=now + 60)
                    self._changed.wait(max(soonest - now, 0.01))
                    continue
            for _token, raw in expired:
                _shut(raw)


def _shut(raw: PoolProxiedConnection) -> None:
    with suppress(Exception):  # already closed or broken: nothing to wake
        fd = int(raw.driver_connection.pgconn.socket)  # type: ignore[union-attr]
        with socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)


_WATCHDOG = _Watchdog()


BACKOFF_BASE_S = 0.001
"""The first pause after a lost append; each further loss in a row doubles the window."""

BACKOFF_CAP_S = 0.1
"""The widest pause window: past it a writer waits at most this long between attempts."""

WIN_RELIEF = 1 / 3
"""How much a won append lowers a case's contention level (a lost one raises it by 1)."""

STARVING_AFTER = 3
"""Losses in a row after which a writer goes first (the service gives up after eight)."""


class _Contention:
    """How contended each case is in this process, shared by every store and thread.

    ``level`` rises by one with each lost append and eases by :data:`WIN_RELIEF` with each won
    one; ``starving`` counts the writers that have lost :data:`STARVING_AFTER` times in a row.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._levels: dict[tuple[str, str], float] = {}
        self._starving: dict[tuple[str, str], int] = {}

    def rise(self, key: tuple[str, str], *, starving: bool) -> float:
        with self._changed:
            level = self._levels.get(key, 0.0) + 1.0
            self._levels[key] = level
            if starving:
                self._starving[key] = self._starving.get(key, 0) + 1
            return level

    def ease(self, key: tuple[str, str], *, was_starving: bool) -> float:
        if not was_starving and key not in self._levels:
            return 0.0  # uncontended, the common case: nothing to ease (a read needs no lock)
        with self._changed:
            level = self._levels.get(key, 0.0)
            eased = level - WIN_RELIEF
            if eased <= 0:
                self._levels.pop(key, None)
            else:
                self._levels[key] = eased
            if was_starving:
                left = self._starving.get(key, 0) - 1
                if left <= 0:
                    self._starving.pop(key, None)
                else:
                    self._starving[key] = left
                self._changed.notify_all()
            return max(level, 0.0)

    def make_way(self, key: tuple[str, str], timeout: float) -> None:
        """Wait (at most ``timeout``) while a starving writer of the case has yet to win."""
        with self._changed:
            self._changed.wait_for(lambda: key not in self._starving, timeout)


_CONTENTION = _Contention()


class SqlConnections:
    """The engine for a SQLAlchemy URL, each thread's held connection, and error translation.

    The base of :class:`~casefile.store.sql.SqlEventStore` (under
    :class:`~casefile.store.sql_artifacts.SqlArtifacts`); see :mod:`casefile.store.database`
    for how the engine is made and SQLite tuned.
    """

    def __init__(self, url: str) -> None:
        self._url = url
        self._engine = create_store_engine(url)
        self._where = display_url(url)
        self._sqlite = self._engine.dialect.name == "sqlite"
        self._local = threading.local()
        self._held: dict[threading.Thread, PoolProxiedConnection] = {}
        self._held_lock = threading.Lock()
        self._dbapi_error: type[Exception] = self._engine.dialect.loaded_dbapi.Error
        self._dbapi_integrity: type[Exception] = self._engine.dialect.loaded_dbapi.IntegrityError
        #: how long a hot statement may wait for the server before its socket is shut (None:
        #: SQLite, where a lock wait is bounded by busy_timeout and nothing crosses a network)
        self._silence_s = None if self._sqlite else postgres_bounds(url)[1] + SILENCE_GRACE_S

    def _lost_race(self, case_id: str) -> None:
        """Pause before a lost append is reported, so that the caller's retry is spread out.

        A loser retries at once on the new head, and so does every other loser: they collide
        again, and with sixteen writers in one process a quarter to a half of the writes used
        up every retry. Three things spread them out. Each loss pauses for a random time up
        to a window that doubles with the case's contention level ("full jitter"), shared by
        every store in the process, so all its writers slow down together. A winner pauses
        too while the case is contended, or the writer that just won (and so is not backing
        off) would take turn after turn. And a writer that has lost :data:`STARVING_AFTER`
        times in a row goes first: winners hold back until it has won.
        """
        streak = getattr(self._local, "streak", 0) + 1
        self._local.streak = streak
        level = _CONTENTION.rise((self._url, case_id), starving=streak == STARVING_AFTER)
        self._pause(level)

    def _won_race(self, case_id: str) -> None:
        """An append got through: under contention, pause (and make way) before handing back."""
        streak = getattr(self._local, "streak", 0)
        self._local.streak = 0
        key = (self._url, case_id)
        level = _CONTENTION.ease(key, was_starving=streak >= STARVING_AFTER)
        if level > 0:
            self._pause(level)
            if streak < STARVING_AFTER:
                _CONTENTION.make_way(key, BACKOFF_CAP_S)

    @staticmethod
    def _pause(level: float) -> None:
        window = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (min(level, 16.0) - 1))
        time.sleep(random.uniform(0, window))

    @property
    def url(self) -> str:
        """The SQLAlchemy URL the store was opened with, password included, so that a listener
        can open a connection of its own. Show :func:`~casefile.store.database.display_url`
        of it instead, never the URL itself."""
        return self._url

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``: which database the URL names."""
        return str(self._engine.dialect.name)

    def location(self) -> str:
        """The database URL with its password masked."""
        return str(self._engine.url.render_as_string(hide_password=True))

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for tests and maintenance tools, not for the service)."""
        return self._engine

    def _error(self, what: str, error: BaseException) -> StoreError:
        detail = getattr(error, "orig", None) or error
        first_line = (
            str(detail).strip().splitlines()[0] if str(detail).strip() else type(detail).__name__
        )
        if what == "open database":
            return StoreError(f"cannot open database {self._where}: {first_line}")
        return StoreError(f"cannot {what} in {self._where}: {first_line}")

    @contextmanager
    def _transaction(
        self, what: str, *, write: bool, busy_ms: int | None = None
    ) -> Iterator[Connection]:
        """A SQLAlchemy transaction; database errors leave as :class:`StoreError`.

        Integrity errors pass through untranslated: the caller knows what they mean.
        ``busy_ms`` (SQLite): wait at most that long for another writer's lock, for writes
        that may give up (a cache) rather than keep a command waiting.
        """
        try:
            with self._engine.connect() as conn:
                if write:
                    conn.execution_options(**{WRITE_OPTION: True})
                raw = conn.connection.driver_connection if busy_ms and self._sqlite else None
                if raw is not None:
                    raw.execute(f"PRAGMA busy_timeout = {int(busy_ms or 0)}")
                try:
                    with conn.begin():
                        yield conn
                finally:
                    if raw is not None:
                        raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        except (SQLAlchemyError, self._dbapi_error) as error:
            if isinstance(error, SqlIntegrityError | self._dbapi_integrity):
                raise
            raise self._error(what, error) from error

    def _connection(self) -> PoolProxiedConnection:
        """This thread's own connection for the hot statements, in autocommit mode.

        Checking a connection out of SQLAlchemy's pool and back in costs about as much as a
        whole SQLite append, so each thread keeps one from the pool for the life of the store
        (returned when its thread has ended or at :meth:`close`). Autocommit (pysqlite's
        ``isolation_level=None``, psycopg's ``autocommit``) lets a read be one statement and a
        write say its own BEGIN.
        """
        raw: PoolProxiedConnection | None = getattr(self._local, "raw", None)
        if raw is not None:
            return raw
        raw = self._engine.raw_connection()
        if not self._sqlite:
            raw.driver_connection.autocommit = True  # type: ignore[union-attr]
        with self._held_lock:
            for thread in [t for t in self._held if not t.is_alive()]:
                self._release(self._held.pop(thread))
            self._held[threading.current_thread()] = raw
        self._local.raw = raw
        return raw

    def _release(self, raw: PoolProxiedConnection, *, broken: bool = False) -> None:
        """Give a held connection back to the pool (or discard it if ``broken``)."""
        try:
            if broken:
                raw.invalidate()
                return
            if not self._sqlite:
                raw.driver_connection.autocommit = False  # type: ignore[union-attr]
            raw.close()
        except self._dbapi_error:
            raw.invalidate()

    def _forget_connection(self) -> None:
        raw: PoolProxiedConnection | None = getattr(self._local, "raw", None)
        self._local.raw = None
        with self._held_lock:
            self._held.pop(threading.current_thread(), None)
        if raw is not None:
            self._release(raw, broken=True)

    def _cursor(self, what: str, *, write: bool) -> _HotCursor:
        """A driver cursor on this thread's connection, in autocommit mode.

        For a ``write`` on SQLite, wrapped in BEGIN IMMEDIATE … COMMIT: the write lock is taken
        up front (as the engine's begin hook does for SQLAlchemy transactions), so concurrent
        writers queue. On PostgreSQL each statement is its own transaction, so a write must be
        a single statement (see :meth:`append`). A read is one SELECT: a consistent snapshot on
        its own, without BEGIN/ROLLBACK round trips. Driver errors leave as
        :class:`StoreError`, except integrity errors, whose meaning the caller knows.
        """
        return _HotCursor(self, what, write and self._sqlite)

    def _cursor_failed(
        self, what: str, cursor: Any, transaction: bool, fired: bool, error: BaseException
    ) -> BaseException | None:
        """What leaves a hot cursor's block that raised ``error``: a :class:`StoreError` to
        raise instead, or None to let ``error`` go on. ``fired``: the watchdog shut the
        connection (the statement outlived its deadline); it is never used again."""
        if fired:
            self._forget_connection()
            return StoreError(
                f"cannot {what} in {self._where}: no answer from the server for "
                f"{self._silence_s:g} s (statement_timeout and a few seconds); the "
                "connection was closed"
            )
        if transaction:
            try:
                cursor.execute("ROLLBACK")
            except self._dbapi_error:
                self._forget_connection()  # state unknown: never reuse it
        if isinstance(error, self._dbapi_error) and not isinstance(error, self._dbapi_integrity):
            # The connection may be what failed (a restarted server): start afresh.
            self._forget_connection()
            return self._error(what, error)
        return None

    def close(self) -> None:
        """Return every held connection and close the pool."""
        with self._held_lock:
            held, self._held = list(self._held.values()), {}
        for raw in held:
            self._release(raw)
        self._local = threading.local()
        self._engine.dispose()


class _HotCursor:
    """:meth:`SqlConnections._cursor`'s context: a class rather than a generator, because
    every append and read enters one (a generator's context costs a microsecond more, a
    tenth of an append's own work)."""

    __slots__ = ("_conns", "_cursor", "_transaction", "_watch", "_what")

    def __init__(self, conns: SqlConnections, what: str, transaction: bool) -> None:
        self._conns = conns
        self._what = what
        self._transaction = transaction
        self._watch: int | None = None
        self._cursor: Any = None

    def __enter__(self) -> Any:
        conns = self._conns
        try:
            raw = conns._connection()
            cursor = raw.cursor()
        except (SQLAlchemyError, conns._dbapi_error) as error:
            conns._forget_connection()
            raise conns._error(self._what, error) from error
        self._cursor = cursor
        if conns._silence_s is not None:
            self._watch = _WATCHDOG.arm(raw, conns._silence_s)
        if self._transaction:
            try:
                cursor.execute("BEGIN IMMEDIATE")
            except BaseException as error:
                self._leave(error)
                raise
        return cursor

    def __exit__(self, _type: object, error: BaseException | None, _tb: object) -> None:
        if error is not None:
            self._leave(error)
            return
        if self._transaction:
            try:
                self._cursor.execute("COMMIT")
            except BaseException as failed:
                self._leave(failed)
                raise
        self._close()

    def _leave(self, error: BaseException) -> None:
        """Clean up after ``error``; raise what replaces it, if anything does."""
        fired = self._watch is not None and _WATCHDOG.disarm(self._watch)
        self._watch = None
        conns = self._conns
        try:
            instead = conns._cursor_failed(
                self._what, self._cursor, self._transaction, fired, error
            )
        finally:
            self._close()
        if instead is not None:
            raise instead from error

    def _close(self) -> None:
        """Disarm the watchdog (a deadline that passed as the answer came: never reuse the
        connection) and close the cursor."""
        if self._watch is not None and _WATCHDOG.disarm(self._watch):
            self._conns._forget_connection()
        self._watch = None
        try:
            self._cursor.close()
        except self._conns._dbapi_error:
            return  # a cursor that cannot close belongs to a connection already dropped
