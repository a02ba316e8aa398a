"""Databases at an older schema, built as the casefile of the time built them, and how to
look at one without changing it (for tests/store/test_schema.py and test_schema_cli.py).

``fixtures/main-cb464d6.sqlite`` was written by casefile at commit cb464d6 (before schema
versions existed), from a git worktree of that commit: ``casefile import`` of
``casefile/reference/glm5-pcie-pivot``, then a second case made with ``casefile new``, ``note`` and
``question add``; then ``journal_mode=DELETE`` and ``VACUUM``, so it is one self-contained
file. Tests open copies of it, never the file itself.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, inspect, text

from casefile.store.sql_tables import EVENTS

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


def dump(url: str) -> dict[str, Any]:
    """Everything a command could change in the database: each table's definition and rows,
    and its triggers (read on a connection of its own, which changes nothing)."""
    engine = create_engine(url)
    try:
        inspector = inspect(engine)
        found: dict[str, Any] = {}
        with engine.connect() as conn:
            for table in sorted(inspector.get_table_names()):
                columns = [
                    (c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(table)
                ]
                rows = sorted(
                    tuple(map(repr, row)) for row in conn.execute(text(f"SELECT * FROM {table}"))
                )
                found[table] = (columns, rows)
            if engine.dialect.name == "postgresql":
                found["triggers"] = sorted(
                    str(name)
                    for (name,) in conn.execute(
                        text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
                    )
                )
            else:
                found["triggers"] = sorted(
                    str(name)
                    for (name,) in conn.execute(
                        text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
                    )
                )
        return found
    finally:
        engine.dispose()
