"""The report's view of a case: one fold read as frozen views (questions, evidence, readings,
the trajectory step by step), the status at that seq, and the event hashes a report is checked
against."""

from __future__ import annotations

import dataclasses

import pytest

from casefile.app.service import CaseService
from casefile.app.views.report_sources import ReportSources, build_report_sources
from casefile.domain.beliefs import Projection
from casefile.errors import DomainError
from tests.app.view_cases import reference_service

CASE = "glm5-pcie-pivot"


@pytest.fixture(scope="module")
def service() -> CaseService:
    return reference_service()


@pytest.fixture(scope="module")
def sources(service: CaseService) -> ReportSources:
    return service.reader.report_sources(CASE)


def test_the_trajectory_is_every_step_with_its_confidences(
    service: CaseService, sources: ReportSources
) -> None:
    projection = service.reader.projection(CASE)
    assert [e.seq for e in sources.events] == list(range(1, 82))
    assert [s.seq for s in sources.trajectory] == [s.seq for s in projection.trajectory]
    for view, step in zip(sources.trajectory, projection.trajectory, strict=True):
        assert view.type == step.type and view.changed == step.changed
        assert view.pivots == step.pivots and view.surprise_bits == step.surprise_bits
        assert view.confidences == {q: s.confidences for q, s in step.snapshots.items()}
        assert [w.code for w in view.raised] == [w.code for w in step.raised]
        assert [w.question for w in view.cleared] == [w.question_id for w in step.cleared]
    pivots = [s.seq for s in sources.trajectory if s.pivots]
    assert pivots == [29, 66]
    # a step that moved nothing shares the mapping of the step before
    still = next(s for s in sources.trajectory[1:] if not s.changed)
    before = sources.trajectory[still.seq - 2]
    assert still.confidences is before.confidences


def test_questions_and_evidence_are_the_folds_as_views(
    service: CaseService, sources: ReportSources
) -> None:
    projection = service.reader.projection(CASE)
    for qid, question in projection.questions.items():
        view = sources.fold.questions[qid]
        assert view.text == question.text and view.leader == question.leader()
        assert view.tops == tuple(question.structure.tops)
        assert view.confidences == question.confidences
        assert list(view.nodes) == list(question.nodes)
        for hid, node in question.nodes.items():
            assert view.nodes[hid].parent_id == node.parent_id
            assert view.nodes[hid].children == tuple(node.children)
            structure = question.structure
            assert view.depths[hid] == structure.depth[structure.index[hid]]
    assert [e.id for e in sources.fold.evidence] == list(projection.evidence)
    for seen, state in zip(sources.fold.evidence, projection.evidence.values(), strict=True):
        assert (seen.seq, seen.hash, seen.likelihoods, seen.otherwise) == (
            state.seq,
            state.hash,
            state.likelihoods,
            state.otherwise,
        )
        assert seen.superseded_by == state.superseded_by and seen.rationale == state.rationale
    assert sources.fold.observations == projection.observations
    assert sources.fold.probe_runs == projection.probe_runs
    assert sources.fold.hypothesis_question == projection.hypothesis_question
    assert list(sources.fold.set_asides) == projection.set_asides
    assert sources.decisive == sources.steps.decisive()
    with pytest.raises(dataclasses.FrozenInstanceError):
        sources.fold.questions["throughput"].leader = "x"  # type: ignore[misc]


def test_upto_reads_the_case_as_it_stood_then(service: CaseService) -> None:
    then = service.reader.report_sources(CASE, 30)
    assert then.upto == 30 and len(then.events) == 30 and then.trajectory[-1].seq == 30
    status = service.reader.status(CASE, upto=30)
    assert {h.id: h.confidence for h in then.status.hypotheses} == {
        h.id: h.confidence for h in status.hypotheses
    }
    with pytest.raises(DomainError, match="has no event 99 \\(events 1–81\\)"):
        service.reader.report_sources(CASE, 99)


def test_a_fold_without_its_history_is_refused() -> None:
    with pytest.raises(DomainError, match="needs the whole history"):
        build_report_sources("empty", Projection(), [], None)


def test_event_hashes_are_the_chain_in_seq_order(service: CaseService) -> None:
    assert service.reader.event_hashes(CASE) == tuple(e.hash for e in service.reader.events(CASE))
