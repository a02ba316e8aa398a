"""``casefile verify`` says what it proves, prints the head in full, and checks ``--head``.

Also: a hostile ``events.jsonl`` (a line nested thousands deep) is one line of error from every
command that reads it, where it used to be a ``RecursionError`` traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import CLI

HEAD = re.compile(r"^head: ([0-9]+@[0-9a-f]{64})$", re.MULTILINE)


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow decode", "--id", "c1").code == 0
    for n in range(3):
        assert cli("note", "c1", f"note {n}").code == 0
    return "c1"


def head(cli: CLI, *args: str) -> str:
    outcome = cli("verify", *args)
    assert outcome.code == 0, outcome
    found = HEAD.search(outcome.out)
    assert found is not None, outcome.out
    return found.group(1)


def test_verify_prints_the_full_head_and_what_it_guarantees(cli: CLI, case: str) -> None:
    outcome = cli("verify", "c1")
    assert outcome.code == 0
    log = json.loads(cli("log", "c1", "--json").out)
    assert head(cli, "c1") == f"4@{log[-1]['hash']}"
    assert "verified: every event from seq 1 to the head" in outcome.out
    assert "verify --head SEQ@HASH" in outcome.out


def test_verify_head_passes_for_a_head_the_chain_holds(cli: CLI, case: str) -> None:
    kept = head(cli, "c1")
    assert cli("note", "c1", "later").code == 0
    outcome = cli("verify", "c1", "--head", kept)
    assert outcome.code == 0
    assert "note: the chain holds the head given with --head" in outcome.out
    assert "1 event after it" in outcome.out


def test_verify_head_fails_for_a_directory_cut_short(cli: CLI, case: str, tmp_path: Path) -> None:
    assert cli("export", "c1", str(tmp_path / "x")).code == 0
    kept = head(cli, str(tmp_path / "x"))
    lines = (tmp_path / "x" / "events.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "x" / "events.jsonl").write_bytes(b"".join(lines[:-1]))
    (tmp_path / "x" / "events.head").unlink()  # the head file too: only --head can tell now
    alone = cli("verify", str(tmp_path / "x"))
    assert alone.code == 0 and "note: no events.head" in alone.out
    outcome = cli("verify", str(tmp_path / "x"), "--head", kept)
    assert outcome.code == 1 and outcome.err.count("\n") == 1
    assert "the chain ends at seq 3 but --head records seq 4" in outcome.err


def test_a_cut_directory_with_its_head_file_fails_without_help(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    assert cli("export", "c1", str(tmp_path / "x")).code == 0
    lines = (tmp_path / "x" / "events.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "x" / "events.jsonl").write_bytes(b"".join(lines[:-1]))
    outcome = cli("verify", str(tmp_path / "x"))
    assert outcome.code == 1 and "events.head records seq 4" in outcome.err
    refused = cli("import", str(tmp_path / "x"), "--db", f"sqlite:///{tmp_path / 'o.db'}")
    assert refused.code == 1 and refused.err.count("\n") == 1


@pytest.mark.parametrize("given", ["4", "4@abc", "x@" + "a" * 64, "0@" + "a" * 64, "@"])
def test_a_malformed_head_is_a_usage_error(cli: CLI, case: str, given: str) -> None:
    outcome = cli("verify", "c1", "--head", given)
    assert outcome.code == 2 and "is not a head" in outcome.err


def test_verify_json(cli: CLI, case: str) -> None:
    outcome = cli("verify", "c1", "--json")
    assert outcome.code == 0
    shape = json.loads(outcome.out)
    assert shape["ok"] is True and shape["case_id"] == "c1" and shape["events"] == 4
    assert shape["head"] == head(cli, "c1") and shape["failed_seq"] is None
    assert shape["guarantee"].startswith("every event from seq 1")
    wrong = "4@" + "0" * 64
    failed = cli("verify", "c1", "--json", "--head", wrong)
    assert failed.code == 1
    shape = json.loads(failed.out)
    assert shape["ok"] is False and shape["failed_seq"] == 4
    assert "the chain was rewritten" in shape["message"]


def test_a_deeply_nested_line_is_one_line_from_every_command(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    directory = tmp_path / "x"
    assert cli("export", "c1", str(directory)).code == 0
    with (directory / "events.jsonl").open("a") as handle:
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
    other = f"sqlite:///{tmp_path / 'other.db'}"
    for argv in (
        ("import", str(directory), "--db", other),
        ("verify", str(directory)),
        ("status", str(directory)),
        ("note", str(directory), "more"),
        ("log", str(directory)),
        ("export", "c1", str(directory)),
    ):
        outcome = cli(*argv)
        assert outcome.code == 1, (argv, outcome)
        assert outcome.err.count("\n") == 1 and "Traceback" not in outcome.err, argv
        assert argv[0] == "export" or "events.jsonl:5: bad JSON: nested more" in outcome.err
