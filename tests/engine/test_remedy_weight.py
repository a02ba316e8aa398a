"""An A/B that tries the leading hypothesis's remedy is weighed by how far the leader stands
ahead: first when the leader is clear, behind a cheap look when it is barely ahead, and never
when the change is not the leader's own (its "faster" no likelier under the leader than under
the runner-up, or than under the causes the rule does not name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.app.views.steps import NextStepRow, ProbeRow
from casefile.domain.beliefs import project
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.ranking import (
    EXPERIMENT_PREFIX,
    Candidate,
    NextStep,
    rank_next_steps,
    rank_probes,
)
from casefile.domain.beliefs.step_worth import (
    REMEDY_WEIGHT_MAX,
    ranked_bits,
    remedy,
    remedy_note,
)
from casefile.domain.rules import Outcome, Rule, Statistic
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry
from tests.triage.devset import QUESTION, after_intake

DEV = Path(__file__).resolve().parents[2] / "cases" / "dev"
TIMM = "timm-1491-a100-resnet50-pillow-decode"
DECIPHER = "decipher-8-rtx3060-whisper-on-cpu"


def ab_rule(
    outcomes: tuple[str, ...] = ("faster", "same", "slower"), helped_otherwise: float = 0.05
) -> Rule:
    rest = (1.0 - helped_otherwise) / (len(outcomes) - 1)
    return Rule(
        id="experiment.x",
        version=1,
        question="q",
        probes=("command",),
        statistic=Statistic("ratio", ("throughput",)),
        outcomes=tuple(Outcome(name) for name in outcomes),
        likelihoods={},
        otherwise={name: helped_otherwise if k == 0 else rest for k, name in enumerate(outcomes)},
        rationale="",
    )


# leaves: the leader, the runner-up, a third; rows: faster, same, slower
FOR_THE_LEADER = [[0.8, 0.1, 0.05], [0.15, 0.7, 0.75], [0.05, 0.2, 0.2]]
FOR_THE_RUNNER_UP = [[0.1, 0.8, 0.05], [0.7, 0.15, 0.75], [0.05, 0.05, 0.2]]
FOR_BOTH = [[0.8, 0.8, 0.05], [0.15, 0.15, 0.75], [0.05, 0.05, 0.2]]
#: the leader's row is the rule's ``otherwise`` (0.05), the highest "faster" of all
ONLY_OTHERWISE = [[0.05, 0.02, 0.02], [0.25, 0.5, 0.5], [0.7, 0.48, 0.48]]


@pytest.mark.parametrize(
    ("probs", "table", "weight"),
    [
        ([0.5, 0.25, 0.25], FOR_THE_LEADER, 2.0),
        ([0.4, 0.32, 0.28], FOR_THE_LEADER, 1.25),
        ([0.8, 0.1, 0.1], FOR_THE_LEADER, REMEDY_WEIGHT_MAX),  # capped
        ([0.3, 0.2, 0.5], FOR_THE_LEADER, 1.0),  # the third leaf leads: not its remedy
        ([0.5, 0.25, 0.25], FOR_THE_RUNNER_UP, 1.0),
        ([0.5, 0.25, 0.25], FOR_BOTH, 1.0),  # one change for the two: tells them nothing
        ([0.5, 0.25, 0.25], ONLY_OTHERWISE, 1.0),  # the rule does not name the leader
        ([1.0, 0.0, 0.0], FOR_THE_LEADER, 1.0),  # nothing left to tell it from
    ],
)
def test_the_weight_is_the_leaders_lead_when_the_change_is_its_own_remedy(
    probs: list[float], table: list[list[float]], weight: float
) -> None:
    found = remedy(probs, ab_rule(), table)
    assert found.weight == pytest.approx(weight)
    assert (found.leader == 0) == (weight > 1.0)


def test_a_rule_without_a_helped_outcome_is_never_weighted() -> None:
    table = [[0.8, 0.1, 0.1], [0.2, 0.9, 0.9]]
    assert remedy([0.6, 0.2, 0.2], ab_rule(("up", "down")), table).weight == 1.0


def test_the_note_says_whose_remedy_and_by_how_much_and_only_when_it_shows() -> None:
    line = "data-loading against gpu-unused: faster 0.78 against 0.10"
    assert remedy_note(line, "data-loading", 1.0) == line
    assert remedy_note(line, "data-loading", 1.04) == line  # moves nothing visible
    assert remedy_note(line, "data-loading", 1.94) == (
        f"{line}; tries data-loading's remedy, weighted ×1.94"
    )


def test_the_ranked_figure_is_one_definition_for_the_order_and_the_rows() -> None:
    assert ranked_bits(0.3, 2.0, "moderate") == pytest.approx(0.3 * 2.0 * 0.85)
    step = NextStep("A/B x", "experiment.x", 1, "q", 0.4, "moderate", "any", "", "", 0.3, 2.0)
    assert NextStepRow.of(step).ranked_bits == ranked_bits(0.3, 2.0, "moderate")
    assert NextStepRow.of(step).to_json()["remedy_weight"] == 2.0


def after_intake_of(slug: str) -> tuple[Projection, list[Candidate]]:
    events, _ = read_case_dir(DEV / slug)
    projection = project(events[: after_intake(events)])
    service = CaseService(MemoryEventStore(), builtin_registry())
    return projection, service.reader.candidates(projection)


def after_intake_steps(slug: str) -> list[NextStep]:
    projection, candidates = after_intake_of(slug)
    return rank_next_steps(projection, candidates, QUESTION)


def test_a_clear_leaders_remedy_comes_before_a_cheaper_look() -> None:
    """timm-1491 after intake: data loading holds about 29 %, the GPU left unused about 11 %.
    Swapping the data pipeline is the leader's remedy and comes first, weighted; the training
    log's data time, which tells a little more on its own, comes after it."""
    steps = after_intake_steps(TIMM)
    first = steps[0]
    assert first.probe == EXPERIMENT_PREFIX + "data-pipeline"
    assert first.remedy_weight > 1.5
    assert "tries data-loading's remedy" in first.separates
    look = next(s for s in steps if s.probe == "app-log")
    assert look.leaders_gain_bits > first.leaders_gain_bits  # it would lead unweighted
    assert look.remedy_weight == 1.0


def test_the_whole_probe_ranking_weighs_the_same_remedy() -> None:
    projection, candidates = after_intake_of(TIMM)
    probes = rank_probes(projection, candidates)
    ab = next(p for p in probes if p.probe == EXPERIMENT_PREFIX + "data-pipeline")
    pair = after_intake_steps(TIMM)[0]
    assert ab.remedy_weight == pair.remedy_weight > 1.5
    assert ProbeRow.of(ab).ranked_bits == pytest.approx(
        ranked_bits(ab.leaders_gain_bits, ab.remedy_weight, ab.cost)
    )
    # a change that only an unnamed cause's row favours is no remedy (heat soak for a loader)
    soak = next(p for p in probes if p.probe == EXPERIMENT_PREFIX + "heat-soak")
    assert soak.remedy_weight == 1.0 and "remedy" not in soak.separates


def test_a_leader_barely_ahead_leaves_the_cheap_look_first() -> None:
    """decipher-8 after intake: data loading 15 % against the GPU left unused 12 %. Whether
    the log says the job ran on the CPU tells those two apart and comes first; the data
    pipeline A/B is weighted only by the thin lead."""
    steps = after_intake_steps(DECIPHER)
    assert steps[0].probe == "app-log"
    ab = next(s for s in steps if s.probe == EXPERIMENT_PREFIX + "data-pipeline")
    assert 1.0 < ab.remedy_weight < 1.4
    assert steps.index(ab) > 0


def test_a_rule_with_a_helped_outcome_is_weighted_only_when_offered_as_an_a_b() -> None:
    """The same rule, offered under a probe's name, is not an A/B: only an A/B's change can
    be the leader's remedy."""
    projection, candidates = after_intake_of(TIMM)
    ab = next(c for c in candidates if c.probe == EXPERIMENT_PREFIX + "data-pipeline")
    as_a_probe = Candidate("command", ab.rule, ab.cost)
    (step,) = rank_next_steps(projection, [as_a_probe], QUESTION)
    assert step.remedy_weight == 1.0 and "remedy" not in step.separates
    (weighted,) = rank_next_steps(projection, [ab], QUESTION)
    assert weighted.remedy_weight > 1.5
