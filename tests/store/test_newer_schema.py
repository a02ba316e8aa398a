"""A database made by a newer casefile is refused by every command in one line, on SQLite and
on a real PostgreSQL, and is left exactly as it was."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from casefile.cli.main import main
from casefile.store.sql import SqlEventStore
from casefile.store.sql_schema import SCHEMA_VERSION


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def newer(request: pytest.FixtureRequest) -> str:
    url = str(request.getfixturevalue(f"{request.param}_url"))
    SqlEventStore(url).close()  # a current database, no case in it
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE casefile_schema SET version = :v"), {"v": SCHEMA_VERSION + 1})
    engine.dispose()
    return url


def version_of(url: str) -> list[int]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [int(v) for (v,) in conn.execute(text("SELECT version FROM casefile_schema"))]
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "command",
    [
        ["cases"],
        ["new", "A title"],
        ["log", "c1"],
        ["status", "c1"],
        ["rm", "c1", "--yes"],
        ["db", "upgrade"],
        ["db", "upgrade", "--sql"],
    ],
    ids=" ".join,
)
def test_every_command_refuses_a_newer_database_in_one_line(
    newer: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*command, "--db", newer])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert f"database schema version {SCHEMA_VERSION + 1} is newer than this casefile " in (
        captured.err
    )
    assert "upgrade casefile" in captured.err and "Traceback" not in captured.err
    assert version_of(newer) == [SCHEMA_VERSION + 1]  # untouched
