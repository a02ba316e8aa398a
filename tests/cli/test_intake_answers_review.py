"""`casefile intake` reads a typed answer one way wherever it is typed: the prompt at a
terminal, ``--answer`` and ``--env`` all take the playbook's synonyms ("1", "single", "GeForce")
and the counts and descriptions its ``--env`` patterns read ("3" GPUs, "bare metal"), and say
which answer other words were taken as. Answers given with ``--list`` are refused, not dropped;
answers in force that contradict each other (nodes = multi with gpu-count = one) are named."""

from __future__ import annotations

import io
import json

import pytest

from tests.cli.conftest import CLI


class Terminal(io.StringIO):
    """Lines typed at a terminal: ``casefile intake CASE`` asks only when stdin is one."""

    def isatty(self) -> bool:
        return True


def answers_in_force(cli: CLI, case: str) -> dict[str, str]:
    listed = json.loads(cli("intake", case, "--list", "--json").out)
    return {item["id"]: item["answer"] for item in listed if item["answer"] is not None}


def new_case(cli: CLI, *env: str) -> str:
    args = [arg for pair in env for arg in ("--env", pair)]
    made = cli("new", "slow", "--playbook", "gpu-throughput@3", *args)
    assert made.code == 0, made.err
    return made.out.strip()


@pytest.mark.parametrize(("typed", "answer"), [("1", "one"), ("single", "one"), ("8", "several")])
def test_the_prompt_takes_the_playbooks_own_synonyms(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, typed: str, answer: str
) -> None:
    """Each once refused as "'1' is not one of one / several" at the prompt, while
    ``--answer gpu-count=1`` took it."""
    case = new_case(cli)
    # gpu-count, [scaling, scope], degrades, upgrade, platform, [nvlink], gpu-class, nodes,
    # workload: those in brackets asked only of several GPUs
    if answer == "several":
        replies = [typed, "", "", "", "", "bare metal", "", "GeForce", "", "train"]
    else:
        replies = [typed, "", "", "bare metal", "GeForce", "", "train"]
    monkeypatch.setattr("sys.stdin", Terminal("\n".join(replies) + "\n"))
    asked = cli("intake", case, "--no-known")
    assert asked.code == 0, asked.err
    assert "is not one of" not in asked.out
    assert f"'{typed}' taken as {answer}" in asked.out
    assert "'bare metal' taken as bare-metal" in asked.out
    assert "'GeForce' taken as consumer" in asked.out
    assert "'train' taken as training" in asked.out
    held = answers_in_force(cli, case)
    assert held["gpu-count"] == answer and held["platform"] == "bare-metal"
    assert held["gpu-class"] == "consumer" and held["workload"] == "training"


def test_the_prompt_still_refuses_what_reads_as_no_answer(
    cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = new_case(cli)
    monkeypatch.setattr("sys.stdin", Terminal("a few\n1\n"))
    asked = cli("intake", case, "--no-known")
    assert "'a few' is not one of one / several; empty to skip" in asked.out
    assert answers_in_force(cli, case)["gpu-count"] == "one"


@pytest.mark.parametrize(
    ("question", "typed", "answer"),
    [
        ("gpu-count", "3", "several"),
        ("nodes", "2", "multi"),
        ("platform", "bare metal", "bare-metal"),
        ("Gpu_Count", "16 (two nodes)", "several"),
    ],
)
def test_an_answer_reads_as_the_same_env_entry_does(
    cli: CLI, question: str, typed: str, answer: str
) -> None:
    """``--env gpu-count=3`` answered several while ``intake C gpu-count=3`` was refused."""
    qid = question.lower().replace("_", "-")
    by_env = new_case(cli, f"{question}={typed}")
    assert answers_in_force(cli, by_env)[qid] == answer
    case = new_case(cli)
    given = cli("intake", case, f"{question}={typed}", "--no-known")
    assert given.code == 0, given.err
    assert f"{qid}: {answer} (given as {typed!r}) → evidence " in given.out
    assert answers_in_force(cli, case)[qid] == answer
    again = new_case(cli)
    shown = json.loads(cli("intake", again, "--answer", f"{question}={typed}", "--json").out)
    row = next(r for r in shown["recorded"] if r["question"] == qid)
    assert row["answer"] == answer and row["given_as"] == typed


def test_an_answer_in_the_answers_own_words_is_not_said_twice(cli: CLI) -> None:
    case = new_case(cli)
    given = cli("intake", case, "platform=VM", "--no-known")
    assert "platform: vm → evidence " in given.out and "given as" not in given.out


def test_answers_with_list_are_refused_not_dropped(cli: CLI) -> None:
    case = new_case(cli)
    before = cli("log", case, "--json").out
    for args in (["--answer", "workload=train"], ["workload=train"]):
        listed = cli("intake", case, *args, "--list")
        assert listed.code != 0 and listed.out == ""
        assert "--list shows the questions and records nothing" in listed.err
        assert len(listed.err.strip().splitlines()) == 1
    assert cli("log", case, "--json").out == before


def test_answers_that_contradict_each_other_are_named(cli: CLI) -> None:
    """gpu-count = one from --env, then nodes = multi: both stand (which is wrong is the
    person's to say), but the command says they disagree, by the playbook's implied_by."""
    case = new_case(cli, "gpu-count=1")
    given = cli("intake", case, "nodes=multi")
    assert given.code == 0, given.err
    assert (
        "the answers disagree: gpu-count = one, but nodes = multi means gpu-count = several "
        "(a job on several nodes uses several GPUs)"
    ) in given.out
    assert given.out.count("the answers disagree") == 1  # one contradiction, said once
    shown = json.loads(cli("intake", case, "--json").out)
    assert shown["disagreements"] == [
        {
            "question": "gpu-count",
            "answer": "one",
            "premise": {"question": "nodes", "answer": "multi"},
            "implies": "several",
            "why": "a job on several nodes uses several GPUs",
        }
    ]
    settled = cli("intake", case, "gpu-count=several", "--json")
    assert json.loads(settled.out)["disagreements"] == []


@pytest.mark.parametrize(
    "answer", ["gpu-count=1 node, 8 GPUs", "nodes=8 GPUs on one node", "nodes=2 GPUs"]
)
def test_a_number_that_counts_something_else_answers_nothing(cli: CLI, answer: str) -> None:
    """A count is read from a typed answer only where it is the count alone: "1 node, 8
    GPUs" was read as one GPU, and "8 GPUs on one node" as several nodes."""
    case = new_case(cli)
    refused = cli("intake", case, answer)
    assert refused.code == 1 and "is not an answer" in refused.err, refused.err
    assert answers_in_force(cli, case) == {}
