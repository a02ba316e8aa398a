"""The fold reads each small payload as the model of its type, and the big ones as stored."""

from __future__ import annotations

import pytest

from casefile.domain.beliefs import project
from casefile.domain.events import NewEvent, seal
from casefile.errors import DomainError
from tests.engine.builder import CaseBuilder


def unchecked(builder: CaseBuilder, event_type: str, payload: dict[str, object]) -> None:
    """Append a payload the catalogue would refuse (an edited import that skipped checks)."""
    last = builder.events[-1]
    new = NewEvent(event_type, payload)
    builder.events.append(seal("case-1", last.seq + 1, last.hash, new, "2026-01-02T00:00:00Z"))


def opened() -> CaseBuilder:
    b = CaseBuilder()
    b.add(NewEvent("question.proposed", {"question_id": "q", "text": "why slow?"}))
    return b


@pytest.mark.parametrize(
    ("event_type", "payload", "field"),
    [
        ("hypothesis.proposed", {"hypothesis_id": "a", "question_id": "q", "text": "a"}, "prior"),
        (
            "hypothesis.proposed",
            {"hypothesis_id": "a", "question_id": "q", "text": "a", "prior": 0.2, "odd": 1},
            "odd",
        ),
        ("question.proposed", {"question_id": "q2", "text": "t", "catch_all": 1.5}, "catch_all"),
        ("hypothesis.retired", {"hypothesis_id": "a"}, "reason"),
    ],
)
def test_a_payload_that_does_not_validate_is_refused_naming_its_seq(
    event_type: str, payload: dict[str, object], field: str
) -> None:
    b = opened()
    unchecked(b, event_type, payload)
    for trajectory in (True, False):
        with pytest.raises(DomainError, match=rf"^seq 3: {event_type}: field '{field}'"):
            project(b.events, trajectory=trajectory)


def test_defaults_come_from_the_model() -> None:
    """A question without ``catch_all`` reserves the model's 0.1; evidence without
    ``otherwise`` or ``kind`` reads as the model's 0.5 and ``measured``, exactly as evidence that
    writes them out, while the fold keeps the payload as it was stored."""
    folds = []
    for written in (True, False):
        b = opened()
        hypothesis = {"hypothesis_id": "a", "question_id": "q", "text": "a", "prior": 0.5}
        b.add(NewEvent("hypothesis.proposed", hypothesis))
        evidence = {"evidence_id": "e", "likelihoods": {"a": 0.9}, "reliability": 0.8}
        evidence["rationale"] = "r"
        if written:
            b.add(NewEvent("evidence.assessed", {**evidence, "otherwise": 0.5, "kind": "measured"}))
        else:
            unchecked(b, "evidence.assessed", evidence)
        fold = project(b.events)
        # what the fold keeps is the payload as stored, its likelihoods that very dict
        assert fold.evidence["e"].payload is b.events[-1].payload
        assert fold.evidence["e"].likelihoods is b.events[-1].payload["likelihoods"]
        assert ("otherwise" in fold.evidence["e"].payload) is written
        folds.append(fold)
    explicit, bare = folds
    assert bare.questions["q"].catch_all_reserve == 0.1
    assert (bare.evidence["e"].otherwise, bare.evidence["e"].kind) == (0.5, "measured")
    assert bare.confidences() == explicit.confidences()


def test_an_observation_is_kept_as_stored_and_only_its_parse_is_read() -> None:
    """An observation's facts are never validated by the fold (a fact the model would refuse
    folds), and an observation that did not parse still raises its warning."""
    b = opened()
    run = {"probe": "p", "argv": ["p"], "host": "h", "source": "local"}
    b.add(NewEvent("probe.ran", run))
    odd_fact = {"name": "x", "value": [1, 2]}  # not a FactRecord value
    unchecked(
        b,
        "observation.recorded",
        {
            "probe_run_seq": 3,
            "probe": "p",
            "facts": [odd_fact],
            "parsed": False,
            "problems": ["no table"],
        },
    )
    fold = project(b.events)
    assert fold.observations[4]["facts"] == [odd_fact]
    assert fold.observations[4] is b.events[-1].payload
    assert [w.code for w in fold.warnings.all()] == ["unparsed"]
