"""PostgreSQL notifies ``casefile_events`` with the case id whenever events are committed.

A listener is a plain psycopg connection, as any other program's would be. To show that
something was *not* notified without waiting out a timeout, a test commits a marker case
afterwards: notifications arrive in commit order, so once the marker's has arrived, any
earlier one would have too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from casefile.domain.events import NewEvent
from casefile.errors import ConcurrencyError, IntegrityError
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.sql_schema import NOTIFY_CHANNEL

pytestmark = pytest.mark.postgres

MARKER = "zz-marker"


def opened() -> NewEvent:
    return NewEvent("case.opened", {"title": "slow decode"})


def note(text: str) -> NewEvent:
    return NewEvent("note.added", {"text": text})


@pytest.fixture
def store(postgres_url: str) -> Iterator[SqlEventStore]:
    with SqlEventStore(postgres_url) as opened_store:
        yield opened_store


@pytest.fixture
def listener(store: SqlEventStore) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A connection of its own, opened from the store's URL, LISTENing on the channel."""
    conninfo = make_url(store.url).set(drivername="postgresql")
    conn = psycopg.connect(conninfo.render_as_string(hide_password=False), autocommit=True)
    try:
        conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
        yield conn
    finally:
        conn.close()


def received_until_marker(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]]
) -> list[str]:
    """Every payload up to the marker's (which is left out); fails if it never comes."""
    seq, _ = store.head(MARKER)
    store.append(MARKER, seq, [opened() if seq == 0 else note("marker")])
    payloads: list[str] = []
    for notification in listener.notifies(timeout=10):
        assert notification.channel == NOTIFY_CHANNEL
        if notification.payload == MARKER:
            return payloads
        payloads.append(notification.payload)
    raise AssertionError(f"the marker's notification never came (got {payloads})")


def test_the_channel_is_the_contract() -> None:
    assert NOTIFY_CHANNEL == "casefile_events"


def test_url_and_dialect_let_a_listener_connect(store: SqlEventStore, postgres_url: str) -> None:
    assert store.url == postgres_url
    assert store.dialect == "postgresql"
    with pytest.raises(AttributeError):
        store.url = "sqlite://"  # type: ignore[misc]


def test_an_append_notifies_its_case_once(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]], postgres_url: str
) -> None:
    with SqlEventStore(postgres_url) as other:  # another connection, as another process's
        other.append("c1", 0, [opened(), note("a"), note("b")])
    assert received_until_marker(store, listener) == ["c1"]
    store.append("c1", 3, [note("c")])
    assert received_until_marker(store, listener) == ["c1"]


def test_a_failed_append_notifies_nothing(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]]
) -> None:
    store.append("c1", 0, [opened()])
    assert received_until_marker(store, listener) == ["c1"]
    with pytest.raises(ConcurrencyError):
        store.append("c1", 0, [opened()])
    with pytest.raises(ConcurrencyError):
        store.append("c1", 5, [note("stale")])
    assert received_until_marker(store, listener) == []


def test_a_large_append_and_an_import_notify_once(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]]
) -> None:
    store.append("big", 0, [opened()])
    store.append("big", 1, [note(f"n{n}") for n in range(2500)])  # several INSERTs, one commit
    source = MemoryEventStore()
    source.append("imported", 0, [opened(), *(note(f"i{n}") for n in range(1200))])
    store.import_case(source.load("imported"), {})
    assert received_until_marker(store, listener) == ["big", "big", "imported"]


def test_an_import_refused_mid_stream_notifies_nothing(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]]
) -> None:
    """The chain is checked as its rows are copied: a break after rows went in aborts the
    copy, so the statement's trigger never fires."""
    source = MemoryEventStore()
    source.append("refused", 0, [opened(), *(note(f"r{n}") for n in range(1200))])
    events = source.load("refused")
    events[1000] = replace(events[1000], payload={"text": "changed"})
    with pytest.raises(IntegrityError, match="seq 1001"):
        store.import_case(events, {})
    assert received_until_marker(store, listener) == []


def test_one_statement_for_two_cases_notifies_each_once(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]]
) -> None:
    rows = [
        {"case_id": case_id, "seq": seq, "hash": f"{case_id}-{seq}"}
        for case_id in ("a", "b")
        for seq in (1, 2)
    ]
    with store.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO events (case_id, seq, type, version, recorded_at, actor, payload, "
                "prev_hash, hash) VALUES (:case_id, :seq, 'note.added', 1, '', '', '{}', '', "
                ":hash)"
            ),
            rows,
        )
    assert sorted(received_until_marker(store, listener)) == ["a", "b"]


def test_nothing_is_delivered_before_commit(
    store: SqlEventStore, listener: psycopg.Connection[tuple[object, ...]]
) -> None:
    with store.engine.connect() as conn:
        transaction = conn.begin()
        conn.execute(
            text(
                "INSERT INTO events (case_id, seq, type, version, recorded_at, actor, payload, "
                "prev_hash, hash) VALUES ('pending', 1, 'note.added', 1, '', '', '{}', '', 'h')"
            )
        )
        assert [n.payload for n in listener.notifies(timeout=0.3)] == []
        transaction.rollback()
    assert received_until_marker(store, listener) == []


def test_the_trigger_runs_once_per_statement(store: SqlEventStore) -> None:
    # PostgreSQL folds identical notifications within a transaction, so a row-level trigger
    # would notify the same payloads; only its cost (one call per row of a 2,500-event
    # append) would differ. The catalog says which it is.
    with store.engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT tgtype, tgnewtable FROM pg_trigger "
                "WHERE tgrelid = 'events'::regclass AND tgname = 'casefile_events_notify'"
            )
        ).one()
    tgtype, new_table = row
    assert tgtype & 1 == 0  # TRIGGER_TYPE_ROW unset: FOR EACH STATEMENT
    assert new_table == "new_rows"
