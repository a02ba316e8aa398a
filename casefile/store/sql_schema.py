"""The database's schema version, and the migrations that bring a database up to it.

A database records its version in ``casefile_schema`` (one row, ``version``). Versions:

0. ``events`` and ``artifacts``, no version table: every database made before versions were
   recorded (casefile up to commit cb464d6).
1. ``casefile_schema``; ``snapshots`` (cached folds, see :mod:`casefile.store.base`); on
   PostgreSQL, a trigger on ``events`` that sends ``NOTIFY casefile_events, '<case id>'`` once
   per case in every statement that inserts events (appends and imports alike), delivered when
   that transaction commits.

:func:`migrate` runs when a store opens a database. Each step from the version found to
:data:`SCHEMA_VERSION` is its own transaction, taken under a lock (``BEGIN IMMEDIATE`` on
SQLite, a transaction-level advisory lock on PostgreSQL) in which the version is read again:
two processes that open an old database at once cannot both run a step, because the second
waits for the first and then finds the step done. A database that is already current costs one
read and takes no lock. A database *newer* than this code is refused: an older casefile writing
to it could break what the newer one relies on.

Each version's DDL is written out here as it was at that version, not taken from the rows in
:mod:`casefile.store.sql_tables`: a migration must keep doing exactly what it did once a later
version changes a table. A test checks that a migrated database has the tables the rows
describe.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    text,
)

from casefile.errors import StoreError
from casefile.store.database import WRITE_OPTION

__all__ = ["NOTIFY_CHANNEL", "SCHEMA_VERSION", "migrate", "read_version"]

#: The PostgreSQL channel that every insert into ``events`` notifies; the payload is the case
#: id. A contract: listeners elsewhere rely on both.
NOTIFY_CHANNEL = "casefile_events"

#: The version this code creates, reads and writes.
SCHEMA_VERSION = 1

VERSION_TABLE = "casefile_schema"

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


def _create_v0(conn: Connection) -> None:
    # An empty database (no events table); checkfirst completes one left half-made by hand.
    _V0.create_all(conn, checkfirst=True)


def _to_v1(conn: Connection) -> None:
    # No checkfirst: a version-0 database has none of these, and one that somehow holds a
    # table of the same name must fail here (and stay at version 0), not be adopted unseen.
    _V1.create_all(conn, checkfirst=False)
    if conn.dialect.name == "postgresql":
        for statement in _PG_NOTIFY_V1:
            conn.exec_driver_sql(statement)


# _STEPS[n] takes a database from version n - 1 to n.
_STEPS: dict[int, Callable[[Connection], None]] = {1: _to_v1}
if sorted(_STEPS) != list(range(1, SCHEMA_VERSION + 1)):  # every version has exactly one step
    raise RuntimeError(f"migrations {sorted(_STEPS)} do not lead to version {SCHEMA_VERSION}")


# -- running them ----------------------------------------------------------------------------


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


def migrate(engine: Engine) -> int | None:
    """Bring the database to :data:`SCHEMA_VERSION` (see the module docstring).

    Returns the version found (``None``: the database was empty). Raises :class:`StoreError`
    for a database newer than this code; lets SQLAlchemy's errors through for the caller to
    translate, as it knows the database's name.
    """
    with engine.connect() as conn, conn.begin():
        found = read_version(conn)
    _refuse_newer(found)
    if found == SCHEMA_VERSION:
        return found
    while _step(engine):
        pass
    return found


def _step(engine: Engine) -> bool:
    """Run the next migration in a locked transaction; ``False`` once there is none to run."""
    with engine.connect() as conn:
        conn.execution_options(**{WRITE_OPTION: True})  # BEGIN IMMEDIATE on SQLite
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            # Read again under the lock: another process may have migrated meanwhile.
            version = read_version(conn)
            _refuse_newer(version)
            if version == SCHEMA_VERSION:
                return False
            if version is None:
                _create_v0(conn)
                return True
            _STEPS[version + 1](conn)
            conn.execute(text(f"DELETE FROM {VERSION_TABLE}"))
            conn.execute(
                text(f"INSERT INTO {VERSION_TABLE} (version) VALUES (:v)"), {"v": version + 1}
            )
    return True
