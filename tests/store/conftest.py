"""Fixtures for the store contract suite: one suite, every backend.

``store`` runs a test against the in-memory store, SQLite (a file in tmp), a real PostgreSQL
server started once per session and a case directory (see :mod:`.backends` for what a
directory cannot do and how those tests skip); ``backend`` is the same backend with a way to
open a second handle on its storage. ``sql_url`` gives the SQL backends only, for tests that
need a URL (other processes) or raw SQL (tampering). Each PostgreSQL test gets a database of
its own. Without the server binaries the PostgreSQL cases are skipped locally but fail when
``CI=true``: CI must install them, so a silent skip there would hide a missing backend.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from casefile.store.base import EventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore

from .backends import Backend, open_directory
from .pg import PostgresServer, PostgresUnavailable, start_postgres

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        server = start_postgres()
    except PostgresUnavailable as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{error}; CI must install PostgreSQL (initdb, pg_ctl)")
        pytest.skip(str(error))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the session's server."""
    name = f"casefile_test_{os.getpid()}_{next(_databases)}"
    admin = create_engine(postgres_server.url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield postgres_server.url.rsplit("/", 1)[0] + f"/{name}"
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'casefile.db'}"


_SQL_BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=_SQL_BACKENDS)
def sql_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    return str(request.getfixturevalue(name))


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        *_SQL_BACKENDS,
        pytest.param("directory", id="directory"),
    ]
)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "memory":
        memory = MemoryEventStore()
        yield Backend("memory", lambda: memory)
        return
    if request.param == "directory":
        yield Backend("directory", lambda: open_directory(tmp_path / "case"))
        return
    name = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    url = str(request.getfixturevalue(name))
    yield Backend(request.param, lambda: SqlEventStore(url))


@pytest.fixture
def store(backend: Backend) -> Iterator[EventStore]:
    opened = backend.open()
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def sql_store(sql_url: str) -> Iterator[SqlEventStore]:
    sql = SqlEventStore(sql_url)
    try:
        yield sql
    finally:
        sql.close()
