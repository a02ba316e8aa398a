"""Ranking at any step reads the step's snapshot: the same as ranking a fresh fold to there."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
from casefile.domain.beliefs.ranking import (
    Candidate,
    outcome_table,
    question_entropy,
    rank_next_steps,
    rank_probes,
)
from casefile.domain.events import Event
from casefile.errors import DomainError

from .streams import candidates_for, streams
from .test_fold_codec import reference_candidates, reference_events

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def assert_ranks_like_a_fresh_fold(events: list[Event], candidates: list[Candidate]) -> None:
    full = project(events)
    assert rank_next_steps(full, candidates) == rank_next_steps(full, candidates, seq=full.last_seq)
    assert rank_probes(full, candidates) == rank_probes(full, candidates, seq=full.last_seq)
    for seq in range(1, len(events) + 1):
        fresh = project(events[:seq])
        assert rank_next_steps(full, candidates, seq=seq) == rank_next_steps(fresh, candidates)
        assert rank_probes(full, candidates, seq=seq) == rank_probes(fresh, candidates)
        step = full.step_at(seq)
        assert step is not None
        for qid, snapshot in step.snapshots.items():
            assert question_entropy(snapshot) == question_entropy(fresh.questions[qid])
            assert rank_next_steps(full, candidates, qid, seq=seq) == rank_next_steps(
                fresh, candidates, qid
            )


def test_the_reference_case_ranks_at_every_seq_as_a_fresh_fold_does() -> None:
    events = list(reference_events())
    candidates = reference_candidates()
    assert_ranks_like_a_fresh_fold(events, candidates)
    # not vacuous: the ranking moves over the case
    full = project(events)
    tops = {rank_next_steps(full, candidates, seq=s)[0].rule_id for s in range(20, len(events))}
    assert len(tops) > 1


@SETTINGS
@given(events=streams())
def test_random_cases_rank_at_every_seq_as_a_fresh_fold_does(events: list[Event]) -> None:
    assert_ranks_like_a_fresh_fold(events, candidates_for(events))


def test_a_restored_projection_ranks_its_own_steps_and_refuses_older_ones() -> None:
    events = list(reference_events())
    candidates = reference_candidates()
    full = project(events)
    restored = project(events[30:], into=restore_fold(dump_fold(project(events[:30]))))
    for seq in (31, 45, len(events)):
        assert rank_probes(restored, candidates, seq=seq) == rank_probes(full, candidates, seq=seq)
    assert rank_next_steps(restored, candidates) == rank_next_steps(full, candidates)
    with pytest.raises(DomainError, match="seq 12 is not a step"):
        rank_next_steps(restored, candidates, seq=12)
    with pytest.raises(DomainError, match="seq 500 is not a step"):
        rank_probes(full, candidates, seq=500)


def test_outcome_tables_are_the_same_from_the_live_tree_and_from_a_structure() -> None:
    full = project(list(reference_events()))
    for question in full.questions.values():
        keys, _ = question.leaf_distribution
        for candidate in reference_candidates():
            if candidate.rule.question == question.id:
                live = outcome_table(question, keys, candidate.rule)
                assert live == outcome_table(question.structure, keys, candidate.rule)
