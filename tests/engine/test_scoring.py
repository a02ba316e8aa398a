"""Decisive evidence and contributions in closed form, against brute-force leave-one-out.

The oracles recompute the whole distribution without each evidence (the old implementation of
``decisive_evidence``, kept here verbatim in substance). At an earlier seq, the closed form
reads the step's snapshot; the oracle folds ``events[:seq]`` afresh.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs import scoring as scoring_module
from casefile.domain.beliefs.arithmetic import SCALE, kl_bits_from_scores
from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.beliefs.scoring import (
    Contribution,
    Decisive,
    contributions,
    decisive_at,
    decisive_evidence,
    prior_log_odds_bits,
)
from casefile.domain.events import Event
from casefile.errors import DomainError

from .reasoning_helpers import CATCH, QID, ev, hyp, new_case, retire
from .streams import streams
from .test_fold_codec import reference_events

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TOLERANCE = 1e-9  # bits


# --- the oracles ------------------------------------------------------------------------------


def old_decisive(projection: Projection) -> list[tuple[str, int, float]]:
    """The leave-one-out implementation decisive_evidence had: one full pass per evidence."""
    out = []
    for state in projection.evidence.values():
        if not state.active:
            continue
        question = projection.questions[state.question_id]
        effect = question.effect(state.likelihoods, state.otherwise, state.reliability)
        _, final = question.leaf_scores()
        _, without = question.leaf_scores(without=effect)
        out.append((state.id, state.seq, kl_bits_from_scores(final, without)))
    out.sort(key=lambda d: (-d[2], d[1]))
    return out


def log_odds_bits(keys: Sequence[str], scores: Sequence[int], inside: set[str]) -> float:
    """log₂ odds of the leaves ``inside`` from integer scores, exactly in log space."""

    def log_sum(values: list[int]) -> float:
        if not values:
            return -math.inf
        top = max(values)
        return top / SCALE + math.log(math.fsum(math.exp((v - top) / SCALE) for v in values))

    a = log_sum([s for k, s in zip(keys, scores, strict=True) if k in inside])
    b = log_sum([s for k, s in zip(keys, scores, strict=True) if k not in inside])
    return (a - b) / math.log(2.0)


def leaves_of(question: QuestionState, hid: str) -> set[str]:
    return {question.catch_all_id} if hid == question.catch_all_id else set(question.subtree(hid))


def brute_contributions(projection: Projection, hid: str) -> dict[str, float]:
    """Each active evidence's shift of ``hid``'s log-odds, by recomputing without it."""
    qid = projection.hypothesis_question.get(hid) or hid.split("/")[0]
    question = projection.questions[qid]
    inside = leaves_of(question, hid)
    keys, scores = question.leaf_scores()
    if not inside & set(keys) or set(keys) <= inside:  # infinite log-odds: nothing moves them
        return {
            e.id: 0.0 for e in projection.evidence.values() if e.active and e.question_id == qid
        }
    now = log_odds_bits(keys, scores, inside)
    out = {}
    for state in projection.evidence.values():
        if state.active and state.question_id == qid:
            effect = question.effect(state.likelihoods, state.otherwise, state.reliability)
            _, without = question.leaf_scores(without=effect)
            out[state.id] = now - log_odds_bits(keys, without, inside)
    return out


def assert_close_ranking(mine: list[Decisive], oracle: list[tuple[str, int, float]]) -> None:
    """Same bits within TOLERANCE, and the same order except among items that tie within it."""
    expected = {eid: bits for eid, _, bits in oracle}
    assert len(mine) == len(oracle)
    for item in mine:
        assert item.bits == pytest.approx(expected[item.evidence_id], abs=TOLERANCE)
    for item, (eid, _, bits) in zip(mine, oracle, strict=True):
        assert item.evidence_id == eid or abs(expected[item.evidence_id] - bits) <= TOLERANCE


def hypotheses_of(projection: Projection) -> list[str]:
    out = list(projection.hypothesis_question)
    out += [q.catch_all_id for q in projection.questions.values()]
    return out


# --- decisive evidence ------------------------------------------------------------------------


@SETTINGS
@given(events=streams())
def test_decisive_matches_leave_one_out_now_and_at_every_seq(events: list[Event]) -> None:
    full = project(events)
    assert_close_ranking(decisive_evidence(full), old_decisive(full))
    for seq in range(1, len(events) + 1):
        fresh = project(events[:seq])
        at = decisive_at(full, seq)
        assert_close_ranking(at, old_decisive(fresh))
        assert at == decisive_at(fresh)  # the step's snapshot is the fresh fold's belief


def test_decisive_on_the_reference_case_at_every_seq() -> None:
    events = list(reference_events())
    full = project(events)
    for seq in range(1, len(events) + 1):
        fresh = project(events[:seq])
        at = decisive_at(full, seq)
        oracle = old_decisive(fresh)
        assert_close_ranking(at, oracle)
        assert [d.evidence_id for d in at] == [eid for eid, _, _ in oracle]  # no near-ties here
        assert at == decisive_at(fresh)
        hashes = {e.payload.get("evidence_id"): e.hash for e in events[:seq]}
        assert all(d.hash == hashes[d.evidence_id] for d in at)


def test_decisive_is_computed_once_per_step(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int | None] = []
    real = scoring_module._ranking

    def counting(projection: Projection, seq: int | None) -> list[tuple[float, Any]]:
        calls.append(seq)
        return real(projection, seq)

    monkeypatch.setattr(scoring_module, "_ranking", counting)
    b = new_case(incremental=True)
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9})
    ev(b, {"B": 0.7})
    p = b.projection
    first = decisive_at(p)
    first.clear()  # a caller's copy: the cache is not disturbed
    assert decisive_at(p) == decisive_at(p, p.last_seq) != []
    assert len(calls) == 1
    decisive_at(p, p.last_seq - 1)
    decisive_at(p, p.last_seq - 1)
    assert len(calls) == 2
    ev(b, {"A": 0.2})  # more events: "now" is a new step
    assert len(decisive_at(b.projection)) == 3 and len(calls) == 3


def test_seqs_the_projection_does_not_hold_are_refused() -> None:
    events = list(reference_events())
    full = project(events)
    with pytest.raises(DomainError, match=r"seq 999 is not a step"):
        decisive_at(full, 999)
    restored = project(events[40:], into=restore_fold(dump_fold(project(events[:40]))))
    assert decisive_at(restored, 50) == decisive_at(full, 50)
    with pytest.raises(DomainError, match=r"seq 30 is not a step of this case as held"):
        decisive_at(restored, 30)
    with pytest.raises(DomainError):
        contributions(restored, "pcie-bound", 30)


# --- contributions ----------------------------------------------------------------------------


def assert_contributions(mine: list[Contribution], brute: dict[str, float]) -> None:
    assert {c.evidence_id for c in mine} == set(brute)
    for item in mine:
        expected = brute[item.evidence_id]
        assert item.bits == pytest.approx(expected, abs=TOLERANCE, rel=1e-9), item.evidence_id
    assert [c.seq for c in mine] == sorted((c.seq for c in mine), reverse=True)


@SETTINGS
@given(events=streams())
def test_contributions_match_recomputing_without_each_evidence(events: list[Event]) -> None:
    full = project(events)
    for hid in hypotheses_of(full):
        assert_contributions(contributions(full, hid), brute_contributions(full, hid))
    for seq in range(1, len(events) + 1, 3):
        fresh = project(events[:seq])
        for hid in hypotheses_of(fresh):
            at = contributions(full, hid, seq)
            assert_contributions(at, brute_contributions(fresh, hid))
            # the sums rebuilt from the step's evidence are the fold's, to the bit
            assert at == contributions(fresh, hid)
            assert prior_log_odds_bits(full, hid, seq) == prior_log_odds_bits(fresh, hid)


@cache
def reference_projection() -> Projection:
    return project(list(reference_events()))


@pytest.mark.parametrize(
    "hid", ["pcie-bound", "compute-launch", "link-degraded", "throughput/catch-all"]
)
def test_contributions_on_the_reference_case(hid: str) -> None:
    full = reference_projection()
    events = list(reference_events())
    assert_contributions(contributions(full, hid), brute_contributions(full, hid))
    for seq in range(1, len(events) + 1):
        fresh = project(events[:seq])
        if hid in fresh.hypothesis_question or hid.split("/")[0] in fresh.questions:
            at = contributions(full, hid, seq)
            assert at == contributions(fresh, hid)
            assert_contributions(at, brute_contributions(fresh, hid))


def test_contribution_fields_and_inherited_likelihoods() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.6)
    hyp(b, "A1", "A", 0.5)
    hyp(b, "B", QID, 0.2)
    e1 = ev(b, {"A": 0.8, "B": 0.3}, otherwise=0.4, reliability=0.7, kind="calculated")
    e2 = ev(b, {"A1": 0.9}, otherwise=0.5)
    p = b.projection
    on_child = {c.evidence_id: c for c in contributions(p, "A1")}
    assert on_child["e1"].likelihood == 0.8  # inherited from A, before tempering
    assert on_child["e2"].likelihood == 0.9
    assert on_child["e1"] == Contribution(
        evidence_id="e1",
        seq=e1.seq,
        question_id=QID,
        kind="calculated",
        reliability=0.7,
        likelihood=0.8,
        otherwise=0.4,
        bits=on_child["e1"].bits,
        rationale="because",
        hash=e1.hash,
    )
    assert on_child["e2"].hash == e2.hash and on_child["e2"].bits > 0.0
    assert [c.evidence_id for c in contributions(p, "A1")] == ["e2", "e1"]  # newest first
    on_parent = {c.evidence_id: c for c in contributions(p, "A")}
    assert on_parent["e2"].likelihood == 0.5  # A itself is not named by e2
    on_catch_all = {c.evidence_id: c for c in contributions(p, CATCH)}
    assert on_catch_all["e1"].likelihood == 0.4 and on_catch_all["e1"].bits < 0.0
    # e1 favours A (0.8 against the rest's 0.3 and 0.4): for A, against B
    assert on_parent["e1"].bits > 0.0
    assert {c.evidence_id: c for c in contributions(p, "B")}["e1"].bits < 0.0


def test_a_single_binary_piece_shifts_log_odds_by_its_likelihood_ratio() -> None:
    """Two leaves only (A and the catch-all): the shift is exactly log₂ of the ratio."""
    b = new_case(catch_all=0.1)
    hyp(b, "A", QID, 0.5)
    ev(b, {"A": 0.8}, otherwise=0.2)
    (only,) = contributions(b.projection, "A")
    assert only.bits == pytest.approx(math.log2(0.8 / 0.2), rel=1e-12)
    assert prior_log_odds_bits(b.projection, "A") == pytest.approx(math.log2(0.5 / 0.5), abs=1e-12)
    assert prior_log_odds_bits(b.projection, CATCH) == pytest.approx(0.0, abs=1e-12)


def test_a_retired_hypothesis_has_no_odds_to_move() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9})
    retire(b, "A")
    p = b.projection
    assert [c.bits for c in contributions(p, "A")] == [0.0]
    assert prior_log_odds_bits(p, "A") == -math.inf
    with pytest.raises(DomainError, match="no hypothesis 'ghost'"):
        contributions(p, "ghost")
    with pytest.raises(DomainError, match="not yet proposed at seq 3"):
        contributions(p, "B", 3)


def test_contributions_survive_a_hypothesis_ruled_out_beyond_floating_point() -> None:
    """36 likelihoods of 1e-9 put A ~746 nats down: its probability underflows, its log-odds
    (from the integer scores) do not, and each piece still moves them by ln(1e9)."""
    b = new_case(incremental=True)
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    for _ in range(37):
        ev(b, {"A": 1e-9, "B": 1.0}, otherwise=1.0)
    p = b.projection
    assert p.questions[QID].confidences["A"] == 0.0
    shifts = contributions(p, "A")
    assert all(math.isfinite(c.bits) for c in shifts)
    assert_contributions(shifts, brute_contributions(p, "A"))
    assert shifts[0].bits == pytest.approx(math.log2(1e-9), rel=1e-6)
    # the same at an earlier step, where the sums are rebuilt from the step's evidence
    earlier = contributions(p, "A", p.last_seq - 1)
    assert earlier[0].bits == pytest.approx(math.log2(1e-9), rel=1e-6)


# --- kept under the last seq that changed the beliefs ----------------------------------------


def _scored(projection: Projection) -> tuple[list[Decisive], list[list[Contribution]]]:
    """The decisive ranking now, and every hypothesis's contributions now."""
    return decisive_at(projection), [
        contributions(projection, hid) for hid in sorted(projection.hypothesis_question)
    ]


@SETTINGS
@given(streams())
def test_what_is_kept_between_steps_is_what_a_fresh_fold_scores(events: list[Event]) -> None:
    """A fold that goes on folding (a session, a TUI) keeps the scores of its beliefs under
    the last seq that changed them, so a note or a probe run after them finds them instead of
    scoring every piece of evidence again: at every step they are a fresh fold's."""
    live = Projection()
    for k, event in enumerate(events, start=1):
        project([event], into=live)
        assert _scored(live) == _scored(project(events[:k]))


def test_a_restored_fold_that_goes_on_scores_as_a_fresh_one() -> None:
    """Restored at every seq of the reference case (its ranking installed with it), then
    folded on an event at a time: the scores at each step are a fresh fold's."""
    events = reference_events()
    fresh = [_scored(project(events[:k])) for k in range(len(events) + 1)]
    for cut in range(1, len(events), 7):
        live = restore_fold(dump_fold(project(events[:cut], trajectory=False)))
        assert _scored(live) == fresh[cut]
        for k in range(cut, len(events)):
            project([events[k]], into=live)
            assert _scored(live) == fresh[k + 1], f"cut at {cut}, at seq {k + 1}"


def test_an_event_that_changes_no_belief_keeps_the_scores_it_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reference case's last events after its last belief change are scored once."""
    events = reference_events()
    live = project(events[:1])
    scored: list[int] = []
    original = scoring_module._ranking

    def counted(projection: Projection, seq: int | None) -> Any:
        scored.append(projection.last_seq)
        return original(projection, seq)

    monkeypatch.setattr(scoring_module, "_ranking", counted)
    changes = 0
    for event in events[1:]:
        before = live.beliefs_seq
        project([event], into=live)
        changes += live.beliefs_seq != before
        decisive_at(live)
    assert 0 < len(scored) == changes + 1 < len(events) - 1
