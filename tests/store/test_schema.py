"""The schema version: opening a database never migrates it; ``upgrade`` does, intact.

An empty database is given the current schema; an older one is used as it is when this casefile
can (and refused in one line naming ``casefile db upgrade`` when it cannot); a newer one is
refused. Only :func:`~casefile.store.sql_schema.upgrade` (``casefile db upgrade``) changes a
schema, and ``--sql`` prints the very statements it runs. The version-0 databases are built as
the casefile of the time built them (:mod:`.old_schema`).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url

from casefile.domain.events import NewEvent
from casefile.errors import StoreError
from casefile.store import sql_schema
from casefile.store.base import StoredSnapshot
from casefile.store.sql import SqlEventStore
from casefile.store.sql_schema import SCHEMA_VERSION, DatabaseSchema
from casefile.store.sql_tables import ARTIFACTS, EVENTS, SNAPSHOTS
from casefile.store.verify import verify_stored_case

from .old_schema import (
    FIXTURE,
    FIXTURE_ARTIFACTS,
    FIXTURE_CASES,
    dump,
    notify_triggers,
    table_names,
    version_0_url,
    versions,
)
from .workers import open_at_once, upgrade_at_once


@pytest.fixture
def raw(sql_url: str) -> Iterator[Engine]:
    """An engine on the test's database that is not a store: it migrates nothing."""
    engine = create_engine(sql_url)
    try:
        yield engine
    finally:
        engine.dispose()


def assert_tables_match_rows(engine: Engine) -> None:
    """The tables in the database are the ones the code's rows describe, column for column."""
    inspector = inspect(engine)
    for table in (EVENTS, ARTIFACTS, SNAPSHOTS):
        found = {c["name"]: c for c in inspector.get_columns(table.name)}
        assert list(found) == [c.name for c in table.columns], table.name
        for column in table.columns:
            reflected = found[column.name]
            assert reflected["nullable"] == column.nullable, (table.name, column.name)
            assert reflected["type"].compile(engine.dialect) == column.type.compile(
                engine.dialect
            ), (table.name, column.name)
        primary = inspector.get_pk_constraint(table.name)["constrained_columns"]
        assert primary == [c.name for c in table.primary_key], table.name
    version = inspector.get_columns("casefile_schema")
    assert [(c["name"], c["nullable"]) for c in version] == [("version", False)]


def assert_fixture_cases_intact(store: SqlEventStore) -> None:
    assert store.case_ids() == list(FIXTURE_CASES)
    blobs = 0
    for case_id, (count, head_hash) in FIXTURE_CASES.items():
        assert store.head(case_id) == (count, head_hash)
        assert [e.seq for e in store.load(case_id)] == list(range(1, count + 1))
        report = verify_stored_case(store, case_id)
        assert report.ok, report.message
        blobs += report.artifacts
    assert blobs == FIXTURE_ARTIFACTS
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM artifacts")).scalar_one() == blobs


def run_script(url: str, script: str) -> None:
    """Run an SQL script as a DBA would, with the database's own client library."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        lite = sqlite3.connect(str(parsed.database), isolation_level=None)
        try:
            lite.executescript(script)
        finally:
            lite.close()
        return
    libpq = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as pg:
        pg.execute(script.encode())


# -- the fixture itself -----------------------------------------------------------------------


def test_the_fixture_is_a_version_0_database_in_one_file() -> None:
    assert not FIXTURE.with_name(FIXTURE.name + "-wal").exists()
    assert not FIXTURE.with_name(FIXTURE.name + "-shm").exists()
    conn = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    try:
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables == {"events", "artifacts"}
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        counts = dict(conn.execute("SELECT case_id, COUNT(*) FROM events GROUP BY case_id"))
        assert counts == {case_id: count for case_id, (count, _) in FIXTURE_CASES.items()}
    finally:
        conn.close()


# -- opening never migrates -------------------------------------------------------------------


def test_a_version_0_database_is_used_as_it_is(sql_url: str, raw: Engine, tmp_path: Path) -> None:
    url = version_0_url(sql_url, raw, tmp_path)
    before = dump(url)
    with SqlEventStore(url) as store:
        assert store.schema_version == 0
        assert_fixture_cases_intact(store)
        # no snapshots table: nothing is cached, and nothing fails for it
        head = store.head("glm5-pcie-pivot")
        store.save_snapshot("glm5-pcie-pivot", head[0], head[1], "fold-v1", b"state")
        assert store.load_snapshot("glm5-pcie-pivot", "fold-v1") is None
        store.drop_snapshots()
    assert dump(url) == before
    with SqlEventStore(url) as store:  # writes work too, and still migrate nothing
        for case_id, (count, _) in FIXTURE_CASES.items():
            store.append(case_id, count, [NewEvent("note.added", {"text": "at version 0"})])
            assert verify_stored_case(store, case_id).ok
        store.remove_case("nccl-allreduce-slow")
    assert set(dump(url)) == {"events", "artifacts", "triggers"}


def test_an_older_database_this_casefile_cannot_use_is_refused_in_one_line(
    sql_url: str, raw: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = version_0_url(sql_url, raw, tmp_path)
    before = dump(url)
    monkeypatch.setattr(sql_schema, "COMPATIBLE_FROM", 1)  # as a version that changes a table
    with pytest.raises(StoreError) as caught:
        SqlEventStore(url)
    assert str(caught.value) == (
        "database schema version 0 is older than this casefile uses (1); run `casefile db upgrade`"
    )
    assert dump(url) == before
    with DatabaseSchema(url) as schema:
        assert schema.upgrade() == (0, 1)
    with SqlEventStore(url) as store:
        assert store.schema_version == 1
        assert_fixture_cases_intact(store)


def test_a_new_database_starts_at_the_current_version(sql_url: str) -> None:
    with SqlEventStore(sql_url) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert versions(store.engine) == [SCHEMA_VERSION]
        assert_tables_match_rows(store.engine)
        if store.dialect == "postgresql":
            assert notify_triggers(store.engine) == ["casefile_events_notify"]
        store.append("c1", 0, [NewEvent("case.opened", {"title": "t"})])
    for _ in range(2):
        with SqlEventStore(sql_url) as store:
            assert versions(store.engine) == [SCHEMA_VERSION]
            assert store.head("c1")[0] == 1


def test_sqlite_has_no_notify_trigger(sqlite_url: str) -> None:
    with SqlEventStore(sqlite_url) as store, store.engine.connect() as conn:
        triggers = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
        assert list(triggers) == []


# -- upgrading --------------------------------------------------------------------------------


def test_a_version_0_database_upgrades_intact(sql_url: str, raw: Engine, tmp_path: Path) -> None:
    url = version_0_url(sql_url, raw, tmp_path)
    with DatabaseSchema(url) as schema:
        assert schema.version() == 0
        assert schema.upgrade() == (0, SCHEMA_VERSION)
        assert schema.version() == SCHEMA_VERSION
        assert schema.upgrade() == (SCHEMA_VERSION, SCHEMA_VERSION)  # again: nothing to do
    with SqlEventStore(url) as store:
        assert versions(store.engine) == [SCHEMA_VERSION] == [1]
        assert table_names(store.engine) == {"events", "artifacts", "snapshots", "casefile_schema"}
        assert_fixture_cases_intact(store)
        assert_tables_match_rows(store.engine)
        if store.dialect == "postgresql":
            assert notify_triggers(store.engine) == ["casefile_events_notify"]
        # Appends continue both chains; snapshots have somewhere to go.
        for case_id, (count, _) in FIXTURE_CASES.items():
            store.append(case_id, count, [NewEvent("note.added", {"text": "after migration"})])
            assert verify_stored_case(store, case_id).ok
        head = store.head("glm5-pcie-pivot")
        store.save_snapshot("glm5-pcie-pivot", head[0], head[1], "fold-v1", b"state")
    with SqlEventStore(url) as store:  # opening again changes nothing
        assert versions(store.engine) == [1]
        assert store.head("glm5-pcie-pivot") == head
        assert store.load_snapshot("glm5-pcie-pivot", "fold-v1") == StoredSnapshot(
            head[0], head[1], "fold-v1", b"state"
        )


def test_upgrading_an_empty_database_creates_the_schema(sql_url: str) -> None:
    with DatabaseSchema(sql_url) as schema:
        assert schema.version() is None
        assert schema.upgrade() == (None, SCHEMA_VERSION)
    with SqlEventStore(sql_url) as store:
        assert_tables_match_rows(store.engine)


@pytest.mark.parametrize("start", ["empty", "version 0"])
def test_the_printed_statements_change_nothing_and_do_what_upgrade_does(
    sql_url: str, raw: Engine, tmp_path: Path, start: str
) -> None:
    url = sql_url if start == "empty" else version_0_url(sql_url, raw, tmp_path)
    before = dump(url)
    with DatabaseSchema(url) as schema:
        found, statements = schema.upgrade_statements()
    assert found == (None if start == "empty" else 0)
    assert dump(url) == before
    assert statements[0].startswith("BEGIN") and statements[-1] == "COMMIT"
    # A DBA runs them as a script, with the database's own client library.
    script = "".join(f"{statement};\n" for statement in statements)
    run_script(url, script)
    with DatabaseSchema(url) as schema:
        assert schema.upgrade_statements() == (SCHEMA_VERSION, [])
    engine = create_engine(url)
    try:
        assert versions(engine) == [SCHEMA_VERSION]
        assert_tables_match_rows(engine)
        if engine.dialect.name == "postgresql":
            assert notify_triggers(engine) == ["casefile_events_notify"]
    finally:
        engine.dispose()
    if start == "version 0":
        with SqlEventStore(url) as store:
            assert_fixture_cases_intact(store)


def test_a_failed_step_leaves_the_database_at_its_version(
    sql_url: str, raw: Engine, tmp_path: Path
) -> None:
    url = version_0_url(sql_url, raw, tmp_path, with_rows=False)
    old = create_engine(url)
    try:
        with old.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE snapshots (something_else INTEGER)")
        with (
            DatabaseSchema(url) as schema,
            pytest.raises(
                StoreError, match=r"cannot upgrade the schema in .*snapshots.*already exists"
            ),
        ):
            schema.upgrade()
        assert "casefile_schema" not in table_names(old)  # still version 0
        assert [c["name"] for c in inspect(old).get_columns("snapshots")] == ["something_else"]
        if old.dialect.name == "postgresql":
            assert notify_triggers(old) == []
        with old.begin() as conn:
            conn.exec_driver_sql("DROP TABLE snapshots")
    finally:
        old.dispose()
    with DatabaseSchema(url) as schema:
        assert schema.upgrade() == (0, 1)


# -- refusing ---------------------------------------------------------------------------------


def test_a_newer_database_is_refused_in_one_line(sql_url: str, raw: Engine) -> None:
    SqlEventStore(sql_url).close()
    with raw.begin() as conn:
        conn.execute(text("UPDATE casefile_schema SET version = 3"))
    newer = "database schema version 3 is newer than this casefile supports (1); upgrade casefile"
    with pytest.raises(StoreError) as caught:
        SqlEventStore(sql_url)
    assert str(caught.value) == newer
    with DatabaseSchema(sql_url) as schema:
        assert schema.version() == 3
        for action in (schema.upgrade, schema.upgrade_statements):
            with pytest.raises(StoreError) as caught:
                action()
            assert str(caught.value) == newer
    assert versions(raw) == [3]


@pytest.mark.parametrize("rows", [0, 2])
def test_a_version_table_without_one_row_is_refused(sql_url: str, raw: Engine, rows: int) -> None:
    SqlEventStore(sql_url).close()
    with raw.begin() as conn:
        conn.execute(text("DELETE FROM casefile_schema"))
        for _ in range(rows):
            conn.execute(text("INSERT INTO casefile_schema (version) VALUES (1)"))
    with pytest.raises(StoreError, match=f"casefile_schema holds {rows} rows instead of one"):
        SqlEventStore(sql_url)


# -- racing -----------------------------------------------------------------------------------

OPENERS = 4


@pytest.mark.parametrize("start", ["empty", "version 0"])
def test_processes_at_once_create_or_upgrade_once(
    sql_url: str, raw: Engine, tmp_path: Path, start: str
) -> None:
    """Stores opening an empty database at once create it once; upgrades of an old one at
    once run each step once."""
    url = sql_url if start == "empty" else version_0_url(sql_url, raw, tmp_path)
    target = open_at_once if start == "empty" else upgrade_at_once
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(OPENERS)
    openers = [spawn.Process(target=target, args=(url, barrier)) for _ in range(OPENERS)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join(timeout=180)
    assert [o.exitcode for o in openers] == [0] * OPENERS
    with SqlEventStore(url) as store:
        assert versions(store.engine) == [1]
        assert_tables_match_rows(store.engine)
        if store.dialect == "postgresql":
            assert notify_triggers(store.engine) == ["casefile_events_notify"]
        if start == "version 0":
            assert_fixture_cases_intact(store)
