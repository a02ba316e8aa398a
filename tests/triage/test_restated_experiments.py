"""``casefile experiment --restates X``: an A/B told again counts once.

A thread often closes by retelling the A/B that decided it ("set -t 7 and it's fixed"), hours
after the same A/B was recorded from its first telling. Recorded twice, the one finding would
count twice; the retelling supersedes the earlier telling's evidence instead, whatever form
either telling takes (runs, stated figures, words).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from casefile.domain.beliefs import project
from casefile.domain.event_types import new_event
from casefile.domain.event_types.case import CaseOpened
from casefile.domain.event_types.experiment import ExperimentRecorded
from casefile.domain.events import GENESIS_HASH, Event, seal
from casefile.errors import DomainError
from tests.cli.conftest import CLI
from tests.triage.conftest import nccl_table
from tests.triage.test_experiments import log, paste

THREADS = "-t 7 (CPU threads limited to 7)"


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow decode", "--id", "r1", "--playbook", "gpu-throughput@3").code == 0
    return "r1"


def confidences(cli: CLI, case: str) -> dict[str, float]:
    result = cli("status", case, "--json")
    assert result.code == 0, result.err
    return {h["id"]: h["confidence"] for h in json.loads(result.out)["hypotheses"]}


def experiment(cli: CLI, case: str, *args: str) -> dict[str, Any]:
    result = cli("experiment", case, "--change", THREADS, *args, "--json")
    assert result.code == 0, result.err
    said: dict[str, Any] = json.loads(result.out)
    return said


def test_a_retelling_counts_once_as_its_latest_telling(cli: CLI, case: str) -> None:
    first = experiment(cli, case, "--reported", "11:15", "--probe", "app-log", "--unit", "tokens/s")
    again = experiment(cli, case, "--outcome", "fixed", "--restates", first["experiment_id"])
    assert (again["restates"], again["supersedes"]) == ("x1", first["evidence_id"])
    verdict = log(cli, case)[-1]
    assert verdict["payload"]["supersedes"] == first["evidence_id"]  # type: ignore[index]
    retold = confidences(cli, case)

    assert cli("new", "slow decode", "--id", "r2", "--playbook", "gpu-throughput@3").code == 0
    experiment(cli, "r2", "--outcome", "fixed")
    told_once = confidences(cli, "r2")
    assert cli("new", "slow decode", "--id", "r3", "--playbook", "gpu-throughput@3").code == 0
    experiment(cli, "r3", "--reported", "11:15", "--probe", "app-log", "--unit", "tokens/s")
    experiment(cli, "r3", "--outcome", "fixed")
    told_twice = confidences(cli, "r3")

    assert retold.keys() == told_once.keys()
    for h, value in retold.items():
        assert math.isclose(value, told_once[h], rel_tol=1e-9, abs_tol=1e-12), h
    leader = max(told_once, key=told_once.__getitem__)
    assert told_twice[leader] > retold[leader] + 0.01  # what counting it twice would do


def test_a_third_telling_supersedes_the_second(cli: CLI, case: str) -> None:
    experiment(cli, case, "--outcome", "better")
    second = experiment(cli, case, "--outcome", "fixed", "--restates", "x1")
    third = experiment(cli, case, "--outcome", "fixed", "--restates", "x1")
    assert third["supersedes"] == second["evidence_id"] != "e1"
    active = [
        e["payload"]["evidence_id"]  # type: ignore[index]
        for e in log(cli, case)
        if e["type"] == "evidence.assessed"
    ]
    assert active[-1] == third["evidence_id"]


def test_restating_an_experiment_no_rule_read_supersedes_nothing(cli: CLI, case: str) -> None:
    unread = cli("experiment", case, "--change", "moved the box", "--outcome", "fixed")
    assert unread.code == 0 and "no evidence" in unread.out
    said = cli("experiment", case, "--change", THREADS, "--outcome", "fixed", "--restates", "x1")
    assert said.code == 0, said.err
    assert "restates x1, which no rule had read: nothing superseded" in said.out


def test_the_cli_says_what_the_retelling_replaced(cli: CLI, case: str) -> None:
    experiment(cli, case, "--outcome", "better")
    said = cli("experiment", case, "--change", THREADS, "--outcome", "fixed", "--restates", "x1")
    assert said.code == 0, said.err
    assert "restates x1: supersedes its evidence e1" in said.out
    assert "[restates x1]" in cli("log", case).out


def test_an_unknown_experiment_is_refused_and_nothing_is_written(cli: CLI, case: str) -> None:
    experiment(cli, case, "--outcome", "better")
    before = len(log(cli, case))
    said = cli("experiment", case, "--change", THREADS, "--outcome", "fixed", "--restates", "x9")
    assert said.code != 0
    assert said.err.strip().splitlines() == [
        "casefile: error: no experiment 'x9' to restate (experiments: x1)"
    ]
    assert len(log(cli, case)) == before


def test_a_log_that_restates_an_unknown_experiment_does_not_fold() -> None:
    """A forged or hand-edited log: the fold names the seq and what it restates."""
    events: list[Event] = []
    prev = GENESIS_HASH
    for new in (
        new_event(CaseOpened, title="t"),
        new_event(
            ExperimentRecorded,
            experiment_id="x1",
            change="c",
            stated="fixed",
            reported=True,
            restates="x0",
        ),
    ):
        event = seal("f", len(events) + 1, prev, new, "2026-01-01T00:00:00Z")
        events.append(event)
        prev = event.hash
    with pytest.raises(DomainError, match="seq 2: restates experiment 'x0', which is unknown"):
        project(events)


def test_a_worded_retelling_leaves_a_measured_ab_standing(cli: CLI, tmp_path: Path) -> None:
    """ "Fixed by NCCL_P2P_DISABLE=1" retelling an A/B whose runs the case holds adds nothing:
    superseding the 3x measured speedup with a stated word would swap the measurement for its
    paraphrase, weaker by the stated word's reliability."""
    assert cli("new", "slow all-reduce", "--id", "m1", "--playbook", "gpu-throughput").code == 0
    base = paste(cli, "m1", tmp_path, "a.txt", nccl_table(6.0, "NVIDIA A40"))
    variant = paste(cli, "m1", tmp_path, "b.txt", nccl_table(18.0, "NVIDIA A40"))
    change = ("--change", "NCCL_P2P_DISABLE=1")
    measured = cli("experiment", "m1", *change, "--baseline", str(base), "--variant",
                   str(variant), "--json")  # fmt: skip
    assert measured.code == 0, measured.err
    before = confidences(cli, "m1")
    said = cli("experiment", "m1", *change, "--outcome", "fixed", "--restates", "x1")
    assert said.code == 0, said.err
    assert "it retells x1, whose measured evidence e" in said.out and "stands" in said.out
    assert confidences(cli, "m1") == before
    assert [e["type"] for e in log(cli, "m1")][-1] == "experiment.recorded"  # no evidence
    # a reported retelling of reported figures still replaces them (counted once, latest)
    assert cli("experiment", "m1", *change, "--reported", "6:18", "--probe", "nccl-tests").code == 0
    again = cli("experiment", "m1", *change, "--outcome", "fixed", "--restates", "x3", "--json")
    assert again.code == 0 and json.loads(again.out)["supersedes"] is not None


def _measured_case(cli: CLI, tmp_path: Path, case: str) -> None:
    assert cli("new", "slow all-reduce", "--id", case, "--playbook", "gpu-throughput").code == 0
    base = paste(cli, case, tmp_path, f"{case}a.txt", nccl_table(6.0, "NVIDIA A40"))
    variant = paste(cli, case, tmp_path, f"{case}b.txt", nccl_table(18.0, "NVIDIA A40"))
    measured = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--baseline",
                   str(base), "--variant", str(variant))  # fmt: skip
    assert measured.code == 0, measured.err


def test_retellings_of_a_retelling_of_a_measured_ab_count_nothing(cli: CLI, tmp_path: Path) -> None:
    """x2 retells the measured x1 and is read by nothing; x3 and x4, retelling x2, reach x1
    through it and stand aside too (they counted as new evidence: 6.6 % -> 59 %)."""
    _measured_case(cli, tmp_path, "m2")
    before = confidences(cli, "m2")
    change = ("--change", "NCCL_P2P_DISABLE=1")
    for telling, restates in (("fixed", "x1"), ("better", "x2"), ("fixed", "x2")):
        said = cli("experiment", "m2", *change, "--outcome", telling, "--restates", restates)
        assert said.code == 0, said.err
        assert "whose measured evidence e" in said.out
    assert confidences(cli, "m2") == before


def test_a_retelling_that_disagrees_with_the_measurement_says_so(cli: CLI, tmp_path: Path) -> None:
    _measured_case(cli, tmp_path, "m3")
    before = confidences(cli, "m3")
    said = cli("experiment", "m3", "--change", "NCCL_P2P_DISABLE=1", "--outcome", "same",
               "--restates", "x1")  # fmt: skip
    assert said.code == 0, said.err
    assert "reads 'same' where the measured evidence e" in said.out
    assert "read 'faster'" in said.out and "not a retelling" in said.out
    assert confidences(cli, "m3") == before
