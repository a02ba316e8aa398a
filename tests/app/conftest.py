"""Fixtures for the application tests: the store suite's databases, and a NOTIFYing PostgreSQL.

``postgres_server``, ``postgres_url`` and ``sqlite_url`` are the store suite's own (a real
server on loopback, a fresh database per test). ``notify_url`` is a PostgreSQL database the
store has migrated, so its ``events`` table notifies on every insert. Every test here must
leave no change-feed thread behind.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from casefile.store.sql import SqlEventStore
from tests.store.conftest import postgres_server, postgres_url, sqlite_url

__all__ = ["notify_url", "postgres_server", "postgres_url", "sqlite_url"]


def user_triggers(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            count = conn.execute(
                text(
                    "SELECT count(*) FROM pg_trigger "
                    "WHERE tgrelid = 'events'::regclass AND NOT tgisinternal"
                )
            ).scalar_one()
        return int(count)
    finally:
        engine.dispose()


@pytest.fixture
def notify_url(postgres_url: str) -> str:
    """A fresh PostgreSQL database, migrated by the store (its NOTIFY trigger included)."""
    SqlEventStore(postgres_url).close()
    assert user_triggers(postgres_url) >= 1, "the store's migrations made no NOTIFY trigger"
    return postgres_url


def feed_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("casefile-feed")]


@pytest.fixture(autouse=True)
def no_feed_thread_left() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 5
    while feed_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not feed_threads(), "a change-feed thread outlived its test"
