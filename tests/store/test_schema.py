"""The schema version: old databases migrate on open, intact; newer ones are refused.

``fixtures/main-cb464d6.sqlite`` was written by casefile at commit cb464d6 (before schema
versions existed), from a git worktree of that commit: ``casefile import`` of
``casefile/reference/glm5-pcie-pivot``, then a second case made with ``casefile new``, ``note`` and
``question add``; then ``journal_mode=DELETE`` and ``VACUUM``, so it is one self-contained
file. Tests open copies of it, never the file itself.
"""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, inspect, text

from casefile.domain.events import NewEvent
from casefile.errors import StoreError
from casefile.store.base import StoredSnapshot
from casefile.store.sql import SqlEventStore
from casefile.store.sql_schema import SCHEMA_VERSION
from casefile.store.sql_tables import ARTIFACTS, EVENTS, SNAPSHOTS
from casefile.store.verify import verify_stored_case

from .workers import open_at_once

FIXTURE = Path(__file__).parent / "fixtures" / "main-cb464d6.sqlite"

# What the fixture holds: each case's event count and head hash, oldest case first.
FIXTURE_CASES = {
    "glm5-pcie-pivot": (68, "36409887439e2211e4b97c9f0bf9a65723afa6b2301e6309f6b37660da987aa0"),
    "nccl-allreduce-slow": (5, "ee5be4ce2f63fea9f680f73371b22441976cc562cd31a364e7ccc750fb693dfe"),
}
FIXTURE_ARTIFACTS = 7

# The DDL casefile at cb464d6 ran on PostgreSQL (SQLModel's create_all of its two tables).
V0_POSTGRES_DDL = [
    """CREATE TABLE events (
        case_id VARCHAR NOT NULL,
        seq INTEGER NOT NULL,
        type VARCHAR NOT NULL,
        version INTEGER NOT NULL,
        recorded_at VARCHAR NOT NULL,
        occurred_at VARCHAR,
        actor VARCHAR NOT NULL,
        payload TEXT NOT NULL,
        prev_hash VARCHAR NOT NULL,
        hash VARCHAR NOT NULL,
        PRIMARY KEY (case_id, seq)
    )""",
    """CREATE TABLE artifacts (
        digest VARCHAR NOT NULL,
        data BYTEA NOT NULL,
        size INTEGER NOT NULL,
        PRIMARY KEY (digest)
    )""",
]


@pytest.fixture
def raw(sql_url: str) -> Iterator[Engine]:
    """An engine on the test's database that is not a store: it migrates nothing."""
    engine = create_engine(sql_url)
    try:
        yield engine
    finally:
        engine.dispose()


def versions(engine: Engine) -> list[int]:
    with engine.connect() as conn:
        return [int(v) for (v,) in conn.execute(text("SELECT version FROM casefile_schema"))]


def table_names(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())


def notify_triggers(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return [
            str(name)
            for (name,) in conn.execute(
                text("SELECT tgname FROM pg_trigger WHERE tgrelid = 'events'::regclass")
            )
        ]


def make_version_0(engine: Engine, *, with_fixture_rows: bool) -> None:
    """The tables as casefile at cb464d6 made them, optionally holding the fixture's rows."""
    if engine.dialect.name == "sqlite":
        raise AssertionError("a version-0 SQLite database is a copy of the fixture")
    with engine.begin() as conn:
        for statement in V0_POSTGRES_DDL:
            conn.exec_driver_sql(statement)
        if with_fixture_rows:
            source = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
            try:
                events = source.execute("SELECT * FROM events").fetchall()
                blobs = source.execute("SELECT digest, data, size FROM artifacts").fetchall()
            finally:
                source.close()
            columns = [c.name for c in EVENTS.columns]
            conn.execute(
                text(f"INSERT INTO events VALUES ({', '.join(':' + c for c in columns)})"),
                [dict(zip(columns, row, strict=True)) for row in events],
            )
            conn.execute(
                text("INSERT INTO artifacts VALUES (:digest, :data, :size)"),
                [{"digest": d, "data": data, "size": size} for d, data, size in blobs],
            )


def version_0_url(sql_url: str, raw: Engine, tmp_path: Path, *, with_rows: bool = True) -> str:
    """A version-0 database: a copy of the fixture (SQLite), or the old DDL (PostgreSQL)."""
    if raw.dialect.name == "sqlite":
        copy = tmp_path / "old.sqlite"
        shutil.copyfile(FIXTURE, copy)
        return f"sqlite:///{copy}"
    make_version_0(raw, with_fixture_rows=with_rows)
    return sql_url


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


# -- migrating --------------------------------------------------------------------------------


def test_a_version_0_database_migrates_intact(sql_url: str, raw: Engine, tmp_path: Path) -> None:
    url = version_0_url(sql_url, raw, tmp_path)
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


def test_a_new_database_starts_at_the_current_version(sql_url: str) -> None:
    with SqlEventStore(sql_url) as store:
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


def test_a_failed_step_leaves_the_database_at_its_version(
    sql_url: str, raw: Engine, tmp_path: Path
) -> None:
    url = version_0_url(sql_url, raw, tmp_path, with_rows=False)
    old = create_engine(url)
    try:
        with old.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE snapshots (something_else INTEGER)")
        with pytest.raises(StoreError, match=r"cannot open database .*snapshots.*already exists"):
            SqlEventStore(url)
        assert "casefile_schema" not in table_names(old)  # still version 0
        assert [c["name"] for c in inspect(old).get_columns("snapshots")] == ["something_else"]
        if old.dialect.name == "postgresql":
            assert notify_triggers(old) == []
        with old.begin() as conn:
            conn.exec_driver_sql("DROP TABLE snapshots")
    finally:
        old.dispose()
    with SqlEventStore(url) as store:
        assert versions(store.engine) == [1]


# -- refusing ---------------------------------------------------------------------------------


def test_a_newer_database_is_refused_in_one_line(sql_url: str, raw: Engine) -> None:
    SqlEventStore(sql_url).close()
    with raw.begin() as conn:
        conn.execute(text("UPDATE casefile_schema SET version = 3"))
    with pytest.raises(StoreError) as caught:
        SqlEventStore(sql_url)
    assert str(caught.value) == (
        "database schema version 3 is newer than this casefile supports (1); upgrade casefile"
    )
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
def test_processes_opening_at_once_migrate_once(
    sql_url: str, raw: Engine, tmp_path: Path, start: str
) -> None:
    url = sql_url if start == "empty" else version_0_url(sql_url, raw, tmp_path)
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(OPENERS)
    openers = [spawn.Process(target=open_at_once, args=(url, barrier)) for _ in range(OPENERS)]
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
