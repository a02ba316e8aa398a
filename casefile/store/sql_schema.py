"""The database's schema version: what opening a database does with it, and the upgrade.

A database records its version in ``casefile_schema`` (one row, ``version``). Versions:

0. ``events`` and ``artifacts``, no version table: every database made before versions were
   recorded (casefile up to commit cb464d6).
1. ``casefile_schema``; ``snapshots`` (cached folds, see :mod:`casefile.store.base`); on
   PostgreSQL, a trigger on ``events`` that sends ``NOTIFY casefile_events, '<case id>'`` once
   per case in every statement that inserts events (appends and imports alike), delivered when
   that transaction commits.

**Only ``casefile db upgrade`` changes a database's schema** (:func:`upgrade`). Opening one
(:func:`open_schema`, which every store does) never migrates, whatever the command:

- an empty database is given the current schema: creating is not a migration, nobody's
  database changes under them;
- one at a version from :data:`COMPATIBLE_FROM` up to :data:`SCHEMA_VERSION` is read and
  written as it is. An older one lacks only what later versions add; at version 0 that is the
  snapshots (folds are not cached) and on PostgreSQL the trigger (a follower learns of appends
  by its poll instead);
- an older one that this code cannot work with is refused in one line naming
  ``casefile db upgrade`` (:data:`COMPATIBLE_FROM` is raised when a version changes what
  existing tables mean);
- a newer one is refused in one line: an older casefile writing to it could break what the
  newer one relies on.

Writes do not migrate either, not even on a SQLite file of one's own. On a shared PostgreSQL one
newer client would change the schema under the whole team, and lock out every teammate whose
casefile is older; a SQLite file can just as well be opened by two installed casefiles. So an
upgrade is a deliberate act, which says from which version to which, and ``--sql`` prints its
statements (:func:`upgrade_statements`) for a DBA to review or run instead.

Each step from one version to the next is its own transaction, taken under a lock
(``BEGIN IMMEDIATE`` on SQLite, a transaction-level advisory lock on PostgreSQL) in which the
version is read again: two processes that upgrade, or create, at once cannot both run a step,
because the second waits for the first and then finds the step done. Executing and printing use
the same statements.

Each version's DDL is written out here as it was at that version, not taken from the rows in
:mod:`casefile.store.sql_tables`: a migration must keep doing exactly what it did once a later
version changes a table. A test checks that a migrated database has the tables the rows
describe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import (
    Column,
    Connection,
    Dialect,
    Engine,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    text,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.schema import CreateTable

from casefile.errors import StoreError
from casefile.store.database import WRITE_OPTION
from casefile.store.sql_connections import SqlConnections

__all__ = [
    "COMPATIBLE_FROM",
    "NOTIFY_CHANNEL",
    "SCHEMA_VERSION",
    "SNAPSHOTS_FROM",
    "DatabaseSchema",
    "found_version",
    "open_schema",
    "read_version",
    "upgrade",
    "upgrade_statements",
]

#: The PostgreSQL channel that every insert into ``events`` notifies; the payload is the case
#: id. A contract: listeners elsewhere rely on both.
NOTIFY_CHANNEL = "casefile_events"

#: The version this code creates, and brings a database to with ``casefile db upgrade``.
SCHEMA_VERSION = 1

#: The oldest version this code reads and writes as it is (see the module docstring).
COMPATIBLE_FROM = 0

#: The version that added the ``snapshots`` table: a store on an older database caches nothing.
SNAPSHOTS_FROM = 1

VERSION_TABLE = "casefile_schema"

T = TypeVar("T")

# Any fixed bigint will do, as long as nothing else in the database uses it: b"casefile" read
# as a big-endian integer, top bit cleared to stay a positive bigint.
_MIGRATION_LOCK = int.from_bytes(b"casefile", "big") & 0x7FFF_FFFF_FFFF_FFFF

# -- the DDL of each version, frozen ---------------------------------------------------------

_V0 = MetaData()
Table(
    "events",
    _V0,
    Column("case_id", String, primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("type", String, nullable=False),
    Column("version", Integer, nullable=False),
    Column("recorded_at", String, nullable=False),
    Column("occurred_at", String, nullable=True),
    Column("actor", String, nullable=False),
    Column("payload", Text, nullable=False),
    Column("prev_hash", String, nullable=False),
    Column("hash", String, nullable=False),
)
Table(
    "artifacts",
    _V0,
    Column("digest", String, primary_key=True),
    Column("data", LargeBinary, nullable=False),
    Column("size", Integer, nullable=False),
)

_V1 = MetaData()
Table(VERSION_TABLE, _V1, Column("version", Integer, nullable=False))
Table(
    "snapshots",
    _V1,
    Column("case_id", String, primary_key=True),
    Column("engine", String, primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("head_hash", String, nullable=False),
    Column("data", LargeBinary, nullable=False),
)

# Statement-level with a transition table, so a 2,500-event append or an import notifies once
# per case, not once per row; pg_notify (not NOTIFY) because the payload is a value.
_PG_NOTIFY_V1 = (
    f"""
CREATE OR REPLACE FUNCTION casefile_notify_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{NOTIFY_CHANNEL}', inserted.case_id)
    FROM (SELECT DISTINCT case_id FROM new_rows) AS inserted;
    RETURN NULL;
END
$$
""",
    "DROP TRIGGER IF EXISTS casefile_events_notify ON events",
    """
CREATE TRIGGER casefile_events_notify
AFTER INSERT ON events
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION casefile_notify_events()
""",
)


def _ddl(metadata: MetaData, dialect: Dialect, *, if_not_exists: bool) -> list[str]:
    """CREATE TABLE statements for ``metadata``'s tables, as ``dialect`` spells them."""
    return [
        "\n".join(
            line.rstrip().replace("\t", "    ")
            for line in str(
                CreateTable(table, if_not_exists=if_not_exists).compile(dialect=dialect)
            )
            .strip()
            .splitlines()
        )
        for table in metadata.sorted_tables
    ]


def _create_v0(dialect: Dialect) -> list[str]:
    # An empty database (no events table); IF NOT EXISTS completes one left half-made by hand.
    return _ddl(_V0, dialect, if_not_exists=True)


def _to_v1(dialect: Dialect) -> list[str]:
    # No IF NOT EXISTS: a version-0 database has none of these, and one that somehow holds a
    # table of the same name must fail here (and stay at version 0), not be adopted unseen.
    statements = _ddl(_V1, dialect, if_not_exists=False)
    if dialect.name == "postgresql":
        statements.extend(statement.strip() for statement in _PG_NOTIFY_V1)
    return statements


# _STEPS[n] takes a database from version n - 1 to n.
_STEPS: dict[int, Callable[[Dialect], list[str]]] = {1: _to_v1}
if sorted(_STEPS) != list(range(1, SCHEMA_VERSION + 1)):  # every version has exactly one step
    raise RuntimeError(f"migrations {sorted(_STEPS)} do not lead to version {SCHEMA_VERSION}")


def _transaction(dialect: Dialect, version: int | None) -> tuple[int, list[str]]:
    """The next transaction from ``version`` (``None``: an empty database, which is given the
    whole current schema in one) and the version it reaches."""
    if version is None:
        statements = _create_v0(dialect)
        for step in range(1, SCHEMA_VERSION + 1):
            statements.extend(_STEPS[step](dialect))
        reached = SCHEMA_VERSION
    else:
        reached = version + 1
        statements = _STEPS[reached](dialect)
    return reached, [
        *statements,
        f"DELETE FROM {VERSION_TABLE}",
        f"INSERT INTO {VERSION_TABLE} (version) VALUES ({reached})",
    ]


def _lock(dialect: Dialect) -> list[str]:
    """What a step runs first: on PostgreSQL the migration lock (SQLite's is its BEGIN)."""
    if dialect.name == "postgresql":
        return [f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})"]
    return []


# -- what opening does, and the upgrade -------------------------------------------------------


def read_version(conn: Connection) -> int | None:
    """The database's schema version: ``None`` for an empty database, 0 for one made before
    versions were recorded. Raises :class:`StoreError` for a version table that is not one
    row."""
    dialect = conn.dialect
    if not dialect.has_table(conn, VERSION_TABLE):
        return 0 if dialect.has_table(conn, "events") else None
    rows = conn.execute(text(f"SELECT version FROM {VERSION_TABLE}")).all()
    if len(rows) != 1:
        raise StoreError(
            f"table {VERSION_TABLE} holds {len(rows)} rows instead of one; "
            "the database's schema version is unknown"
        )
    return int(rows[0][0])


def _refuse_newer(version: int | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"database schema version {version} is newer than this casefile supports "
            f"({SCHEMA_VERSION}); upgrade casefile"
        )


def _refuse_older(version: int) -> None:
    if version < COMPATIBLE_FROM:
        raise StoreError(
            f"database schema version {version} is older than this casefile uses "
            f"({SCHEMA_VERSION}); run `casefile db upgrade`"
        )


def found_version(engine: Engine) -> int | None:
    """The version of the database, read without a lock and without changing anything."""
    with engine.connect() as conn, conn.begin():
        return read_version(conn)


def open_schema(engine: Engine) -> int:
    """The schema version of a database a store opens (see the module docstring): an empty
    one is given the current schema; one this code cannot work with, older or newer, raises
    :class:`StoreError`. Never migrates. SQLAlchemy's errors pass through for the caller to
    translate, as it knows the database's name."""
    found = found_version(engine)
    if found is None:
        found = _step(engine, migrate=False)[0]  # created here, or by whoever got there first
    _refuse_newer(found)
    _refuse_older(found)
    return found


def upgrade(engine: Engine) -> tuple[int | None, int]:
    """Bring the database to :data:`SCHEMA_VERSION`, one locked transaction per step.

    Returns the version found (``None``: the database was empty) and the version now. Raises
    :class:`StoreError` for a database newer than this code; lets SQLAlchemy's errors through.
    """
    found = found_version(engine)
    _refuse_newer(found)
    while True:
        version, changed = _step(engine, migrate=True)
        if not changed:
            return found, version


def upgrade_statements(engine: Engine) -> tuple[int | None, list[str]]:
    """The version found, and the statements that :func:`upgrade` would run from it, each
    step a transaction with its lock, without a terminating semicolon; nothing is changed."""
    found = found_version(engine)
    _refuse_newer(found)
    dialect = engine.dialect
    begin = "BEGIN IMMEDIATE" if dialect.name == "sqlite" else "BEGIN"
    statements: list[str] = []
    version = found
    while version is None or version < SCHEMA_VERSION:
        version, step = _transaction(dialect, version)
        statements += [begin, *_lock(dialect), *step, "COMMIT"]
    return found, statements


def _step(engine: Engine, *, migrate: bool) -> tuple[int, bool]:
    """In one locked transaction, read the version again and take the database one
    transaction further: an empty one is given the current schema, an older one (only when
    ``migrate``) its next step. Returns the version now and whether anything was run."""
    with engine.connect() as conn:
        conn.execution_options(**{WRITE_OPTION: True})  # BEGIN IMMEDIATE on SQLite
        with conn.begin():
            for statement in _lock(conn.dialect):
                conn.exec_driver_sql(statement)
            # Read again under the lock: another process may have done this meanwhile.
            version = read_version(conn)
            _refuse_newer(version)
            if version is not None and (version == SCHEMA_VERSION or not migrate):
                return version, False
            reached, statements = _transaction(conn.dialect, version)
            for statement in statements:
                conn.exec_driver_sql(statement)
    return reached, True


class DatabaseSchema(SqlConnections):
    """The schema of the database at a URL, for ``casefile db``: the one way to change it.

    Opening one changes nothing (not even an empty database, which :meth:`upgrade` gives the
    current schema). Database errors leave as :class:`StoreError` naming the database.
    """

    #: the version this casefile creates and upgrades to
    current = SCHEMA_VERSION

    def __enter__(self) -> DatabaseSchema:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def where(self) -> str:
        """The database, as a message may name it (never with its password)."""
        return self._where

    def version(self) -> int | None:
        """The database's version (``None``: an empty database)."""
        return self._run("read the schema version", found_version)

    def upgrade(self) -> tuple[int | None, int]:
        """Upgrade the database (see :func:`upgrade`): the version found, the version now."""
        return self._run("upgrade the schema", upgrade)

    def upgrade_statements(self) -> tuple[int | None, list[str]]:
        """The version found and what :meth:`upgrade` would run (see
        :func:`upgrade_statements`); nothing is changed."""
        return self._run("read the schema version", upgrade_statements)

    def _run(self, what: str, action: Callable[[Engine], T]) -> T:
        try:
            return action(self._engine)
        except (SQLAlchemyError, self._dbapi_error) as error:
            raise self._error(what, error) from error
