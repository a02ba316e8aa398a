"""Intake you can correct: a replaced answer says what it replaced, an ``--env`` answer shows
as that answer with its source, and ``--env`` values can answer by pattern."""

from __future__ import annotations

import json

import pytest

from casefile.domain.playbook import load_playbook
from casefile.errors import RuleError
from casefile.plugins import Registry
from tests.cli.conftest import CLI, builtin_probes
from tests.triage.test_experiments import log


def _seq_of(cli: CLI, case: str, evidence_id: str) -> int:
    return next(
        int(e["seq"])  # type: ignore[call-overload]
        for e in log(cli, case)
        if e["type"] == "evidence.assessed" and e["payload"]["evidence_id"] == evidence_id  # type: ignore[index]
    )


def test_a_replaced_answer_says_what_it_replaced(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "r1", "--playbook", "gpu-throughput@2").code == 0
    first = cli("intake", "r1", "--answer", "gpu-class=consumer", "--no-known")
    assert first.code == 0 and "gpu-class: consumer → evidence e1" in first.out
    seq = _seq_of(cli, "r1", "e1")
    second = cli("intake", "r1", "--answer", "gpu-class=datacenter", "--no-known")
    assert second.code == 0, second.err
    assert f"gpu-class: datacenter (was consumer, seq {seq}) → evidence e2" in second.out
    third = cli("intake", "r1", "--answer", "gpu-class=consumer", "--no-known", "--json")
    (row,) = json.loads(third.out)["recorded"]
    assert row["replaces"] == {"answer": "datacenter", "seq": _seq_of(cli, "r1", "e2")}


def test_an_env_answer_is_listed_as_that_answer_with_its_source(cli: CLI) -> None:
    made = cli(
        "new", "slow", "--id", "r2", "--playbook", "gpu-throughput@2", "--env", "gpu-class=consumer"
    )
    assert made.code == 0, made.err
    listed = cli("intake", "r2", "--list")
    line = next(x for x in listed.out.splitlines() if x.startswith("gpu-class"))
    assert "consumer (answered by --env gpu-class=consumer" in line
    assert "known:" not in line
    assert cli("intake", "r2").code == 0
    line = next(x for x in cli("intake", "r2", "--list").out.splitlines() if x.startswith("gpu-"))
    assert "consumer (answered by --env gpu-class=consumer)" in line
    rows = {row["id"]: row for row in json.loads(cli("intake", "r2", "--list", "--json").out)}
    assert rows["gpu-class"]["answer"] == "consumer"
    assert rows["gpu-class"]["source"] == "environment"
    assert rows["gpu-class"]["basis"] == "--env gpu-class=consumer"


SMALL = """
[playbook]
id = "tiny"
version = 1
[question]
id = "q"
text = "Why slow?"
[[hypothesis]]
id = "no-p2p"
text = "Consumer cards without P2P"
prior = 0.3
[[hypothesis]]
id = "other"
text = "Something datacenter cards do"
prior = 0.3
[[intake]]
id = "gpu-class"
version = 1
text = "Consumer or datacenter GPUs?"
answers = ["consumer", "datacenter"]
environment = ["gpu-class"]
environment_matches = [
  { key = "gpus", matches = 'GeForce|RTX [2-5]0[5-9]0', answer = "consumer" },
  { key = "gpus", matches = 'A100|H100', answer = "datacenter" },
]
rationale = "r"
[intake.likelihoods]
no-p2p = { consumer = 0.9, datacenter = 0.1 }
otherwise = { consumer = 0.3, datacenter = 0.7 }
"""


def tiny_registry() -> Registry:
    return Registry.of(probes=builtin_probes(), playbooks=[load_playbook(SMALL, "tiny.toml")])


@pytest.mark.parametrize("cli_registry", [tiny_registry()])
def test_an_env_value_answers_by_pattern(cli: CLI) -> None:
    made = cli(
        "new", "slow", "--id", "t1", "--playbook", "tiny", "--env", "gpus=2x GeForce RTX 3090"
    )
    assert made.code == 0, made.err
    listed = {r["id"]: r for r in json.loads(cli("intake", "t1", "--list", "--json").out)}
    item = listed["gpu-class"]
    said = item["known"] or {"answer": item["answer"], "basis": item["basis"]}
    assert said["answer"] == "consumer"
    assert said["basis"] == "--env gpus=2x GeForce RTX 3090"
    assert cli("intake", "t1").code == 0
    (answer,) = [
        e["payload"]
        for e in log(cli, "t1")
        if e["type"] == "evidence.assessed" and e["payload"].get("intake")  # type: ignore[union-attr]
    ]
    assert answer["intake"] == {  # type: ignore[index]
        "id": "gpu-class",
        "answer": "consumer",
        "source": "environment",
        "basis": "--env gpus=2x GeForce RTX 3090",
    }
    shown = cli("playbook", "show", "tiny").out
    assert "    answered by --env gpus ~ 'GeForce|RTX [2-5]0[5-9]0' → consumer" in shown


@pytest.mark.parametrize("cli_registry", [tiny_registry()])
def test_an_env_value_naming_gpus_of_both_classes_answers_neither(cli: CLI) -> None:
    """Which machine's GPUs are the slow job's is the question's to ask: before, the first
    pattern that matched answered it (consumer, from the maintainer's repro machine)."""
    gpus = "gpus=2x A100 in the slow box; the repro machine had 2x GeForce RTX 3090"
    assert cli("new", "slow", "--id", "t3", "--playbook", "tiny", "--env", gpus).code == 0
    listed = {r["id"]: r for r in json.loads(cli("intake", "t3", "--list", "--json").out)}
    assert listed["gpu-class"]["known"] is None and listed["gpu-class"]["answer"] is None
    one_class = ["--env", "gpus=1x H100; the repro machine had an A100"]
    assert cli("new", "slow", "--id", "t4", "--playbook", "tiny", *one_class).code == 0
    listed = {r["id"]: r for r in json.loads(cli("intake", "t4", "--list", "--json").out)}
    item = listed["gpu-class"]
    assert (item["known"] or {"answer": item["answer"]})["answer"] == "datacenter"


@pytest.mark.parametrize("cli_registry", [tiny_registry()])
def test_an_env_answer_given_outright_wins_over_a_pattern(cli: CLI) -> None:
    made = cli(
        "new", "slow", "--id", "t2", "--playbook", "tiny",
        "--env", "gpus=8x A100", "--env", "gpu-class=consumer",
    )  # fmt: skip
    assert made.code == 0, made.err
    listed = {r["id"]: r for r in json.loads(cli("intake", "t2", "--list", "--json").out)}
    item = listed["gpu-class"]
    assert (item["known"] or {"answer": item["answer"]})["answer"] == "consumer"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('{ matches = "x", answer = "consumer" }', "needs a 'key' (an environment key)"),
        ('{ key = "gpus", matches = "x", answer = "gaming" }', "answer 'gaming', which is not"),
        ('{ key = "gpus", answer = "consumer" }', "needs 'matches' (a pattern)"),
        ('{ key = "gpus", matches = "(", answer = "consumer" }', "'matches' is not a valid"),
    ],
)
def test_environment_matches_are_checked_like_facts(entry: str, message: str) -> None:
    start = SMALL.index("environment_matches = [")
    end = SMALL.index("]\nrationale")
    text = SMALL[:start] + f"environment_matches = [{entry}" + SMALL[end:]
    with pytest.raises(RuleError) as raised:
        load_playbook(text, "tiny.toml")
    assert "intake gpu-class: " in str(raised.value) and message in str(raised.value)


def test_opening_a_playbook_says_what_the_env_answered_on_stderr(cli: CLI) -> None:
    """``C=$(casefile new …)`` captures the id alone; what the ``--env`` answered is said on
    stderr, each with its source (a new user had no way to know it was read)."""
    made = cli(
        "new", "slow", "--id", "n1", "--playbook", "gpu-throughput",
        "--env", "GPUs=1x GeForce RTX 4090", "--env", "Degrades-Over-Time=yes",
    )  # fmt: skip
    assert made.code == 0 and made.out.strip() == "n1"
    assert "intake gpu-count: one (from --env GPUs=1x GeForce RTX 4090)" in made.err
    assert "intake degrades-over-time: yes (from --env Degrades-Over-Time=yes)" in made.err
    assert "intake nodes: single (from gpu-count = one" in made.err
    plain = cli("new", "no playbook", "--id", "n2", "--env", "gpus=1x A100")
    assert plain.code == 0 and plain.err == ""


def test_a_question_is_answered_by_its_env_key_or_another_spelling_of_its_id(cli: CLI) -> None:
    """``--answer degrades=no`` (the question's ``--env`` key) and ``--answer Workload=…``
    name their questions, as ``--env`` keys do; a key that names none is still refused."""
    assert cli("new", "slow", "--id", "k1", "--playbook", "gpu-throughput").code == 0
    said = cli("intake", "k1", "--answer", "degrades=no", "--answer", "Workload=training")
    assert said.code == 0
    assert "degrades-over-time: no → evidence" in said.out
    assert "workload: training → evidence" in said.out
    refused = cli("intake", "k1", "--answer", "bogus=1")
    assert refused.code == 1 and "no intake question 'bogus'" in refused.err
