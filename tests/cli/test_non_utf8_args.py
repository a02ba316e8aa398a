"""Arguments whose bytes are not UTF-8 are a usage error, before anything is opened or run.

On POSIX such bytes reach Python as lone surrogates (byte 0xff becomes ``\\udcff``). They used
to get as far as the hash (``UnicodeEncodeError``, a traceback), and for ``probe`` only after the
command had run; ``--db`` failed while the URL was being shown. Now each is refused up front:
exit 2, one line, nothing appended, nothing run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import CLI

BAD = "caf\udce9"  # b"caf\xe9" (Latin-1 é) as Python receives it from argv


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow decode", "--id", "c1").code == 0
    assert cli("question", "add", "c1", "what limits decode?", "--id", "q").code == 0
    assert cli("hypothesis", "add", "c1", "PCIe-bound", "--under", "q", "--prior", "0.5").code == 0
    return "c1"


def events(cli: CLI) -> int:
    out = cli("log", "c1", "--json")
    assert out.code == 0
    return out.out.count('"seq":')


def refused_as_usage(cli: CLI, *args: str) -> None:
    outcome = cli(*args)
    assert outcome.code == 2, outcome
    assert outcome.err.count("\n") == 1 and "not valid UTF-8 (byte 0xe9)" in outcome.err
    assert "Traceback" not in outcome.err and outcome.out == ""


COMMANDS = {
    "--actor": ("note", "c1", "text", "--actor", BAD),
    "note text": ("note", "c1", BAD),
    "--symptom": ("new", "t", "--symptom", BAD),
    "--env": ("new", "t", "--env", f"k={BAD}"),
    "--outcome": ("act", "c1", "restarted", "--outcome", BAD),
    "--meaning": (
        "hypothesis",
        "add",
        "c1",
        "h",
        "--under",
        "q",
        "--prior",
        "0.2",
        "--meaning",
        BAD,
    ),
    "--because": ("evidence", "add", "c1", "--likelihood", "q.1=0.8", "--because", BAD),
    "--recommend": ("conclude", "c1", "done", "--recommend", BAD),
    "--lesson": ("conclude", "c1", "done", "--lesson", BAD),
}


@pytest.mark.parametrize("argv", list(COMMANDS.values()), ids=list(COMMANDS))
def test_a_recording_command_refuses_it_and_appends_nothing(
    cli: CLI, case: str, argv: tuple[str, ...]
) -> None:
    before = events(cli)
    refused_as_usage(cli, *argv)
    assert events(cli) == before


def test_db_is_refused_before_the_database_is_opened(cli: CLI, case: str, tmp_path: Path) -> None:
    refused_as_usage(cli, "note", "c1", "text", "--db", f"{tmp_path}/{BAD}.db")
    refused_as_usage(cli, "verify", "c1", "--db", f"{tmp_path}/{BAD}.db")
    refused_as_usage(cli, "import", str(tmp_path), "--db", f"{tmp_path}/{BAD}.db")
    assert not any(p.name.endswith(".db") and "caf" in p.name for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    "extra",
    [
        ("--note", BAD, "--", "touch", "{marker}"),
        ("--", "touch", "{marker}", BAD),
        ("--host", BAD, "--", "touch", "{marker}"),
        ("--db", f"/tmp/{BAD}.db", "--", "touch", "{marker}"),
    ],
    ids=["--note", "argv", "--host", "--db"],
)
def test_probe_refuses_it_before_running_anything(
    cli: CLI, case: str, tmp_path: Path, extra: tuple[str, ...]
) -> None:
    marker = tmp_path / "ran"
    before = events(cli)
    refused_as_usage(cli, "probe", "c1", "command", *(w.format(marker=marker) for w in extra))
    assert not marker.exists()
    assert events(cli) == before


def test_utf8_arguments_still_record(cli: CLI, case: str, tmp_path: Path) -> None:
    assert cli("note", "c1", "café ünïcödé", "--actor", "zoë").code == 0
    marker = tmp_path / "ran"
    assert cli("probe", "c1", "command", "--note", "é", "--", "touch", str(marker)).code == 0
    assert marker.exists()
