"""An A/B that tries the leading hypothesis's remedy is weighed by how far the leader stands
ahead: first when the leader is clear, behind a cheap look when it is barely ahead."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.domain.beliefs import project
from casefile.domain.beliefs.ranking import EXPERIMENT_PREFIX, NextStep, rank_next_steps
from casefile.domain.beliefs.step_worth import REMEDY_WEIGHT_MAX, remedy_note, remedy_weight
from casefile.domain.rules import Outcome, Rule, Statistic
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry
from tests.triage.devset import QUESTION, after_intake

DEV = Path(__file__).resolve().parents[2] / "cases" / "dev"


def ab_rule(outcomes: tuple[str, ...] = ("faster", "same", "slower")) -> Rule:
    return Rule(
        id="experiment.x",
        version=1,
        question="q",
        probes=("command",),
        statistic=Statistic("ratio", ("throughput",)),
        outcomes=tuple(Outcome(name) for name in outcomes),
        likelihoods={},
        otherwise={name: 1.0 / len(outcomes) for name in outcomes},
        rationale="",
    )


# leaves: the leader, the runner-up, a third; rows: faster, same, slower
FOR_THE_LEADER = [[0.8, 0.1, 0.1], [0.15, 0.7, 0.7], [0.05, 0.2, 0.2]]
FOR_THE_RUNNER_UP = [[0.1, 0.8, 0.1], [0.7, 0.15, 0.7], [0.2, 0.05, 0.2]]


@pytest.mark.parametrize(
    ("probs", "table", "weight"),
    [
        ([0.3, 0.2, 0.5 - 1e-9], FOR_THE_LEADER, 1.0),  # the third leaf leads: not its remedy
        ([0.5, 0.25, 0.25], FOR_THE_LEADER, 2.0),
        ([0.4, 0.32, 0.28], FOR_THE_LEADER, 1.25),
        ([0.8, 0.1, 0.1], FOR_THE_LEADER, REMEDY_WEIGHT_MAX),  # capped
        ([0.5, 0.25, 0.25], FOR_THE_RUNNER_UP, 1.0),
        ([1.0, 0.0, 0.0], FOR_THE_LEADER, 1.0),  # nothing left to tell it from
    ],
)
def test_the_weight_is_the_leaders_lead_when_the_change_is_its_remedy(
    probs: list[float], table: list[list[float]], weight: float
) -> None:
    assert remedy_weight(probs, ab_rule(), table) == pytest.approx(weight)


def test_a_rule_without_a_helped_outcome_is_never_weighted() -> None:
    table = [[0.8, 0.1, 0.1], [0.2, 0.9, 0.9]]
    assert remedy_weight([0.6, 0.2, 0.2], ab_rule(("up", "down")), table) == 1.0


def test_the_note_says_whose_remedy_and_by_how_much_and_only_when_weighted() -> None:
    line = "data-loading against gpu-unused: faster 0.78 against 0.10"
    assert remedy_note(line, "data-loading", 1.0) == line
    assert remedy_note(line, "data-loading", 1.94) == (
        f"{line}; tries data-loading's remedy, weighed ×1.9"
    )


def after_intake_steps(slug: str) -> list[NextStep]:
    events, _ = read_case_dir(DEV / slug)
    projection = project(events[: after_intake(events)])
    service = CaseService(MemoryEventStore(), builtin_registry())
    return rank_next_steps(projection, service.reader.candidates(projection), QUESTION)


def test_a_clear_leaders_remedy_comes_before_a_cheaper_look() -> None:
    """timm-1491 after intake: data loading holds about 29 %, the GPU left unused about 11 %.
    Swapping the data pipeline is the leader's remedy and comes first, weighted; the training
    log's data time, which tells a little more on its own, comes after it."""
    steps = after_intake_steps("timm-1491-a100-resnet50-pillow-decode")
    first = steps[0]
    assert first.probe == EXPERIMENT_PREFIX + "data-pipeline"
    assert first.remedy_weight > 1.5
    assert "tries data-loading's remedy" in first.separates
    look = next(s for s in steps if s.probe == "app-log")
    assert look.leaders_gain_bits > first.leaders_gain_bits  # it would lead unweighted
    assert look.remedy_weight == 1.0


def test_a_leader_barely_ahead_leaves_the_cheap_look_first() -> None:
    """decipher-8 after intake: data loading 15 % against the GPU left unused 12 %. Whether
    the log says the job ran on the CPU tells those two apart and comes first; the data
    pipeline A/B is weighted only by the thin lead."""
    steps = after_intake_steps("decipher-8-rtx3060-whisper-on-cpu")
    assert steps[0].probe == "app-log"
    ab = next(s for s in steps if s.probe == EXPERIMENT_PREFIX + "data-pipeline")
    assert 1.0 < ab.remedy_weight < 1.4
    assert steps.index(ab) > 0


def test_only_experiments_are_weighted_and_only_they_carry_the_note() -> None:
    steps = after_intake_steps("timm-1491-a100-resnet50-pillow-decode")
    for step in steps:
        if not step.probe.startswith(EXPERIMENT_PREFIX):
            assert step.remedy_weight == 1.0
            assert "remedy" not in step.separates
