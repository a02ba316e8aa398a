"""Where the database is, and how casefile opens it.

One code path serves SQLite and PostgreSQL; this module holds the few places where they
differ: choosing the URL (``--db``, then ``CASEFILE_DB``, then a SQLite file in the user's data
directory) and tuning a SQLite connection so that concurrent writers queue instead of failing.

SQLite durability. In WAL mode a commit is durable against power loss only with
``synchronous=FULL``; with ``NORMAL`` the last transactions before a power cut may roll back
(they still survive a crashed *process*). An investigation log that acknowledges a note and then
loses it is worse than a slower append, so FULL is the default. Users who prefer speed can ask
for NORMAL with ``?synchronous=NORMAL`` on the URL or ``CASEFILE_SQLITE_SYNCHRONOUS=NORMAL``
(https://www.sqlite.org/pragma.html#pragma_synchronous, https://www.sqlite.org/wal.html).

PostgreSQL bounds. A server that accepts and never answers, or a connection that goes silent
mid-statement (a partition, a stuck proxy), would otherwise hold a command for minutes or for
ever. So every connection has a connect timeout (``connect_timeout``, default 10 s), TCP
keepalives and ``tcp_user_timeout`` (unacknowledged data gives up), and a statement timeout
(default 30 s) enforced twice: by the server (``statement_timeout``) and, for the case where the
server cannot even say so, by the client, which shuts the socket of a statement that outlives it
by a few seconds (:class:`~casefile.store.sql_connections.SqlConnections`). Both are set on the
URL (``?connect_timeout=5&statement_timeout=60``) or with ``CASEFILE_PG_CONNECT_TIMEOUT`` and
``CASEFILE_PG_STATEMENT_TIMEOUT`` (seconds; the URL wins).
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError

from casefile.errors import StoreError

ENV_URL = "CASEFILE_DB"
ENV_SYNCHRONOUS = "CASEFILE_SQLITE_SYNCHRONOUS"
DEFAULT_SYNCHRONOUS = "FULL"
ENV_CONNECT_TIMEOUT = "CASEFILE_PG_CONNECT_TIMEOUT"
ENV_STATEMENT_TIMEOUT = "CASEFILE_PG_STATEMENT_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT_S = 10
DEFAULT_STATEMENT_TIMEOUT_S = 30
BUSY_TIMEOUT_MS = 30_000
_SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")

#: Execution option a connection carries when it is about to write. On SQLite it turns the
#: transaction's BEGIN into BEGIN IMMEDIATE so the write lock is taken up front.
WRITE_OPTION = "casefile_write"


def default_url() -> str:
    """The SQLite file in the user's data directory (created on first use)."""
    from platformdirs import user_data_dir

    directory = Path(user_data_dir("casefile"))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot create data directory {directory}: {error.strerror}") from error
    return f"sqlite:///{directory / 'casefile.db'}"


def resolve_url(url: str | None) -> str:
    """The database URL to use: ``url`` (``--db``), else ``$CASEFILE_DB``, else the default file.

    A bare path (no ``://``) means a SQLite file, so ``--db ./team.db`` works as users expect.
    ``postgresql://`` is mapped to the psycopg 3 driver, the one casefile ships with.
    """
    chosen = url or os.environ.get(ENV_URL) or default_url()
    if "://" not in chosen:
        return f"sqlite:///{Path(chosen).expanduser().resolve()}"
    if chosen.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + chosen.split("://", 1)[1]
    return chosen


def display_url(url: str | URL) -> str:
    """The URL as it may appear in a message: never with its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return str(url)


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def is_postgres(url: str | URL) -> bool:
    """Whether the URL names a PostgreSQL database (``False`` for one that is no URL)."""
    try:
        return make_url(url).get_backend_name() == "postgresql"
    except ArgumentError:
        return False


def create_store_engine(url: str) -> Engine:
    """An engine for ``url``, with SQLite tuned for casefile (see the module docstring).

    Raises :class:`StoreError` for a URL SQLAlchemy cannot parse or a driver that is missing.
    """
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise StoreError(f"not a database URL: {url!r}") from error
    try:
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed)
        if parsed.get_backend_name() == "postgresql":
            return create_engine(_bounded_postgres(parsed), pool_pre_ping=False)
        return create_engine(parsed, pool_pre_ping=False)
    except (ArgumentError, ImportError) as error:
        raise StoreError(f"cannot use database {display_url(parsed)}: {error}") from error


def _seconds(name: str, given: str | None, default: int) -> int:
    if given is None or given == "":
        return default
    try:
        value = int(str(given))
    except ValueError:
        value = 0
    if value <= 0:
        raise StoreError(f"{name} must be a whole number of seconds above 0, not {given!r}")
    return value


def postgres_bounds(url: str | URL) -> tuple[int, int]:
    """``(connect timeout, statement timeout)`` in seconds for a PostgreSQL URL: the URL's
    ``connect_timeout`` and ``statement_timeout``, else the environment's, else 10 and 30."""
    parsed = make_url(url) if isinstance(url, str) else url
    query = parsed.query
    connect = query.get("connect_timeout") or os.environ.get(ENV_CONNECT_TIMEOUT)
    statement = query.get("statement_timeout") or os.environ.get(ENV_STATEMENT_TIMEOUT)
    return (
        _seconds("connect_timeout", _one(connect), DEFAULT_CONNECT_TIMEOUT_S),
        _seconds("statement_timeout", _one(statement), DEFAULT_STATEMENT_TIMEOUT_S),
    )


def _one(value: str | tuple[str, ...] | None) -> str | None:
    return value[-1] if isinstance(value, tuple) else value


def _bounded_postgres(url: URL) -> URL:
    """``url`` with libpq's connect timeout, keepalives, ``tcp_user_timeout`` and the server's
    statement timeout set, unless the URL sets them itself."""
    connect_s, statement_s = postgres_bounds(url)
    query: dict[str, Any] = dict(url.query)
    query.pop("statement_timeout", None)  # casefile's own parameter, not a libpq keyword
    query["connect_timeout"] = str(connect_s)
    query.setdefault("keepalives", "1")
    query.setdefault("keepalives_idle", "30")
    query.setdefault("keepalives_interval", "10")
    query.setdefault("keepalives_count", "3")
    query.setdefault("tcp_user_timeout", str(statement_s * 1000))
    options = str(_one(query.get("options")) or "")
    if "statement_timeout" not in options:
        query["options"] = f"{options} -c statement_timeout={statement_s * 1000}".strip()
    return url.set(query=query)


def _use_wal(cursor: Any) -> None:
    """Switch the file to WAL unless it is already. The switch needs the database to itself,
    and SQLite answers "database is locked" at once, without its busy handler, to a connection
    that asks while another holds it (processes opening a new database at once): so ask only
    when needed, and ask again, with jitter, within the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
                return
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(random.uniform(0.005, 0.05))


def _sqlite_engine(url: URL) -> Engine:
    query = dict(url.query)
    requested = query.pop("synchronous", None) or os.environ.get(ENV_SYNCHRONOUS)
    synchronous = str(requested or DEFAULT_SYNCHRONOUS).upper()
    if synchronous not in _SYNCHRONOUS_LEVELS:
        raise StoreError(
            f"synchronous={synchronous!r} is not a SQLite level "
            f"(use one of {', '.join(_SYNCHRONOUS_LEVELS)})"
        )
    engine = create_engine(url.set(query=query))
    in_memory = url.database in (None, "", ":memory:")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not pysqlite, emit BEGIN (see _on_begin); SQLAlchemy's documented
        # recipe for SQLite transaction control on Python < 3.12.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not in_memory:
                _use_wal(cursor)
            cursor.execute(f"PRAGMA synchronous = {synchronous}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # A writer takes the lock at BEGIN: a deferred transaction that reads and then tries to
        # write can fail with SQLITE_BUSY at once in WAL mode (busy_timeout does not apply), so
        # concurrent appends would error instead of queueing.
        if connection.get_execution_options().get(WRITE_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")

    return engine
