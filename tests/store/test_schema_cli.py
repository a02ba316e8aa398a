"""No command but ``casefile db upgrade`` changes a database's schema (issue 23, defect 12).

On SQLite and a real PostgreSQL: a database at version 0, built as the casefile of the time built
it (:mod:`.old_schema`), is read and written by every other command exactly as it is (its
schema and, for read commands, every row compared before and after); where this casefile cannot
use it, the command says so in one line; ``db upgrade`` upgrades it and says from which version
to which; ``--sql`` prints the statements and changes nothing. An empty database is given the
current schema without a word.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from casefile.cli.main import main
from casefile.store import sql_schema
from casefile.store.database import display_url
from casefile.store.sql_schema import SCHEMA_VERSION

from .old_schema import FIXTURE_CASES, dump, version_0_url, versions

CASE = "glm5-pcie-pivot"
READS = [["cases"], ["log", CASE], ["status", CASE], ["verify", CASE], ["db", "version"]]
OLDER = (
    "casefile: error: database schema version 0 is older than this casefile uses (1); "
    "run `casefile db upgrade`\n"
)


@pytest.fixture
def old(sql_url: str, tmp_path: Path) -> Iterator[str]:
    """A version-0 database holding the fixture's two cases."""
    raw = create_engine(sql_url)
    try:
        yield version_0_url(sql_url, raw, tmp_path)
    finally:
        raw.dispose()


def run(capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, str, str]:
    code = main(list(words))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", READS, ids=" ".join)
def test_read_commands_leave_an_older_database_as_it_is(
    old: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = dump(old)
    code, out, err = run(capsys, *command, "--db", old)
    assert (code, err) == (0, "")
    assert out
    assert dump(old) == before


def test_write_commands_use_an_older_database_without_upgrading_it(
    old: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = set(dump(old))
    assert run(capsys, "note", CASE, "written at version 0", "--db", old)[0] == 0
    code, out, _ = run(capsys, "new", "A new case", "--id", "fresh", "--db", old)
    assert (code, out) == (0, "fresh\n")
    assert run(capsys, "rm", "nccl-allreduce-slow", "--yes", "--db", old)[0] == 0
    assert set(dump(old)) == tables  # still version 0: no table added
    code, out, _ = run(capsys, "verify", CASE, "--db", old)
    assert code == 0 and f"head: {FIXTURE_CASES[CASE][0] + 1}@" in out


@pytest.mark.parametrize("command", [*READS[:-1], ["note", CASE, "x"]], ids=" ".join)
def test_an_older_database_this_casefile_cannot_use_gets_one_line(
    old: str,
    command: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sql_schema, "COMPATIBLE_FROM", 1)  # as a version that changes a table
    before = dump(old)
    assert run(capsys, *command, "--db", old) == (1, "", OLDER)
    assert dump(old) == before


def test_db_upgrade_upgrades_and_says_from_which_version_to_which(
    old: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql_schema, "COMPATIBLE_FROM", 1)
    where = display_url(old)
    assert run(capsys, "db", "version", "--db", old) == (
        0,
        f"{where}: schema version 0; this casefile uses 1 (`casefile db upgrade` upgrades it)\n",
        "",
    )
    assert run(capsys, "db", "upgrade", "--db", old) == (
        0,
        f"upgraded {where} from schema version 0 to {SCHEMA_VERSION}\n",
        "",
    )
    assert versions_of(old) == [SCHEMA_VERSION]
    code, out, _ = run(capsys, "verify", CASE, "--db", old)
    assert code == 0 and f"head: {FIXTURE_CASES[CASE][0]}@{FIXTURE_CASES[CASE][1]}" in out
    assert run(capsys, "db", "upgrade", "--db", old) == (
        0,
        f"{where} is at schema version 1 already: nothing to do\n",
        "",
    )
    assert run(capsys, "db", "version", "--db", old)[1] == (
        f"{where}: schema version 1, the one this casefile uses\n"
    )


def test_db_upgrade_sql_prints_the_statements_and_changes_nothing(
    old: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = dump(old)
    code, out, err = run(capsys, "db", "upgrade", "--sql", "--db", old)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"-- casefile db upgrade of {display_url(old)}: from schema version 0 to 1"
    assert lines[1] in ("BEGIN;", "BEGIN IMMEDIATE;")
    assert "CREATE TABLE snapshots (" in lines
    assert lines[-2:] == ["INSERT INTO casefile_schema (version) VALUES (1);", "COMMIT;"]
    assert dump(old) == before


@pytest.mark.parametrize("command", [["cases"], ["new", "First case"]], ids=" ".join)
def test_an_empty_database_gets_the_current_schema_without_a_word(
    sql_url: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *command, "--db", sql_url)
    assert (code, err) == (0, "")
    assert versions_of(sql_url) == [SCHEMA_VERSION]


def versions_of(url: str) -> list[int]:
    engine = create_engine(url)
    try:
        return versions(engine)
    finally:
        engine.dispose()
