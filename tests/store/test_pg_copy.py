"""Batched appends and imports on PostgreSQL go through COPY: the same rows, chain and NOTIFY
as the INSERTs they replace, a lost race still refused whole, a small append still one INSERT."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from casefile.domain.events import NewEvent
from casefile.errors import ConcurrencyError, StoreError
from casefile.store import sql as sql_module
from casefile.store import sql_import
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.sql_copy import COPY_FROM_ROWS
from casefile.store.verify import check_importable

pytestmark = pytest.mark.postgres


def note(n: int) -> NewEvent:
    return NewEvent("note.added", {"text": f"note {n} ünïcode \\ tab\there"})


@pytest.fixture
def store(postgres_url: str) -> Iterator[SqlEventStore]:
    with SqlEventStore(postgres_url) as opened:
        yield opened


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each COPY carried."""
    counted: list[int] = []
    real = sql_module.copy_rows

    def spy(cursor: Any, rows: Any) -> None:
        rows = list(rows)
        counted.append(len(rows))
        real(cursor, rows)

    monkeypatch.setattr(sql_module, "copy_rows", spy)
    monkeypatch.setattr(sql_import, "copy_rows", spy)
    return counted


def test_a_batched_append_is_copied_and_reads_back_the_same(
    store: SqlEventStore, copies: list[int]
) -> None:
    store.append("c", 0, [NewEvent("case.opened", {"title": "slow"})])
    assert copies == []  # a single event stays one INSERT
    sealed = store.append("c", 1, [note(n) for n in range(2_500)])
    assert copies == [2_500]
    loaded = store.load("c")
    assert loaded[1:] == sealed and [e.seq for e in loaded] == list(range(1, 2_502))
    assert check_importable(loaded, {}) == "c"  # the chain verifies
    assert store.head("c") == (2_501, sealed[-1].hash)


def test_a_copy_that_loses_the_race_writes_nothing(store: SqlEventStore, copies: list[int]) -> None:
    store.append("r", 0, [NewEvent("case.opened", {"title": "race"})])
    store.append("r", 1, [note(n) for n in range(COPY_FROM_ROWS)])
    with pytest.raises(ConcurrencyError):
        store.append("r", 1, [note(n) for n in range(COPY_FROM_ROWS)])
    assert len(store.load("r")) == 1 + COPY_FROM_ROWS and copies == [COPY_FROM_ROWS]
    # rows whose seqs collide at the key (a head read that raced) are refused whole too
    raw = store.engine.raw_connection()
    try:
        raw.driver_connection.autocommit = True  # type: ignore[union-attr]
        rows = [("r", seq, "note.added", 1, "t", None, "a", "{}", "p", "h") for seq in (40, 2)]
        with pytest.raises(psycopg.errors.UniqueViolation):
            sql_module.copy_rows(raw.cursor(), rows)
    finally:
        raw.close()
    assert len(store.load("r")) == 1 + COPY_FROM_ROWS


def test_an_import_is_copied_in_its_transaction(store: SqlEventStore, copies: list[int]) -> None:
    source = MemoryEventStore()
    source.append("imported", 0, [NewEvent("case.opened", {"title": "moved"})])
    source.append("imported", 1, [note(n) for n in range(700)])
    events = source.load("imported")
    store.import_case(events, {})
    assert copies == [701] and store.load("imported") == events
    with pytest.raises(StoreError, match="already exists"):
        store.import_case(events, {})
    assert copies == [701] and store.count_events("imported") == 701
