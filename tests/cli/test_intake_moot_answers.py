"""An answer to an intake question that does not apply is not recorded: scaling means nothing
for a job the case says runs on one GPU, yet its likelihoods would weigh the causes that still
apply. The command says which answer makes it moot; an answer that settles the question first
(gpu-count asked first, in the same call) lets it be recorded."""

from __future__ import annotations

import json
from pathlib import Path

from casefile.actions.triage_actions import AnswerIntake
from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import CLI, builtin_registry


def _evidence(cli: CLI, case: str) -> list[dict[str, object]]:
    events = json.loads(cli("log", case, "--json").out)
    return [e["payload"] for e in events if e["type"] == "evidence.assessed"]


def test_an_answer_to_a_moot_question_is_not_recorded(cli: CLI) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    given = cli("intake", case, "gpu-count=one", "scaling=no", "workload=training", "--no-known")
    assert given.code == 0, given.err
    assert "scaling: not recorded: does not apply (gpu-count = one (seq " in given.out
    answered = [p["intake"]["id"] for p in _evidence(cli, case)]  # type: ignore[index]
    assert answered == ["gpu-count", "workload"]
    again = json.loads(cli("intake", case, "nvlink=no", "--no-known", "--json").out)
    assert again["recorded"] == [] and [m["question"] for m in again["not_recorded"]] == ["nvlink"]
    assert again["not_recorded"][0]["does_not_apply"].startswith("gpu-count = one (seq ")


def test_an_answer_that_settles_the_question_first_lets_it_count(cli: CLI) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "gpu-count=one", "--no-known")
    given = cli("intake", case, "gpu-count=several", "scaling=no", "--no-known")
    assert "scaling: no → evidence" in given.out and "not recorded" not in given.out


def test_an_env_value_for_a_moot_question_is_not_taken_as_its_answer(cli: CLI) -> None:
    case = cli(
        "new", "slow", "--playbook", "gpu-throughput@3",
        "--env", "gpus=1x RTX 4090", "--env", "nvlink=no", "--env", "scaling=no",
    ).out.strip()  # fmt: skip
    answered = {p["intake"]["id"] for p in _evidence(cli, case)}  # type: ignore[index]
    assert "gpu-count" in answered and not answered & {"nvlink", "scaling"}
    listed = cli("intake", case, "--list").out
    assert "nvlink               does not apply: gpu-count = one" in listed


def test_the_intake_action_says_so_to_the_tui_and_agents(cli: CLI, tmp_path: Path) -> None:
    """The TUI's intake form and the agent interface run the same action, whose outcome line
    names the answer that makes the question moot."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "gpu-count=one", "--no-known")
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        said = AnswerIntake({"scaling": "no"}).run(service, case, Who("agent"))
    assert "scaling: not recorded, does not apply (gpu-count = one (seq " in said.said
    cli("intake", case, "gpu-count=several", "--no-known")
    cli("intake", case, "nvlink=yes", "--no-known")
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        said = AnswerIntake({"gpu-count": "one"}).run(service, case, Who("agent"))
    assert "nvlink: yes withdrawn, does not apply now (gpu-count = one (seq " in said.said


def _confidences(cli: CLI, case: str) -> dict[str, float]:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return {h["id"]: round(h["confidence"], 12) for h in hypotheses}


def test_an_answer_a_later_one_makes_moot_is_withdrawn(cli: CLI) -> None:
    """scaling and NVLink answered first, then the job said to run on one GPU: both answers are
    withdrawn, so the case weighs as if they had never been given; said the other way again,
    the questions are open to be asked, not answered by the withdrawn words."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "scaling=no", "nvlink=yes", "workload=training", "--no-known")
    said = cli("intake", case, "gpu-count=one", "--no-known")
    assert "scaling: no withdrawn: does not apply now (gpu-count = one (seq " in said.out
    assert "nvlink: yes withdrawn: does not apply now" in said.out
    plain = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", plain, "workload=training", "gpu-count=one", "--no-known")
    assert _confidences(cli, case) == _confidences(cli, plain)
    again = json.loads(cli("intake", case, "gpu-count=several", "--no-known", "--json").out)
    assert {"scaling", "nvlink"} <= set(again["pending"])


def test_a_word_that_is_no_answer_is_refused_though_the_question_is_moot(cli: CLI) -> None:
    """Not an answer refuses the lot, as for any question: nothing of the call is recorded."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "gpu-count=one", "--no-known")
    refused = cli("intake", case, "scaling=banana", "workload=training", "--no-known")
    assert refused.code != 0 and "'banana' is not an answer" in refused.err
    assert [p["intake"]["id"] for p in _evidence(cli, case)] == ["gpu-count"]  # type: ignore[index]


def test_a_withdrawal_is_recorded_once_and_the_question_can_be_answered_again(cli: CLI) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "scaling=no", "--no-known")
    cli("intake", case, "gpu-count=one", "--no-known")
    count = len(json.loads(cli("log", case, "--json").out))
    again = json.loads(cli("intake", case, "--json").out)
    assert again["withdrawn_moot"] == [] and len(json.loads(cli("log", case, "--json").out)) == (
        count + len(again["recorded"])
    )
    cli("intake", case, "gpu-count=several", "--no-known")
    answered = cli("intake", case, "scaling=worse", "--no-known")
    assert "scaling: worse → evidence" in answered.out
    plain = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", plain, "gpu-count=several", "scaling=worse", "--no-known")
    assert _confidences(cli, case) == _confidences(cli, plain)


def test_an_answer_changed_back_implies_what_it_implied_first(cli: CLI) -> None:
    """gpu-count = one settles nodes = single whether it is the first answer or replaces
    several (the answer read before had hidden what the answers in force settle)."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "gpu-count=several")
    changed = cli("intake", case, "gpu-count=one")
    assert "nodes: single (from gpu-count = one" in changed.out
    plain = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", plain, "gpu-count=one")
    assert _confidences(cli, case) == _confidences(cli, plain)
