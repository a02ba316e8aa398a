"""Streams the commands would never write (an edited or crafted import) are refused on fold."""

from __future__ import annotations

import pytest

from casefile.domain import commands as c
from casefile.domain.beliefs import project
from casefile.domain.catalogue import validate_payload
from casefile.domain.events import NewEvent
from casefile.domain.rule_loading import rule_from_dict
from casefile.domain.rules import evaluate
from casefile.errors import DomainError, InvalidEvent
from tests.engine.builder import CaseBuilder


def forged(builder: CaseBuilder, event_type: str, payload: dict[str, object]) -> None:
    """Append without the commands' checks (the catalogue still validates the shape)."""
    builder.add(NewEvent(event_type, payload))


def test_priors_that_leave_the_catch_all_nothing_are_refused() -> None:
    b = CaseBuilder()
    b.add(c.propose_question(b.projection, "q", question_id="q"))
    forged(
        b,
        "hypothesis.proposed",
        {"hypothesis_id": "a", "question_id": "q", "text": "a", "prior": 0.7},
    )
    forged(
        b,
        "hypothesis.proposed",
        {"hypothesis_id": "b", "question_id": "q", "text": "b", "prior": 0.5},
    )
    with pytest.raises(DomainError, match=r"seq 4.*catch-all"):
        project(b.events)


def test_the_catch_all_cannot_be_squeezed_to_nothing_by_a_late_hypothesis() -> None:
    b = CaseBuilder()
    b.add(c.propose_question(b.projection, "q", question_id="q"))
    b.add(c.propose_hypothesis(b.projection, "a", "q", 0.5, "a"))
    b.add(c.assess_evidence(b.projection, {"a": 0.9}, "x"))
    with pytest.raises(DomainError, match="catch-all"):
        c.propose_hypothesis(b.projection, "b", "q", 0.49999999999999994, "b")


def test_superseding_evidence_of_another_question_is_refused() -> None:
    b = CaseBuilder()
    b.add(c.propose_question(b.projection, "q1", question_id="q1"))
    b.add(c.propose_question(b.projection, "q2", question_id="q2"))
    b.add(c.propose_hypothesis(b.projection, "a", "q1", 0.5, "a"))
    b.add(c.propose_hypothesis(b.projection, "b", "q2", 0.5, "b"))
    b.add(c.assess_evidence(b.projection, {"a": 0.9}, "x", evidence_id="e1"))
    forged(
        b,
        "evidence.assessed",
        {
            "evidence_id": "e2",
            "question_id": "q2",
            "likelihoods": {"b": 0.9},
            "reliability": 0.9,
            "rationale": "y",
            "supersedes": "e1",
        },
    )
    with pytest.raises(DomainError, match=r"supersedes evidence 'e1'.*q1"):
        project(b.events)


@pytest.mark.parametrize("value", [-5.0, 0.0, 7.0])
def test_likelihoods_out_of_range_are_refused_by_the_catalogue(value: float) -> None:
    with pytest.raises(InvalidEvent, match="likelihoods"):
        validate_payload(
            "evidence.assessed",
            1,
            {"evidence_id": "e", "likelihoods": {"a": value}, "reliability": 0.9, "rationale": "x"},
        )


def test_ids_that_are_not_plain_are_refused_on_fold() -> None:
    b = CaseBuilder()
    b.add(c.propose_question(b.projection, "q", question_id="q"))
    forged(
        b,
        "hypothesis.proposed",
        {"hypothesis_id": "q/catch-all", "question_id": "q", "text": "clash", "prior": 0.2},
    )
    with pytest.raises(DomainError, match="not a plain id"):
        project(b.events)


def test_an_outcome_that_counts_under_any_load_is_not_set_aside() -> None:
    rule = rule_from_dict(
        {
            "id": "r",
            "version": 1,
            "probes": ["p"],
            "rationale": "why",
            "statistic": {"aggregate": "max", "fact": "x"},
            "outcomes": [{"name": "lo", "below": 1, "load": "any"}, {"name": "hi"}],
            "likelihoods": {"otherwise": {"lo": 0.5, "hi": 0.5}},
        },
        question="q",
    )
    from casefile.domain.facts import Fact

    verdict = evaluate(rule, [Fact("x", 0.5, "gpu0")], "under-load")
    assert verdict.__class__.__name__ == "Applied"
