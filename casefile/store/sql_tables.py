"""The tables, as SQLModel rows, and the statements over them that are built only once.

``events`` holds every case's stream, keyed by ``(case_id, seq)``: that key is what makes
optimistic concurrency work, because two writers that both think the next ``seq`` is 7 cannot
both insert it. ``artifacts`` holds content-addressed blobs. Times are stored as the exact ISO
strings the events carry and the payload as its canonical JSON text, so what comes back out
hashes, and exports, to the very same bytes. ``snapshots`` caches folds (never truth; see
:mod:`casefile.store.base`). :mod:`casefile.store.sql` is the store over them.

These rows are what the code reads and writes; the tables are *created* by the migrations in
:mod:`casefile.store.sql_schema`, which keep their own copy of each version's DDL. A test
checks that the two agree, so changing a row here without a migration fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from sqlalchemy import Column, Delete, Insert, LargeBinary, Text, bindparam, delete, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Field, SQLModel

from casefile.domain.events import Event, NewEvent, canonical_json, seal_with_text


class EventRow(SQLModel, table=True):
    """One event of one case, exactly as sealed."""

    __tablename__: ClassVar[str] = "events"

    case_id: str = Field(primary_key=True)
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    type: str
    version: int
    recorded_at: str
    occurred_at: str | None = None
    actor: str
    # The canonical JSON text of the payload (canonical_json), never re-encoded on the way out.
    payload: str = Field(sa_column=Column(Text, nullable=False))
    prev_hash: str
    hash: str


class ArtifactRow(SQLModel, table=True):
    """A blob, stored once under its SHA-256."""

    __tablename__: ClassVar[str] = "artifacts"

    digest: str = Field(primary_key=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    size: int


class SnapshotRow(SQLModel, table=True):
    """The latest snapshot of one case for one fold engine: bytes the caller serialised."""

    __tablename__: ClassVar[str] = "snapshots"

    case_id: str = Field(primary_key=True)
    engine: str = Field(primary_key=True)
    seq: int
    head_hash: str
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


EVENTS = EventRow.__table__  # type: ignore[attr-defined]
ARTIFACTS = ArtifactRow.__table__  # type: ignore[attr-defined]
SNAPSHOTS = SnapshotRow.__table__  # type: ignore[attr-defined]
EC = EVENTS.c
AC = ARTIFACTS.c
SC = SNAPSHOTS.c


# Statements built once: constructing a select() costs more than running it on SQLite.
ANY_EVENT = select(EC.seq).where(EC.case_id == bindparam("case_id")).limit(1)
INSERT_ARTIFACTS = insert(ARTIFACTS)
ARTIFACT_EXISTS = select(AC.digest).where(AC.digest == bindparam("digest"))
ARTIFACT_DATA = select(AC.data).where(AC.digest == bindparam("digest"))
CASE_IDS = select(EC.case_id).where(EC.seq == 1).order_by(EC.recorded_at, EC.case_id)
SNAPSHOT = select(SC.seq, SC.head_hash, SC.engine, SC.data).where(
    SC.case_id == bindparam("case_id"), SC.engine == bindparam("engine")
)


DROP_SNAPSHOTS: Delete = delete(SNAPSHOTS)
DROP_CASE_SNAPSHOTS: Delete = delete(SNAPSHOTS).where(SC.case_id == bindparam("case_id"))


def snapshot_upsert(dialect: str) -> Insert:
    """INSERT … ON CONFLICT (case_id, engine) DO UPDATE: the newest snapshot replaces the last.

    Both databases spell it the same way, but SQLAlchemy builds it per dialect.
    """
    new = (sqlite.insert if dialect == "sqlite" else postgresql.insert)(SNAPSHOTS)
    return new.on_conflict_do_update(
        index_elements=[SC.case_id, SC.engine],
        set_={
            "seq": new.excluded.seq,
            "head_hash": new.excluded.head_hash,
            "data": new.excluded.data,
        },
    )


COLUMNS = (
    "case_id", "seq", "type", "version", "recorded_at", "occurred_at", "actor", "payload",
    "prev_hash", "hash",
)  # fmt: skip


def row_values(event: Event) -> tuple[Any, ...]:
    """The event as a row for the driver, payload as its canonical JSON text."""
    return row_of(event, canonical_json(event.payload))


def row_of(event: Event, payload_text: str) -> tuple[Any, ...]:
    """The event as a row, given its payload's canonical JSON (as sealing or verifying the
    event wrote it, so it is not encoded twice)."""
    return (
        event.case_id,
        event.seq,
        event.type,
        event.version,
        event.recorded_at,
        event.occurred_at,
        event.actor,
        payload_text,
        event.prev_hash,
        event.hash,
    )


def sealed_rows(
    case_id: str, seq: int, prev_hash: str, news: Sequence[NewEvent], recorded_at: str
) -> tuple[list[Event], list[tuple[Any, ...]]]:
    """``news`` sealed after ``seq`` and ``prev_hash``, and their rows: each payload encoded
    once, for its hash and its row's payload text."""
    sealed: list[Event] = []
    rows: list[tuple[Any, ...]] = []
    for new in news:
        seq += 1
        event, text = seal_with_text(case_id, seq, prev_hash, new, recorded_at)
        sealed.append(event)
        rows.append(row_of(event, text))
        prev_hash = event.hash
    return sealed, rows


#: Rows per INSERT statement: 10 parameters each stays far below SQLite's 32,766 and
#: PostgreSQL's 65,535 bound parameters.
ROWS_PER_INSERT = 1000


class RowInserts:
    """Events inserted as rows with multi-row INSERTs in a placeholder style (``?`` or ``%s``),
    each statement built once per row count."""

    def __init__(self, placeholder: str) -> None:
        self._prefix = f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES "
        self._group = "(" + ", ".join([placeholder] * len(COLUMNS)) + ")"
        self._statements: dict[int, str] = {}

    def __call__(self, cursor: Any, rows: list[tuple[Any, ...]]) -> None:
        """Insert rows: one statement, or (past the drivers' parameter limits) several, inside
        the caller's transaction, so that an append stays all or nothing."""
        if len(rows) == 1:  # the durable single append: no flattening
            cursor.execute(self.statement(1), rows[0])
            return
        for start in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[start : start + ROWS_PER_INSERT]
            cursor.execute(self.statement(len(chunk)), [v for row in chunk for v in row])

    def statement(self, rows: int) -> str:
        """INSERT of ``rows`` events in one statement."""
        sql = self._statements.get(rows)
        if sql is None:
            sql = self._prefix + ", ".join([self._group] * rows)
            self._statements[rows] = sql
        return sql
