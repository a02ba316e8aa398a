"""The event store on SQLModel: one code path for SQLite and PostgreSQL.

Two tables hold the truth. ``events`` holds every case's stream, keyed by ``(case_id, seq)``:
that key is what makes optimistic concurrency work, because two writers that both think the
next ``seq`` is 7 cannot both insert it. ``artifacts`` holds content-addressed blobs. Times are
stored as the exact ISO strings the events carry and the payload as its canonical JSON text, so
what comes back out hashes, and exports, to the very same bytes.

A third, ``snapshots``, caches folds. The schema's version, what opening a database does with it
(never a migration) and the upgrade are :mod:`casefile.store.sql_schema`.

Reading is the hot path (every view is a fold over a whole case), so :meth:`SqlEventStore.load`
runs one plain SELECT on the driver's cursor and builds :class:`Event` objects directly,
without the ORM or pydantic; payloads were validated when they were appended.

The tables and the statements built once are :mod:`casefile.store.sql_tables`; turning rows
back into events, :mod:`casefile.store.sql_decode`; the connections and error translation,
:mod:`casefile.store.sql_connections`; the artifacts (put, get, the blobs kept for the appends
to come and an append's claim on them), :mod:`casefile.store.sql_artifacts`. The store is
those two bases and what is left: the event stream, import, snapshots and removing a case.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext, suppress
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError as SqlIntegrityError
from sqlalchemy.exc import SQLAlchemyError

from casefile.domain.catalogue import validate_payload
from casefile.domain.collector import collector_paused
from casefile.domain.events import GENESIS_HASH, Event, NewEvent, utc_now
from casefile.errors import CaseNotFound, ConcurrencyError, StoreError
from casefile.store.base import Removed, StoredSnapshot
from casefile.store.database import is_postgres
from casefile.store.sql_artifacts import (
    SqlArtifacts,
    drop_artifacts,
    lock_artifacts,
    referred_digests,
)
from casefile.store.sql_copy import COPY_FROM_ROWS, copy_rows
from casefile.store.sql_decode import decode_rows
from casefile.store.sql_import import write_import
from casefile.store.sql_schema import SNAPSHOTS_FROM, open_schema
from casefile.store.sql_tables import (
    CASE_IDS,
    DROP_CASE_SNAPSHOTS,
    DROP_SNAPSHOTS,
    EC,
    EVENTS,
    ROWS_PER_INSERT,
    SNAPSHOT,
    ArtifactRow,
    EventRow,
    RowInserts,
    SnapshotRow,
    sealed_rows,
    snapshot_upsert,
)
from casefile.store.sql_writers import writers_lock
from casefile.store.verify import ARTIFACT_FIELDS, importable_case, referenced_artifacts

__all__ = ["ArtifactRow", "EventRow", "SnapshotRow", "SqlEventStore"]

#: How long a snapshot save waits for another writer's lock on SQLite before giving up.
SNAPSHOT_BUSY_MS = 200
#: The first of the two keys of the PostgreSQL advisory lock that holds a case for a writer
#: (the second comes from the case id): b"case" as a positive int4. Two-key advisory locks are
#: a key space apart from the one-key lock migrations take.
_CASE_LOCK_CLASS = int.from_bytes(b"case", "big") & 0x7FFF_FFFF


class SqlEventStore(SqlArtifacts):
    """An :class:`~casefile.store.base.EventStore` over a SQLAlchemy URL.

    ``sqlite:///path`` or ``postgresql+psycopg://user@host/db``; see
    :mod:`casefile.store.database` for how SQLite is tuned. Gives an empty database the current
    schema, works with an older one as it is, and refuses one it cannot work with (older or
    newer) with :class:`~casefile.errors.StoreError`; it never migrates one
    (:mod:`casefile.store.sql_schema`).

    A PostgreSQL URL opens a :class:`~casefile.store.sql_postgres.PostgresEventStore`, which
    also announces its appends (a :class:`~casefile.store.base.NotifyingStore`).
    """

    def __new__(cls, url: str) -> SqlEventStore:
        if cls is SqlEventStore and is_postgres(url):
            from casefile.store.sql_postgres import PostgresEventStore

            return object.__new__(PostgresEventStore)
        return object.__new__(cls)

    def __init__(self, url: str) -> None:
        super().__init__(url)
        # The hot statements (append, head, load) run as plain SQL on the driver's cursor:
        # SQLAlchemy's execution machinery costs more per append than SQLite's own work.
        # Identical SQL on both databases; only the placeholder differs (qmark / format).
        p = "?" if self._engine.dialect.paramstyle == "qmark" else "%s"
        columns = "seq, type, version, recorded_at, occurred_at, actor, payload, prev_hash, hash"
        self._load_sql = f"SELECT {columns} FROM events WHERE case_id = {p} ORDER BY seq"
        self._load_upto_sql = (
            f"SELECT {columns} FROM events WHERE case_id = {p} AND seq <= {p} ORDER BY seq"
        )
        self._load_after_sql = (
            f"SELECT {columns} FROM events WHERE case_id = {p} AND seq > {p} ORDER BY seq"
        )
        self._load_between_sql = (
            f"SELECT {columns} FROM events WHERE case_id = {p} AND seq > {p} AND seq <= {p} "
            "ORDER BY seq"
        )
        self._head_sql = (
            f"SELECT seq, hash FROM events WHERE case_id = {p} ORDER BY seq DESC LIMIT 1"
        )
        self._insert_rows = RowInserts(p)
        self._upsert_snapshot = snapshot_upsert(self.dialect)
        try:
            # Two processes creating one database at once are serialised by the migration
            # lock, so neither sees the other's half-made tables.
            self._schema = open_schema(self._engine)
        except StoreError:
            self._engine.dispose()
            raise
        except (SQLAlchemyError, self._dbapi_error) as error:
            self._engine.dispose()
            raise self._error("open database", error) from error

    @property
    def schema_version(self) -> int:
        """The database's schema version as this store found (or made) it on opening."""
        return self._schema

    @property
    def _snapshots(self) -> bool:
        """Whether the database has a ``snapshots`` table (an older one is used as it is)."""
        return self._schema >= SNAPSHOTS_FROM

    # -- events ---------------------------------------------------------------------------

    @contextmanager
    def writing(self, case_id: str) -> Iterator[None]:
        """On PostgreSQL, hold a session advisory lock on the case, on this thread's
        connection, so that the case's other writers wait their turn (see
        :meth:`~casefile.store.base.EventStore.writing`); readers and other cases never wait.
        It costs two round trips per write; a connection that fails meanwhile is closed, and
        its lock goes with it. Appends still state ``expected_seq``, so a writer that does not
        hold the case (an older casefile) stays correct.

        On SQLite, an exclusive ``flock`` on ``<database>-writers.lock`` beside the file:
        SQLite's own write lock would stop every reader's snapshot save and every other case
        while a verb decides, and optimistic retries alone starved there too (two or three of
        sixteen writer processes at once ran out of them). A verb decides in milliseconds, so
        holding all the database's writers for that long costs little. An in-memory database
        has one process: nothing to hold.
        """
        if self._sqlite:
            with writers_lock(self._engine.url.database):
                yield
            return
        digest = hashlib.sha256(case_id.encode("utf-8")).digest()
        key = (_CASE_LOCK_CLASS, int.from_bytes(digest[:4], "big", signed=True))
        try:
            # Taken inside the try: a wait interrupted just as the lock was granted still
            # releases it (releasing a lock not held only draws a warning from the server).
            with self._cursor(f"hold case {case_id}", write=False) as cursor:
                cursor.execute("SELECT pg_advisory_lock(%s, %s)", key)
            yield
        finally:
            # A failed release means the connection is gone, and its lock with it.
            with suppress(StoreError), self._cursor(f"release case {case_id}", write=False) as c:
                c.execute("SELECT pg_advisory_unlock(%s, %s)", key)

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        """Validate, chain and insert ``events`` after ``expected_seq``, all or nothing.

        Payloads are validated before anything touches the database (an invalid one raises
        :class:`~casefile.errors.InvalidEvent` and nothing is written). Then the head is read,
        checked against ``expected_seq``, and all new rows go in with ONE multi-row INSERT (on
        PostgreSQL, from :data:`~casefile.store.sql_copy.COPY_FROM_ROWS` rows, one COPY).

        On SQLite that happens inside BEGIN IMMEDIATE, so writers queue on the lock. On
        PostgreSQL the head read and the INSERT are two autocommit statements: the INSERT is
        atomic like any statement, and the ``(case_id, seq)`` key is what makes it safe. It
        succeeds only if nobody has stored seq ``expected_seq + 1``, and stored rows never
        change, so the head hash we chained to is still the head. Compared with one explicit
        transaction this halves the round trips and, more importantly, the time a winning
        writer holds the index entry that every losing writer waits on.

        Events that refer to artifacts are the exception: their append first makes sure of
        those artifacts, in the same transaction (see :meth:`~SqlArtifacts._claim`), so on
        PostgreSQL it is one explicit transaction; so is an append too big for one INSERT.

        A lost race pauses (with jitter, see :meth:`SqlConnections._lost_race`) before it is
        raised as :class:`~casefile.errors.ConcurrencyError`, so the caller's retries spread
        out instead of colliding again.
        """
        normalised = [
            NewEvent(
                new.type,
                validate_payload(new.type, new.version, new.payload),
                new.actor,
                new.occurred_at,
                new.version,
            )
            for new in events
        ]
        if not normalised:
            return []
        claims = sorted({digest for new in normalised for digest in referenced_artifacts(new)})
        what = f"append to case {case_id}"
        try:
            sealed = self._write_append(what, case_id, expected_seq, normalised, claims)
        except ConcurrencyError:
            self._lost_race(case_id)  # outside the cursor: SQLite's write lock is already released
            raise
        except (self._dbapi_integrity, SqlIntegrityError) as error:
            # The (case_id, seq) key refused us: another writer inserted that seq first.
            self._lost_race(case_id)
            raise ConcurrencyError(case_id, expected_seq) from error
        self._won_race(case_id)
        if claims:
            self._let_go(claims)
        return sealed

    def _write_append(
        self,
        what: str,
        case_id: str,
        expected_seq: int,
        normalised: list[NewEvent],
        claims: list[str],
    ) -> list[Event]:
        """The append's write: read the head in the write's transaction, seal, insert."""
        # On PostgreSQL one INSERT is atomic on its own; claims, or rows past one statement,
        # need an explicit transaction (SQLite's write cursor is already inside one).
        copying = not self._sqlite and len(normalised) >= COPY_FROM_ROWS  # one statement
        explicit = not self._sqlite and (
            bool(claims) or (len(normalised) > ROWS_PER_INSERT and not copying)
        )
        with (
            self._cursor(what, write=True) as cursor,
            self._explicit(cursor) if explicit else nullcontext(),
        ):
            if claims:
                self._claim(cursor, case_id, claims)
            cursor.execute(self._head_sql, (case_id,))
            row = cursor.fetchone()
            seq, prev_hash = (row[0], row[1]) if row else (0, GENESIS_HASH)
            if seq != expected_seq:
                raise ConcurrencyError(case_id, expected_seq)
            sealed, rows = sealed_rows(case_id, seq, prev_hash, normalised, utc_now())
            if copying:
                copy_rows(cursor, rows)
            else:
                self._insert_rows(cursor, rows)
        return sealed

    @contextmanager
    def _explicit(self, cursor: Any) -> Iterator[None]:
        """BEGIN … COMMIT around the block on this autocommit cursor; a failure rolls back (a
        connection that cannot even do that is never used again)."""
        cursor.execute("BEGIN")
        try:
            yield
        except BaseException:
            try:
                cursor.execute("ROLLBACK")
            except self._dbapi_error:
                self._forget_connection()
            raise
        cursor.execute("COMMIT")

    def load(
        self, case_id: str, upto: int | None = None, *, after: int = 0, strict: bool = False
    ) -> list[Event]:
        """The events of a case with ``after < seq <= upto``, in ``seq`` order.

        Raises :class:`~casefile.errors.IntegrityError` naming the seq whose stored payload is
        not JSON or not a JSON object. With ``strict``, also refuses a payload whose text is not
        exactly its canonical form (a byte changed without changing the decoded value), which
        verification wants and ordinary reads do not pay for.
        """
        sql: str
        params: tuple[object, ...]
        if after <= 0:  # seqs start at 1: the plain statements, without a bound that is no bound
            sql, params = (
                (self._load_sql, (case_id,))
                if upto is None
                else (self._load_upto_sql, (case_id, upto))
            )
        elif upto is None:
            sql, params = self._load_after_sql, (case_id, after)
        else:
            sql, params = self._load_between_sql, (case_id, after, upto)
        with self._cursor(f"read case {case_id}", write=False) as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        # Building 100,000 events allocates 200,000 tracked containers and nothing cyclic:
        # the cyclic collector would run hundreds of times and find nothing, which costs more
        # than a quarter of a large load. Pause it for the loop (as it was, if already off).
        with collector_paused():
            return decode_rows(case_id, rows, strict)

    def load_strict(self, case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        """``load(case_id, upto, after=after, strict=True)``: what verification reads."""
        return self.load(case_id, upto, after=after, strict=True)

    def head(self, case_id: str) -> tuple[int, str]:
        with self._cursor(f"read case {case_id}", write=False) as cursor:
            cursor.execute(self._head_sql, (case_id,))
            row = cursor.fetchone()
        return (int(row[0]), str(row[1])) if row else (0, GENESIS_HASH)

    def change_token(self, case_id: str) -> object:
        """What a poller compares (see :meth:`~casefile.store.base.EventStore.change_token`).

        On PostgreSQL, the head. On SQLite, ``PRAGMA data_version`` with the head: the pragma
        moves whenever another connection commits to the file (any case, or a snapshot, so it
        may say "look" when this case has nothing new), but not for this connection's own
        commits, which the head covers. The pragma is per connection and each thread has its
        own, so tokens taken on two threads may differ with nothing new; never the reverse,
        since every append moves the head.
        """
        with self._cursor(f"read case {case_id}", write=False) as cursor:
            version: tuple[int, ...] = ()
            if self._sqlite:
                cursor.execute("PRAGMA data_version")
                version = (int(cursor.fetchone()[0]),)
            cursor.execute(self._head_sql, (case_id,))
            row = cursor.fetchone()
        head = (int(row[0]), str(row[1])) if row else (0, GENESIS_HASH)
        return (*version, *head)

    def case_ids(self) -> list[str]:
        """Every case with at least one event, by the time its first event was recorded."""
        with self._transaction("list cases", write=False) as conn:
            result = conn.execute(CASE_IDS)
            return [str(case_id) for (case_id,) in result]

    def count_events(self, case_id: str | None = None) -> int:
        """How many events are stored (in one case, or in all)."""
        query = select(func.count()).select_from(EVENTS)
        if case_id is not None:
            query = query.where(EC.case_id == case_id)
        with self._transaction("count events", write=False) as conn:
            return int(conn.execute(query).scalar_one())

    # -- import ---------------------------------------------------------------------------

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        """Insert a sealed stream and its artifacts in one transaction (see the Protocol).

        The stream is re-checked here (one case, chain intact, artifacts matching their
        digests) because a store must never hold a chain that does not verify, whoever calls.
        The envelopes are checked first, the chain as its rows go in
        (:mod:`casefile.store.sql_import`): a break raises inside the transaction.
        """
        case_id = importable_case(events)
        try:
            with self._transaction(f"import case {case_id}", write=True) as conn:
                write_import(
                    conn, case_id, events, artifacts, sqlite=self._sqlite, where=self._where
                )
        except (SqlIntegrityError, self._dbapi_integrity) as error:
            raise StoreError(
                f"case {case_id} was written by someone else during the import; nothing imported"
            ) from error

    # -- snapshots (a cache of a fold; see casefile.store.base) ------------------------------

    def save_snapshot(
        self, case_id: str, seq: int, head_hash: str, engine: str, data: bytes
    ) -> None:
        """Upsert the case's snapshot for ``engine``: one row per (case, engine), the last
        save wins. Every database error, integrity errors too, leaves as
        :class:`StoreError`: a caller ignores a failed save."""
        if not self._snapshots:
            return  # a database from before snapshots: nowhere to keep one
        what = f"save a snapshot of case {case_id}"
        values = {
            "case_id": case_id,
            "engine": engine,
            "seq": seq,
            "head_hash": head_hash,
            "data": bytes(data),
        }
        try:
            # a cache: never keep a command waiting on another writer's lock for it
            with self._transaction(what, write=True, busy_ms=SNAPSHOT_BUSY_MS) as conn:
                conn.execute(self._upsert_snapshot, values)
        except (SqlIntegrityError, self._dbapi_integrity) as error:
            raise self._error(what, error) from error

    def load_snapshot(self, case_id: str, engine: str) -> StoredSnapshot | None:
        if not self._snapshots:
            return None
        with self._transaction(f"read a snapshot of case {case_id}", write=False) as conn:
            row = conn.execute(SNAPSHOT, {"case_id": case_id, "engine": engine}).first()
        if row is None:
            return None
        seq, head_hash, stored_engine, data = row
        return StoredSnapshot(int(seq), str(head_hash), str(stored_engine), bytes(data))

    def drop_snapshots(self, case_id: str | None = None) -> None:
        if not self._snapshots:
            return
        what = "drop snapshots" if case_id is None else f"drop the snapshots of case {case_id}"
        with self._transaction(what, write=True) as conn:
            if case_id is None:
                conn.execute(DROP_SNAPSHOTS)
            else:
                conn.execute(DROP_CASE_SNAPSHOTS, {"case_id": case_id})

    # -- removing a case -------------------------------------------------------------------

    def remove_case(self, case_id: str) -> Removed:
        """Delete the case's events, its snapshots and the artifacts no other case refers to,
        in one transaction (see the Protocol).

        Another case may come to refer to one of these artifacts at any moment (a blob is
        shared by content), so the rows are locked *before* the other cases' references are
        read, and only locked rows are deleted. On PostgreSQL ``FOR UPDATE`` waits for every
        append that has claimed one of them (see :meth:`~SqlArtifacts._claim`) to commit, and
        the read that follows, a statement of its own under READ COMMITTED, sees what they
        appended; an append that comes later waits for this transaction and puts back what it
        took. On SQLite this transaction's write lock keeps every append out until it commits.
        """
        with self._transaction(f"remove case {case_id}", write=True) as conn:
            if not self._sqlite:
                # whatever the server's default: the read after the lock must see the appends
                # it waited for, which a transaction-wide snapshot would not
                conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
            count = conn.execute(
                select(func.count()).select_from(EVENTS).where(EC.case_id == case_id)
            ).scalar_one()
            if not count:
                raise CaseNotFound(f"no case {case_id!r} in {self._where} (see `casefile cases`)")
            referring = EC.type.in_(sorted(ARTIFACT_FIELDS))
            mine = referred_digests(
                conn.execute(select(EC.type, EC.payload).where(EC.case_id == case_id, referring))
            )
            present = lock_artifacts(conn, sorted(mine), share=False)
            others = referred_digests(
                conn.execute(select(EC.type, EC.payload).where(EC.case_id != case_id, referring))
            )
            drop = sorted(present - others)
            if self._snapshots:
                conn.execute(DROP_CASE_SNAPSHOTS, {"case_id": case_id})
            conn.execute(delete(EVENTS).where(EC.case_id == case_id))
            drop_artifacts(conn, drop)
        return Removed(case_id, int(count), len(drop), len(present) - len(drop))

    def __enter__(self) -> SqlEventStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
