"""User mistakes on the command line: one clear line on stderr, a non-zero exit, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CLI, Outcome


def events(cli: CLI, case: str) -> list[dict[str, Any]]:
    result = cli("log", case, "--json")
    assert result.code == 0, result.err
    loaded: list[dict[str, Any]] = json.loads(result.out)
    return loaded


def usage_error(result: Outcome, *needles: str) -> None:
    """An argparse usage error: exit 2, its one error line names the problem, no traceback."""
    code, err = result.code, result.err
    assert code == 2, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if "error:" in line]
    for needle in needles:
        assert needle in line, line


@pytest.fixture
def case(cli: CLI) -> str:
    case_id: str = cli("new", "Arguments").out.strip()
    return case_id


# --- times ------------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_a_time_outside_what_can_be_stored_is_a_usage_error(
    cli: CLI, case: str, when: str, tmp_path: Path
) -> None:
    usage_error(cli("note", case, "too early or late", "--at", when), "--at", when)
    pasted = tmp_path / "out.txt"
    pasted.write_text("hello\n")
    usage_error(
        cli("probe", case, "command", "--paste", str(pasted), "--taken-at", when, "--", "echo"),
        "--taken-at",
        when,
    )
    assert len(events(cli, case)) == 1


# --- durations --------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--timeout", "--connect-timeout", "--window"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "soon"])
def test_durations_must_be_finite_and_positive(
    cli: CLI, case: str, option: str, value: str
) -> None:
    usage_error(cli("probe", case, "command", f"{option}={value}", "--", "true"), option, value)
    assert len(events(cli, case)) == 1


def test_a_positive_timeout_is_accepted(cli: CLI, case: str) -> None:
    result = cli("probe", case, "command", "--timeout", "0.5", "--", "printf", "ok")
    assert result.code == 0, result.err


# --- --to -------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["status", "replay"])
@pytest.mark.parametrize("value", ["0", "-1", "one"])
def test_to_must_be_a_seq_from_1(cli: CLI, case: str, command: str, value: str) -> None:
    result = cli(command, case, f"--to={value}")
    usage_error(result, "--to", value)
    assert "no case" not in result.err
    assert result.out == ""


def test_to_1_still_works(cli: CLI, case: str) -> None:
    assert cli("status", case, "--to", "1").code == 0
    replay = cli("replay", case, "--to", "1", "--json")
    assert [step["seq"] for step in json.loads(replay.out)["steps"]] == [1]


# --- `--` -------------------------------------------------------------------------------------


def test_double_dash_ends_the_options_of_other_commands(cli: CLI, case: str) -> None:
    result = cli("note", case, "--", "-5 °C reading")
    assert result.code == 0, result.err
    assert cli("note", case, "--actor", "bob", "--", "--actor").code == 0
    notes = [e for e in events(cli, case) if e["type"] == "note.added"]
    assert [n["payload"]["text"] for n in notes] == ["-5 °C reading", "--actor"]
    assert notes[1]["actor"] == "bob"


def test_double_dash_still_starts_the_command_of_probe(cli: CLI, case: str) -> None:
    db = os.environ["CASEFILE_DB"]
    for words in (
        ["probe", case, "command", "--note", "x", "--", "printf", "%s", "--note"],
        ["--db", db, "probe", case, "command", "--", "printf", "%s", "--note"],
        [f"--db={db}", "probe", case, "command", "--", "printf", "%s", "--note"],
    ):
        result = cli(*words)
        assert result.code == 0, result.err
        ran = [e for e in events(cli, case) if e["type"] == "probe.ran"][-1]
        assert ran["payload"]["argv"] == ["printf", "%s", "--note"]
    refused = cli("note", case, "text", "--", "printf")
    usage_error(refused, "unrecognized arguments")


# --- small CLI issues -------------------------------------------------------------------------


def test_a_repeated_likelihood_is_refused_naming_the_hypothesis(cli: CLI, case: str) -> None:
    cli("question", "add", case, "Why?", "--id", "q")
    cli("hypothesis", "add", case, "this", "--under", "q", "--prior", "0.5", "--id", "h")
    before = len(events(cli, case))
    result = cli(
        "evidence", "add", case,
        "--likelihood", "h=0.1", "--likelihood", "h=0.9",
        "--because", "contradictory",
    )  # fmt: skip
    assert result.code == 1
    assert result.err.count("\n") == 1 and "'h'" in result.err and "twice" in result.err
    assert len(events(cli, case)) == before


def test_paste_with_several_hosts_is_a_usage_error(cli: CLI, case: str, tmp_path: Path) -> None:
    pasted = tmp_path / "out.txt"
    pasted.write_text("hello\n")
    result = cli(
        "probe", case, "command", "--paste", str(pasted),
        "--host", "a", "--host", "b", "--", "echo", "hello",
    )  # fmt: skip
    usage_error(result, "--paste", "--host")
    assert len(events(cli, case)) == 1
    one = cli("probe", case, "command", "--paste", str(pasted), "--host", "a", "--", "echo")
    assert one.code == 0, one.err


def test_a_command_that_exits_non_zero_is_recorded_and_exits_1(cli: CLI, case: str) -> None:
    result = cli("probe", case, "command", "--", "sleep", "--bad-flag")
    assert result.code == 1
    assert result.err.count("\n") == 1 and "exited with status 1" in result.err
    (ran,) = [e for e in events(cli, case) if e["type"] == "probe.ran"]
    assert ran["payload"]["exit_status"] == 1


def test_a_fresh_question_has_entropy_0_00_not_minus_0_00(cli: CLI, case: str) -> None:
    cli("question", "add", case, "Anything yet?", "--id", "q")
    out = cli("status", case).out
    assert "entropy 0.00 bits" in out and "-0.00" not in out


def test_graph_format_choices_are_the_exporters() -> None:
    from casefile.app.graph_export import FORMATS
    from casefile.cli.reasoning_commands import GRAPH_FORMATS

    assert GRAPH_FORMATS == FORMATS


@pytest.mark.parametrize("bad", ["", "   ", "x\x1b[2Jy", "tab\there", "a" * 256])
def test_an_actor_import_would_refuse_is_refused_by_every_recording_command(
    cli: CLI, bad: str
) -> None:
    case = cli("new", "t").out.strip()
    before = cli("log", case, "--json").out
    result = cli("note", case, "text", "--actor", bad)
    assert result.code == 2 and "actor" in result.err
    assert cli("log", case, "--json").out == before


def test_the_service_refuses_such_an_actor_too() -> None:
    from casefile.app.who import Who
    from casefile.errors import DomainError

    with pytest.raises(DomainError, match="control characters"):
        Who("x\x07")
    assert Who("alice").actor == "alice"


def test_intake_answers_may_be_given_without_the_option(cli: CLI) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput").out.strip()
    given = cli("intake", case, "scaling=no", "nodes=single", "--answer", "after-upgrade=no")
    assert given.code == 0, given.err
    recorded = [e["payload"]["intake"] for e in events(cli, case) if "intake" in e["payload"]]
    assert {(i["id"], i["answer"]) for i in recorded} >= {
        ("scaling", "no"),
        ("nodes", "single"),
        ("after-upgrade", "no"),
    }
    usage_error(cli("intake", case, "scaling", "no"), "'scaling': use QUESTION=ANSWER")


def test_intake_answers_may_follow_an_option_and_one_question_takes_one_answer(
    cli: CLI,
) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput").out.strip()
    given = cli("intake", case, "scaling=no", "--no-known", "platform=vm")
    assert given.code == 0, given.err
    recorded = {e["payload"]["intake"]["id"] for e in events(cli, case) if "intake" in e["payload"]}
    assert {"scaling", "platform"} <= recorded
    twice = cli("intake", case, "nodes=single", "--answer", "nodes=multi")
    assert twice.code == 1
    assert "intake nodes: answered twice ('single' and 'multi')" in twice.err
