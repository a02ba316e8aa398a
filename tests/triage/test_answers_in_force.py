"""The answers in force, kept as evidence is folded, are what reading every piece of evidence
says, through answers, re-answers and answers superseded by other evidence; and each recorded
run reads only what is new (an ingest of thousands of runs asked twice per run)."""

from __future__ import annotations

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.domain import triage
from casefile.domain.beliefs import Projection
from casefile.domain.intake import IntakeQuestion
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry


def scanned(projection: Projection, question: IntakeQuestion) -> tuple[str, str] | None:
    """The answer in force, read from every piece of evidence (what the index must equal)."""
    found = None
    for state in projection.evidence.values():
        rule = state.rule
        if state.active and rule is not None and rule.get("id") == question.rule_id:
            found = (state.id, str(state.outcome))
    return found


def test_the_index_agrees_with_a_full_read_at_every_step() -> None:
    registry = builtin_registry()
    questions = registry.playbook("gpu-throughput").intake
    with CaseService(MemoryEventStore(), registry) as service:
        case = service.writer.new_case("slow", playbook="gpu-throughput", who=Who("t"))
        session = service.sessions.session(case)  # one fold, kept: the index follows it as it grows

        def agree() -> None:
            projection = session.projection
            for question in questions:
                assert triage.active_answer(projection, question) == scanned(projection, question)

        agree()
        service.writer.answer_intake(case, {"scaling": "worse", "platform": "VM"}, who=Who("t"))
        agree()
        service.writer.answer_intake(case, {"scaling": "no"}, who=Who("t"))  # a re-answer
        agree()
        scaling = next(q for q in questions if q.id == "scaling")
        answer = triage.active_answer(session.projection, scaling)
        assert answer is not None and answer[1] == "no"
        hypothesis = next(iter(session.projection.hypothesis_question))
        service.writer.assess(  # superseded by evidence that is no answer: no answer in force
            case, {hypothesis: 0.6}, "re-read", Who("t"), supersedes=answer[0]
        )
        agree()
        assert triage.active_answer(session.projection, scaling) is None
