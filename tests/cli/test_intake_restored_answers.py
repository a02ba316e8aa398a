"""A person's answer withdrawn because a later answer made its question moot comes back when the
question applies again: nobody took it back. "scaling = no" given for a multi-GPU job, the job
then said to run on one GPU (scaling withdrawn), then corrected back to several GPUs: scaling is
"no" again, said as restored, and the case weighs as one that never said "one"."""

from __future__ import annotations

import json
from pathlib import Path

from casefile.app.service import CaseService
from casefile.domain import premises
from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.events import event_from_dict
from casefile.mcp.reads import intake_questions
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import CLI, builtin_registry


def _confidences(cli: CLI, case: str) -> dict[str, float]:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return {h["id"]: round(h["confidence"], 12) for h in hypotheses}


def _withdrawn_then_back(cli: CLI, *back: str) -> tuple[str, str]:
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "scaling=no", "nvlink=yes", "workload=training", "--no-known")
    cli("intake", case, "gpu-count=one", "--no-known")
    said = cli("intake", case, "gpu-count=several", *back)
    assert said.code == 0, said.err
    return case, said.out


def test_an_answer_withdrawn_as_moot_is_restored_when_its_question_applies_again(
    cli: CLI,
) -> None:
    case, said = _withdrawn_then_back(cli)
    assert "scaling: no (restored: the answer recorded at seq 27, withdrawn at seq 31 while " \
        "gpu-count = one (seq 30) made the question moot) → evidence" in said  # fmt: skip
    assert "nvlink: yes (restored: the answer recorded at seq 28" in said
    plain = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", plain, "workload=training", "gpu-count=several", "scaling=no", "nvlink=yes")
    assert _confidences(cli, case) == _confidences(cli, plain)
    listed = json.loads(cli("intake", case, "--list", "--json").out)
    scaling = next(row for row in listed if row["id"] == "scaling")
    # recorded as the person's own answer: no basis, so no later premise withdraws it
    assert (scaling["answer"], scaling["source"], scaling["basis"]) == ("no", "answered", None)


def test_the_json_outcome_names_what_it_restores(cli: CLI) -> None:
    _, said = _withdrawn_then_back(cli, "--json")
    rows = {row["question"]: row for row in json.loads(said)["recorded"]}
    assert rows["scaling"]["source"] == "restored"
    assert rows["scaling"]["restores"].startswith("the answer recorded at seq 27, withdrawn at seq")


def test_without_known_answers_it_is_offered_not_recorded(cli: CLI) -> None:
    case, said = _withdrawn_then_back(cli, "--no-known")
    assert "restored" not in said
    listed = cli("intake", case, "--list").out
    assert "known: no (from the answer recorded at seq 27, withdrawn at seq 31" in listed
    recorded = cli("intake", case)
    assert "scaling: no (restored: " in recorded.out


def test_a_new_answer_given_in_the_same_call_wins(cli: CLI) -> None:
    case, said = _withdrawn_then_back(cli, "scaling=worse")
    assert "scaling: worse → evidence" in said and "scaling: no" not in said
    listed = json.loads(cli("intake", case, "--list", "--json").out)
    assert next(row["answer"] for row in listed if row["id"] == "scaling") == "worse"


def test_an_env_answer_comes_back_from_the_env_not_as_restored(cli: CLI) -> None:
    case = cli(
        "new", "slow", "--playbook", "gpu-throughput@3", "--env", "gpus=2x A100", "--env",
        "scaling=no",
    ).out.strip()  # fmt: skip
    cli("intake", case, "gpu-count=one", "--no-known")
    said = cli("intake", case, "gpu-count=several", "--json")
    rows = {row["question"]: row for row in json.loads(said.out)["recorded"]}
    assert rows["scaling"]["source"] == "environment" and "restores" not in rows["scaling"]


def test_a_withdrawal_says_what_it_withdraws_in_the_log(cli: CLI) -> None:
    case, _ = _withdrawn_then_back(cli)
    log = cli("log", case).out
    assert "intake scaling: 'no' withdrawn (does not apply now: gpu-count = one (seq 30)) → " \
        "evidence e5, supersedes e1" in log  # fmt: skip


def test_a_person_answer_superseded_otherwise_is_not_restored(cli: CLI) -> None:
    """Only a withdrawal as moot brings an answer back: evidence a person recorded over an
    answer (weighing nothing, as a withdrawal does) is that person's word, not the tool's."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "gpu-count=several", "scaling=no", "--no-known")
    taken = cli(
        "evidence", "add", case, "--supersedes", "e2", "--likelihood", "pcie-bound=1",
        "--otherwise", "1", "--reliability", "0", "--kind", "reported",
        "--because", "scaling not measured",
    )  # fmt: skip
    assert taken.code == 0, taken.err
    cli("intake", case, "gpu-count=one", "--no-known")
    said = cli("intake", case, "gpu-count=several")
    assert "restored" not in said.out


def test_what_is_restored_survives_a_saved_fold(cli: CLI) -> None:
    """A long case's ``status`` starts from a saved fold: the withdrawal's record is there."""
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "scaling=no", "--no-known")
    cli("intake", case, "gpu-count=one", "--no-known")
    cli("intake", case, "gpu-count=several", "--no-known")
    events = [event_from_dict(e) for e in json.loads(cli("log", case, "--json").out)]
    folded = project(events)
    question = builtin_registry().playbook("gpu-throughput@3").intake_question("scaling")
    fresh = premises.moot_withdrawn(folded, question)
    restored = premises.moot_withdrawn(restore_fold(dump_fold(folded)), question)
    assert fresh is not None and fresh == restored and fresh.answer == "no"
    withdrawal = EvidenceAssessed.of(events[-2].payload)
    assert withdrawal.withdraws is not None and withdrawal.withdraws.because == "moot"


def test_the_persons_answer_comes_back_before_an_env_value_it_had_overridden(cli: CLI) -> None:
    """``--env scaling=no`` answered scaling; the person's ``worse`` replaced it. Withdrawn as
    moot and then applying again, the question gets the person's word back, not the env's."""
    case = cli(
        "new", "slow", "--playbook", "gpu-throughput@3", "--env", "gpus=2x A100",
        "--env", "scaling=no",
    ).out.strip()  # fmt: skip
    cli("intake", case, "scaling=worse", "--no-known")
    cli("intake", case, "gpu-count=one", "--no-known")
    said = json.loads(cli("intake", case, "gpu-count=several", "--json").out)
    rows = {row["question"]: row for row in said["recorded"]}
    assert rows["scaling"]["answer"] == "worse" and rows["scaling"]["source"] == "restored"


def test_a_withdrawal_the_person_superseded_brings_nothing_back(cli: CLI) -> None:
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    cli("intake", case, "scaling=no", "--no-known")
    cli("intake", case, "gpu-count=one", "--no-known")  # e2; scaling withdrawn by e3
    taken = cli(
        "evidence", "add", case, "--supersedes", "e3", "--likelihood", "pcie-bound=0.5",
        "--otherwise", "1", "--kind", "reported", "--because", "scaling: I take it back",
    )  # fmt: skip
    assert taken.code == 0, taken.err
    said = cli("intake", case, "gpu-count=several")
    assert "restored" not in said.out


def test_an_answer_restored_twice_names_where_it_was_recorded_last(cli: CLI) -> None:
    case, _ = _withdrawn_then_back(cli)  # scaling restored at seq 34
    cli("intake", case, "gpu-count=one", "--no-known")
    again = cli("intake", case, "gpu-count=several").out
    assert "scaling: no (restored: the answer recorded at seq 34, withdrawn at seq " in again


def test_the_agent_interface_sees_the_known_answer_it_would_record(
    cli: CLI, tmp_path: Path
) -> None:
    """An agent reads the intake questions before answering: a restored answer, like one the
    ``--env`` gives, is there as known, with where it came from, as ``--list --json`` says."""
    case, _ = _withdrawn_then_back(cli, "--no-known")
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        questions = {q["id"]: q for q in intake_questions(service, case)["questions"]}
    listed = {row["id"]: row for row in json.loads(cli("intake", case, "--list", "--json").out)}
    assert questions["scaling"]["known"] == listed["scaling"]["known"]
    assert questions["scaling"]["known"]["source"] == "restored"
