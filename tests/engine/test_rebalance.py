"""Rebalancing priors before evidence: ``priors.rebalanced``, ``make_room`` and ``set_prior``.

The issue's case: three hypotheses that used the question's reserve leave no room for a
fourth ("prior 0.2 is larger than the catch-all of 'q' has left (0 of its 0.1)"). Rebalancing
scales the others down in proportion, as an event, so that replaying the case — folded from
scratch, state-only, or restored from a saved fold — gives the same confidences to the bit.
"""

from __future__ import annotations

import math

import pytest

from casefile.domain import commands
from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
from casefile.domain.events import NewEvent
from casefile.errors import DomainError

from .builder import CaseBuilder
from .reasoning_helpers import CATCH, QID, ev, hyp, new_case


def three_that_use_the_reserve() -> CaseBuilder:
    b = new_case(catch_all=0.1)
    for hid in ("a", "b", "c"):
        hyp(b, hid, QID, 0.3)
    return b


def test_a_fourth_hypothesis_is_refused_with_the_way_out_named() -> None:
    b = three_that_use_the_reserve()
    with pytest.raises(DomainError) as caught:
        hyp(b, "d", QID, 0.2)
    message = str(caught.value)
    assert "prior 0.2 is larger than the catch-all of 'q' has left (0 of its 0.1)" in message
    # the way out is named as an option of the action, each front end words it as its own
    assert caught.value.remedy is not None and caught.value.remedy.option == "rebalance"
    assert "--" not in message


def test_room_scales_the_others_in_proportion_and_keeps_the_reserve() -> None:
    b = new_case(catch_all=0.1)
    hyp(b, "a", QID, 0.5)
    hyp(b, "b", QID, 0.25)
    hyp(b, "c", QID, 0.15)
    room = commands.room_for_hypothesis(b.projection, QID, 0.2)
    assert room is not None and room.type == "priors.rebalanced"
    b.add(room)
    hyp(b, "d", QID, 0.2)
    question = b.projection.questions[QID]
    priors = {h: question.nodes[h].prior for h in question.top}
    assert priors["d"] == 0.2
    # the ratios between the others are what they were
    assert priors["a"] / priors["b"] == pytest.approx(2.0, rel=1e-12)
    assert priors["b"] / priors["c"] == pytest.approx(0.25 / 0.15, rel=1e-12)
    assert question.catch_all_prior() == pytest.approx(0.1, abs=1e-12)
    assert math.fsum(priors.values()) == pytest.approx(0.9, abs=1e-12)


def test_room_comes_from_the_free_mass_first() -> None:
    b = new_case(catch_all=0.1)
    hyp(b, "a", QID, 0.4)
    hyp(b, "b", QID, 0.4)  # 0.1 free beyond the reserve
    room = commands.make_room(b.projection.questions[QID], None, 0.2)
    # 0.1 of the 0.2 is free; the other 0.1 comes from a and b equally
    assert room == pytest.approx({"a": 0.35, "b": 0.35}, abs=1e-12)
    assert commands.room_for_hypothesis(b.projection, QID, 0.1) is None  # fits as it is


def test_children_make_room_inside_their_parent() -> None:
    b = new_case()
    hyp(b, "p", QID, 0.6)
    hyp(b, "x", "p", 0.6)
    hyp(b, "y", "p", 0.4)
    with pytest.raises(DomainError, match="more than 'p' has left"):
        hyp(b, "z", "p", 0.2)
    room = commands.room_for_hypothesis(b.projection, "p", 0.2)
    assert room is not None
    b.add(room)
    hyp(b, "z", "p", 0.2)
    question = b.projection.questions[QID]
    assert question.nodes["x"].prior == pytest.approx(0.48, abs=1e-12)
    assert question.nodes["y"].prior == pytest.approx(0.32, abs=1e-12)
    assert question.nodes["p"].prior == 0.6  # the parent's own prior is untouched


def test_no_room_when_the_others_hold_too_little() -> None:
    b = new_case(catch_all=0.5)
    hyp(b, "a", QID, 0.3)
    with pytest.raises(DomainError, match=r"prior 0.9 cannot fit: the other hypotheses hold 0.3"):
        commands.room_for_hypothesis(b.projection, QID, 0.9)


def test_set_prior_gives_back_to_the_catch_all_or_takes_from_the_siblings() -> None:
    b = three_that_use_the_reserve()
    b.add(commands.set_prior(b.projection, "a", 0.1, reason="overrated"))
    question = b.projection.questions[QID]
    assert question.nodes["a"].prior == 0.1
    assert question.nodes["b"].prior == 0.3  # a smaller prior moves nobody else
    assert question.catch_all_prior() == pytest.approx(0.3, abs=1e-12)
    b.add(commands.set_prior(b.projection, "a", 0.5))
    question = b.projection.questions[QID]
    # 0.2 was free (0.3 held, 0.1 reserve); the other 0.2 comes from b and c
    assert question.nodes["b"].prior == pytest.approx(0.2, abs=1e-12)
    assert question.nodes["c"].prior == pytest.approx(0.2, abs=1e-12)
    assert question.catch_all_prior() == pytest.approx(0.1, abs=1e-12)


def test_rebalancing_after_evidence_is_refused_unless_forced_and_the_event_says_so() -> None:
    b = three_that_use_the_reserve()
    ev(b, {"a": 0.9}, otherwise=0.3)
    with pytest.raises(DomainError) as caught:
        commands.set_prior(b.projection, "a", 0.2)
    assert "already has 1 piece of evidence" in str(caught.value)
    assert "count that evidence twice" in str(caught.value)
    assert caught.value.remedy is not None and caught.value.remedy.option == "force"
    assert "--" not in str(caught.value)
    # after evidence the catch-all's reserve is spent: room then comes from what it holds
    with pytest.raises(DomainError, match="already has 1 piece"):
        commands.room_for_hypothesis(b.projection, QID, 0.2)
    event = commands.set_prior(b.projection, "a", 0.2, force=True)
    assert event.payload["forced"] is True
    b.add(event)
    assert b.projection.questions[QID].nodes["a"].prior == 0.2


def test_replay_gives_the_same_confidences_to_the_last_digit() -> None:
    b = three_that_use_the_reserve()
    room = commands.room_for_hypothesis(b.projection, QID, 0.2)
    assert room is not None
    b.add(room)
    hyp(b, "d", QID, 0.2)
    ev(b, {"a": 0.8, "d": 0.6}, otherwise=0.2)
    b.add(commands.set_prior(b.projection, "b", 0.25, force=True))
    ev(b, {"c": 0.7}, otherwise=0.4)
    full = project(b.events)
    state_only = project(b.events, trajectory=False)
    restored = restore_fold(dump_fold(project(b.events[:-1], trajectory=False)))
    project(b.events[-1:], into=restored)
    expected = full.questions[QID].confidences
    assert state_only.questions[QID].confidences == expected
    assert restored.questions[QID].confidences == expected
    # and the step after the rebalance holds what the fold held then
    again = project(b.events)
    assert [s.snapshots[QID].weights for s in again.trajectory if QID in s.snapshots] == [
        s.snapshots[QID].weights for s in full.trajectory if QID in s.snapshots
    ]
    assert CATCH in expected


@pytest.mark.parametrize(
    ("priors", "problem"),
    [
        ({"a": 0.5}, "leave the catch-all of 'q' nothing"),
        ({"zz": 0.1}, "has no hypothesis 'zz'"),
    ],
)
def test_an_impossible_rebalance_in_a_stored_case_is_refused_by_the_fold(
    priors: dict[str, float], problem: str
) -> None:
    b = three_that_use_the_reserve()
    b.add(NewEvent("priors.rebalanced", {"question_id": QID, "priors": priors}))
    with pytest.raises(DomainError, match=f"seq 6: .*{problem}"):
        project(b.events)
