"""The event store on SQLModel: one code path for SQLite and PostgreSQL.

Two tables. ``events`` holds every case's stream, keyed by ``(case_id, seq)``: that key is what
makes optimistic concurrency work, because two writers that both think the next ``seq`` is 7
cannot both insert it. ``artifacts`` holds content-addressed blobs. Times are stored as the
exact ISO strings the events carry and the payload as its canonical JSON text, so what comes
back out hashes, and exports, to the very same bytes.

Reading is the hot path (every view is a fold over a whole case), so :meth:`SqlEventStore.load`
runs one plain SELECT on the driver's cursor and builds :class:`Event` objects directly,
without the ORM or pydantic; payloads were validated when they were appended.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any, ClassVar

from sqlalchemy import Column, Engine, LargeBinary, Text, bindparam, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError as SqlIntegrityError
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import PoolProxiedConnection
from sqlmodel import Field, SQLModel

from casefile.domain.catalogue import validate_payload
from casefile.domain.events import (
    GENESIS_HASH,
    Event,
    NewEvent,
    canonical_json,
    seal,
    sha256_hex,
    utc_now,
)
from casefile.errors import ConcurrencyError, IntegrityError, StoreError
from casefile.store.database import WRITE_OPTION, create_store_engine, display_url
from casefile.store.verify import check_importable

# The C scanner json.loads calls after skipping whitespace; stored payloads are canonical
# (no whitespace), so load() calls it directly and checks the whole text was consumed.
_SCAN_JSON = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

_CHUNK = 500  # parameters per IN (...) list: well under SQLite's and PostgreSQL's limits
# Rows per INSERT statement: 10 parameters each stays far below SQLite's 32,766 and
# PostgreSQL's 65,535 bound parameters.
_ROWS_PER_INSERT = 1000


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


_EVENTS = EventRow.__table__  # type: ignore[attr-defined]
_ARTIFACTS = ArtifactRow.__table__  # type: ignore[attr-defined]
_EC = _EVENTS.c
_AC = _ARTIFACTS.c


# Statements built once: constructing a select() costs more than running it on SQLite.
_ANY_EVENT = select(_EC.seq).where(_EC.case_id == bindparam("case_id")).limit(1)
_INSERT_EVENTS = insert(_EVENTS)
_INSERT_ARTIFACTS = insert(_ARTIFACTS)
_ARTIFACT_EXISTS = select(_AC.digest).where(_AC.digest == bindparam("digest"))
_ARTIFACT_DATA = select(_AC.data).where(_AC.digest == bindparam("digest"))
_CASE_IDS = select(_EC.case_id).where(_EC.seq == 1).order_by(_EC.recorded_at, _EC.case_id)


_COLUMNS = (
    "case_id", "seq", "type", "version", "recorded_at", "occurred_at", "actor", "payload",
    "prev_hash", "hash",
)  # fmt: skip


def _row(event: Event) -> tuple[Any, ...]:
    """The event as a row for the driver, payload as its canonical JSON text."""
    return (
        event.case_id,
        event.seq,
        event.type,
        event.version,
        event.recorded_at,
        event.occurred_at,
        event.actor,
        canonical_json(event.payload),
        event.prev_hash,
        event.hash,
    )


def _row_dict(event: Event) -> dict[str, Any]:
    return dict(zip(_COLUMNS, _row(event), strict=True))


class _LoadedEvent:
    """An :class:`Event` under construction, for :meth:`SqlEventStore.load` only.

    A frozen dataclass assigns each field through ``object.__setattr__``, which makes building
    100,000 events cost more than decoding their JSON. This class has Event's exact slot
    layout but plain assignment; once filled, the object's class is switched to ``Event``
    (allowed because the layouts are identical), so callers get ordinary, frozen Events.
    """

    __slots__ = Event.__slots__

    def __init__(
        self,
        case_id: str,
        seq: int,
        type: str,
        version: int,
        recorded_at: str,
        occurred_at: str | None,
        actor: str,
        payload: dict[str, Any],
        prev_hash: str,
        hash: str,
    ) -> None:
        self.case_id = case_id
        self.seq = seq
        self.type = type
        self.version = version
        self.recorded_at = recorded_at
        self.occurred_at = occurred_at
        self.actor = actor
        self.payload = payload
        self.prev_hash = prev_hash
        self.hash = hash


if tuple(Event.__slots__) != _COLUMNS:  # a new Event field must be stored and loaded too
    raise RuntimeError(f"Event's fields {Event.__slots__} differ from the events table's")


class SqlEventStore:
    """An :class:`~casefile.store.base.EventStore` over a SQLAlchemy URL.

    ``sqlite:///path`` or ``postgresql+psycopg://user@host/db``; see
    :mod:`casefile.store.database` for how SQLite is tuned. Creates the tables if missing.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._engine = create_store_engine(url)
        self._where = display_url(url)
        self._sqlite = self._engine.dialect.name == "sqlite"
        self._local = threading.local()
        self._held: dict[threading.Thread, PoolProxiedConnection] = {}
        self._held_lock = threading.Lock()
        self._dbapi_error: type[Exception] = self._engine.dialect.loaded_dbapi.Error
        self._dbapi_integrity: type[Exception] = self._engine.dialect.loaded_dbapi.IntegrityError
        # The hot statements (append, head, load) run as plain SQL on the driver's cursor:
        # SQLAlchemy's execution machinery costs more per append than SQLite's own work.
        # Identical SQL on both databases; only the placeholder differs (qmark / format).
        p = "?" if self._engine.dialect.paramstyle == "qmark" else "%s"
        columns = "seq, type, version, recorded_at, occurred_at, actor, payload, prev_hash, hash"
        self._load_sql = f"SELECT {columns} FROM events WHERE case_id = {p} ORDER BY seq"
        self._load_upto_sql = (
            f"SELECT {columns} FROM events WHERE case_id = {p} AND seq <= {p} ORDER BY seq"
        )
        self._head_sql = (
            f"SELECT seq, hash FROM events WHERE case_id = {p} ORDER BY seq DESC LIMIT 1"
        )
        self._insert_prefix = (
            "INSERT INTO events (case_id, seq, type, version, recorded_at, occurred_at, actor, "
            "payload, prev_hash, hash) VALUES "
        )
        self._values_group = "(" + ", ".join([p] * len(_COLUMNS)) + ")"
        self._insert_cache: dict[int, str] = {}
        try:
            SQLModel.metadata.create_all(self._engine, tables=[_EVENTS, _ARTIFACTS])
        except SQLAlchemyError as error:
            # Another process may have created the tables at the same moment (PostgreSQL
            # reports that as a duplicate type); if they now exist, all is well.
            if not self._tables_exist():
                self._engine.dispose()
                raise self._error("open database", error) from error

    # -- plumbing -------------------------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for tests and maintenance tools, not for the service)."""
        return self._engine

    def _tables_exist(self) -> bool:
        try:
            with self._engine.connect() as conn:
                return bool(
                    self._engine.dialect.has_table(conn, "events")
                    and self._engine.dialect.has_table(conn, "artifacts")
                )
        except SQLAlchemyError:
            return False

    def _error(self, what: str, error: BaseException) -> StoreError:
        detail = getattr(error, "orig", None) or error
        first_line = (
            str(detail).strip().splitlines()[0] if str(detail).strip() else type(detail).__name__
        )
        if what == "open database":
            return StoreError(f"cannot open database {self._where}: {first_line}")
        return StoreError(f"cannot {what} in {self._where}: {first_line}")

    @contextmanager
    def _transaction(self, what: str, *, write: bool) -> Iterator[Connection]:
        """A SQLAlchemy transaction; database errors leave as :class:`StoreError`.

        Integrity errors pass through untranslated: the caller knows what they mean.
        """
        try:
            with self._engine.connect() as conn:
                if write:
                    conn.execution_options(**{WRITE_OPTION: True})
                with conn.begin():
                    yield conn
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

    # -- events ---------------------------------------------------------------------------

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        """Validate, chain and insert ``events`` after ``expected_seq``, all or nothing.

        Payloads are validated before anything touches the database (an invalid one raises
        :class:`~casefile.errors.InvalidEvent` and nothing is written). Then the head is read,
        checked against ``expected_seq``, and all new rows go in with ONE multi-row INSERT.

        On SQLite that happens inside BEGIN IMMEDIATE, so writers queue on the lock. On
        PostgreSQL the head read and the INSERT are two autocommit statements: the INSERT is
        atomic like any statement, and the ``(case_id, seq)`` key is what makes it safe. It
        succeeds only if nobody has stored seq ``expected_seq + 1``, and stored rows never
        change, so the head hash we chained to is still the head. Compared with one explicit
        transaction this halves the round trips and, more importantly, the time a winning
        writer holds the index entry that every losing writer waits on.
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
        try:
            with self._cursor(f"append to case {case_id}", write=True) as cursor:
                cursor.execute(self._head_sql, (case_id,))
                row = cursor.fetchone()
                seq, prev_hash = (row[0], row[1]) if row else (0, GENESIS_HASH)
                if seq != expected_seq:
                    raise ConcurrencyError(case_id, expected_seq)
                recorded_at = utc_now()
                sealed: list[Event] = []
                values: list[Any] = []
                for new in normalised:
                    seq += 1
                    event = seal(case_id, seq, prev_hash, new, recorded_at)
                    sealed.append(event)
                    values.extend(_row(event))
                    prev_hash = event.hash
                self._insert_rows(cursor, values)
        except (self._dbapi_integrity, SqlIntegrityError) as error:
            # The (case_id, seq) key refused us: another writer inserted that seq first.
            raise ConcurrencyError(case_id, expected_seq) from error
        return sealed

    def _insert_rows(self, cursor: Any, values: list[Any]) -> None:
        """Insert flattened rows: one statement, or (past the driver's parameter limits) one
        explicit transaction of several, so that an append stays all or nothing."""
        width = len(_COLUMNS) * _ROWS_PER_INSERT
        if len(values) <= width:
            cursor.execute(self._insert_sql(len(values) // len(_COLUMNS)), values)
            return
        explicit = not self._sqlite  # SQLite is already inside BEGIN IMMEDIATE
        if explicit:
            cursor.execute("BEGIN")
        try:
            for start in range(0, len(values), width):
                chunk = values[start : start + width]
                cursor.execute(self._insert_sql(len(chunk) // len(_COLUMNS)), chunk)
        except BaseException:
            if explicit:
                cursor.execute("ROLLBACK")
            raise
        if explicit:
            cursor.execute("COMMIT")

    def _insert_sql(self, rows: int) -> str:
        """INSERT of ``rows`` events in one statement (cached per row count)."""
        sql = self._insert_cache.get(rows)
        if sql is None:
            sql = self._insert_prefix + ", ".join([self._values_group] * rows)
            self._insert_cache[rows] = sql
        return sql

    def load(self, case_id: str, upto: int | None = None, *, strict: bool = False) -> list[Event]:
        """All events of a case in ``seq`` order (up to and including ``upto``).

        Raises :class:`~casefile.errors.IntegrityError` naming the seq whose stored payload is
        not JSON or not a JSON object. With ``strict``, also refuses a payload whose text is not
        exactly its canonical form (a byte changed without changing the decoded value), which
        verification wants and ordinary reads do not pay for.
        """
        sql, params = (
            (self._load_sql, (case_id,)) if upto is None else (self._load_upto_sql, (case_id, upto))
        )
        with self._cursor(f"read case {case_id}", write=False) as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        # Building 100,000 events allocates 200,000 tracked containers and nothing cyclic:
        # the cyclic collector would run hundreds of times and find nothing, which costs more
        # than a quarter of a large load. Pause it for the loop (as it was, if already off).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._decode(case_id, rows, strict)
        finally:
            if collecting:
                gc.enable()

    def _decode(self, case_id: str, rows: list[Any], strict: bool) -> list[Event]:
        scan = _SCAN_JSON
        events: list[Event] = []
        append = events.append
        for seq, type_, version, recorded_at, occurred_at, actor, text, prev_hash, hash_ in rows:
            try:
                payload, end = scan(text, 0)
            except (StopIteration, ValueError, TypeError):
                end = -1
            if end != len(text):
                raise IntegrityError(
                    f"case {case_id} seq {seq}: stored payload is not valid JSON", seq=seq
                )
            if payload.__class__ is not dict:
                # Valid JSON but not an object ([] or "x"): every view would fail later with a
                # TypeError far from the cause, so refuse it here, by seq, in every mode.
                raise IntegrityError(
                    f"case {case_id} seq {seq}: stored payload is not a JSON object", seq=seq
                )
            if strict and _canonical_or_none(payload) != text:
                raise IntegrityError(
                    f"case {case_id} seq {seq}: stored payload is not in canonical form",
                    seq=seq,
                )
            event = _LoadedEvent(
                case_id, seq, type_, version, recorded_at, occurred_at, actor, payload,
                prev_hash, hash_,
            )  # fmt: skip
            event.__class__ = Event  # type: ignore[assignment]
            append(event)  # type: ignore[arg-type]
        return events

    def load_strict(self, case_id: str) -> list[Event]:
        """``load(case_id, strict=True)``: what verification reads."""
        return self.load(case_id, strict=True)

    def head(self, case_id: str) -> tuple[int, str]:
        with self._cursor(f"read case {case_id}", write=False) as cursor:
            cursor.execute(self._head_sql, (case_id,))
            row = cursor.fetchone()
        return (int(row[0]), str(row[1])) if row else (0, GENESIS_HASH)

    def case_ids(self) -> list[str]:
        """Every case with at least one event, by the time its first event was recorded."""
        with self._transaction("list cases", write=False) as conn:
            result = conn.execute(_CASE_IDS)
            return [str(case_id) for (case_id,) in result]

    def count_events(self, case_id: str | None = None) -> int:
        """How many events are stored (in one case, or in all)."""
        query = select(func.count()).select_from(_EVENTS)
        if case_id is not None:
            query = query.where(_EC.case_id == case_id)
        with self._transaction("count events", write=False) as conn:
            return int(conn.execute(query).scalar_one())

    # -- artifacts ------------------------------------------------------------------------

    def put_artifact(self, data: bytes) -> str:
        digest = sha256_hex(data)
        try:
            with self._transaction("store an artifact", write=True) as conn:
                exists = conn.execute(_ARTIFACT_EXISTS, {"digest": digest}).first()
                if exists is None:
                    conn.execute(
                        _INSERT_ARTIFACTS,
                        {"digest": digest, "data": bytes(data), "size": len(data)},
                    )
        except SqlIntegrityError:
            pass  # stored by another writer meanwhile: same digest, same bytes
        return digest

    def get_artifact(self, digest: str) -> bytes:
        with self._transaction(f"read artifact {digest}", write=False) as conn:
            row = conn.execute(_ARTIFACT_DATA, {"digest": digest}).first()
        if row is None:
            raise KeyError(digest)
        return bytes(row[0])

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        wanted = sorted(set(digests))
        found: dict[str, bytes] = {}
        with self._transaction("read artifacts", write=False) as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                for digest, data in conn.execute(
                    select(_AC.digest, _AC.data).where(_AC.digest.in_(chunk))
                ):
                    found[str(digest)] = bytes(data)
        return found

    # -- import ---------------------------------------------------------------------------

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        """Insert a sealed stream and its artifacts in one transaction (see the Protocol).

        The stream is re-checked here (one case, chain intact, artifacts matching their
        digests) because a store must never hold a chain that does not verify, whoever calls.
        """
        case_id = check_importable(events, artifacts)
        try:
            with self._transaction(f"import case {case_id}", write=True) as conn:
                exists = conn.execute(_ANY_EVENT, {"case_id": case_id}).first()
                if exists is not None:
                    raise StoreError(
                        f"case {case_id} already exists in {self._where}; "
                        "import into another database or remove the case first"
                    )
                wanted = sorted(artifacts)
                present: set[str] = set()
                for start in range(0, len(wanted), _CHUNK):
                    chunk = wanted[start : start + _CHUNK]
                    present.update(
                        str(d)
                        for (d,) in conn.execute(select(_AC.digest).where(_AC.digest.in_(chunk)))
                    )
                missing = [
                    {"digest": d, "data": bytes(artifacts[d]), "size": len(artifacts[d])}
                    for d in wanted
                    if d not in present
                ]
                if missing:
                    conn.execute(_INSERT_ARTIFACTS, missing)
                conn.execute(_INSERT_EVENTS, [_row_dict(e) for e in events])
        except SqlIntegrityError as error:
            raise StoreError(
                f"case {case_id} was written by someone else during the import; nothing imported"
            ) from error

    def close(self) -> None:
        """Return every held connection and close the pool."""
        with self._held_lock:
            held, self._held = list(self._held.values()), {}
        for raw in held:
            self._release(raw)
        self._local = threading.local()
        self._engine.dispose()

    def __enter__(self) -> SqlEventStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _canonical_or_none(payload: Any) -> str | None:
    try:
        return canonical_json(payload)
    except ValueError:
        return None
