"""The store's connections: one per thread for the hot path, and driver errors translated.

:class:`~casefile.store.sql.SqlEventStore` runs its hot statements (append, head, load) as plain
SQL on the driver's cursor, on a connection each thread keeps for the life of the store, and
everything else in short SQLAlchemy transactions. Both kinds of failure leave as
:class:`~casefile.errors.StoreError` naming what was being done and where; integrity errors pass
through untranslated, because only the caller knows what they mean.
"""

from __future__ import annotations

import threading
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
)


class SqlConnections:
    """The engine for a SQLAlchemy URL, each thread's held connection, and error translation.

    The base of :class:`~casefile.store.sql.SqlEventStore`; see :mod:`casefile.store.database`
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

    @contextmanager
    def _cursor(self, what: str, *, write: bool) -> Iterator[Any]:
        """A driver cursor on this thread's connection, in autocommit mode.

        For a ``write`` on SQLite, wrapped in BEGIN IMMEDIATE … COMMIT: the write lock is taken
        up front (as the engine's begin hook does for SQLAlchemy transactions), so concurrent
        writers queue. On PostgreSQL each statement is its own transaction, so a write must be
        a single statement (see :meth:`append`). A read is one SELECT: a consistent snapshot on
        its own, without BEGIN/ROLLBACK round trips. Driver errors leave as
        :class:`StoreError`, except integrity errors, whose meaning the caller knows.
        """
        try:
            raw = self._connection()
            cursor = raw.cursor()
        except (SQLAlchemyError, self._dbapi_error) as error:
            self._forget_connection()
            raise self._error(what, error) from error
        transaction = write and self._sqlite
        try:
            if transaction:
                cursor.execute("BEGIN IMMEDIATE")
            yield cursor
            if transaction:
                cursor.execute("COMMIT")
        except BaseException as error:
            if transaction:
                try:
                    cursor.execute("ROLLBACK")
                except self._dbapi_error:
                    self._forget_connection()  # state unknown: never reuse it
            if isinstance(error, self._dbapi_error) and not isinstance(
                error, self._dbapi_integrity
            ):
                # The connection may be what failed (a restarted server): start afresh.
                self._forget_connection()
                raise self._error(what, error) from error
            raise
        finally:
            with suppress(self._dbapi_error):
                cursor.close()

    def close(self) -> None:
        """Return every held connection and close the pool."""
        with self._held_lock:
            held, self._held = list(self._held.values()), {}
        for raw in held:
            self._release(raw)
        self._local = threading.local()
        self._engine.dispose()
