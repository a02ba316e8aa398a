"""The read model at a step: what the TUI frame, the replay and the report rank and read there,
each the domain's own numbers as view rows, and the only place probes are ranked at a step."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.app.views.steps import ProbeRow, Suggestion
from casefile.app.views.steps_at import CaseSteps, Separation
from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.ranking import rank_probes
from casefile.domain.beliefs.scoring import contributions, decisive_at
from tests.app.view_cases import reference_service

ROOT = Path(__file__).resolve().parents[2]
CASE = "glm5-pcie-pivot"


@pytest.fixture(scope="module")
def service() -> CaseService:
    return reference_service()


@pytest.fixture(scope="module")
def projection(service: CaseService) -> Projection:
    return service.reader.projection(CASE)


@pytest.fixture(scope="module")
def steps(service: CaseService, projection: Projection) -> CaseSteps:
    return CaseSteps(projection, service.reader.candidates(projection))


def test_probes_are_ranked_on_the_belief_captured_at_that_step(
    steps: CaseSteps, projection: Projection
) -> None:
    offered = steps.offered
    for seq in (9, 28, 29, 66, 68):
        at = steps.steps_at(seq)
        assert at.seq == seq
        assert at.probes == tuple(ProbeRow.of(p) for p in rank_probes(projection, offered, seq=seq))
    assert steps.steps_at(28).probes != steps.steps_at(30).probes  # the pivot moved them
    now = steps.steps_at()
    assert now.seq == 81 and now.probes == steps.steps_at(68).probes


def test_best_is_the_first_probe_overall_or_on_one_question(steps: CaseSteps) -> None:
    at = steps.steps_at(29)
    assert at.probes and at.best() == at.probes[0]
    question = at.probes[0].question
    assert at.best(question) == next(p for p in at.probes if p.question == question)
    assert at.best("no-such-question") is None


def test_suggestions_are_the_best_probe_where_never_measured_was_raised(
    steps: CaseSteps, projection: Projection
) -> None:
    raised = [
        s.seq for s in projection.trajectory if any(w.code == "never-measured" for w in s.raised)
    ]
    assert raised
    found = steps.suggestions()
    assert list(found) == [seq for seq in raised if steps.steps_at(seq).probes][:20]
    for seq, best in found.items():
        assert best == steps.steps_at(seq).probes[0]
    assert list(steps.suggestions(limit=1)) == list(found)[:1]
    assert steps.suggestions(upto=raised[0] - 1) == {}


def test_the_replay_suggests_what_the_read_model_ranks(service: CaseService) -> None:
    projection = service.reader.projection(CASE)
    expected = CaseSteps(projection, service.reader.candidates(projection)).suggestions()
    shown = {s.seq: s.suggestion for s in service.reader.replay(CASE).steps if s.suggestion}
    assert shown == {seq: Suggestion.of(row) for seq, row in expected.items()}
    assert shown


def test_decisive_and_contributions_are_the_engines_numbers_as_rows(
    steps: CaseSteps, projection: Projection
) -> None:
    rows = steps.decisive()
    assert [(r.evidence, r.seq, r.bits, r.hash) for r in rows] == [
        (d.evidence_id, d.seq, d.bits, d.hash) for d in decisive_at(projection)
    ]
    assert len(steps.decisive(limit=2)) == 2
    leader = projection.questions["throughput"].leader()
    assert [(c.evidence, c.seq, c.bits) for c in steps.contributions(leader)] == [
        (c.evidence_id, c.seq, c.bits) for c in contributions(projection, leader)
    ]
    assert steps.contributions(leader, 30) != steps.contributions(leader)


def test_separating_picks_the_pair_that_tells_two_hypotheses_apart(
    steps: CaseSteps, projection: Projection
) -> None:
    question = projection.questions["throughput"]
    first, second = question.structure.tops[:2]
    found = steps.separating("throughput", first, second)
    assert isinstance(found, Separation) and found.gain_bits > 0.0
    assert any(c.probe == found.probe and c.rule.id == found.rule for c in steps.offered)
    # the same pair measured against each other gives the same gain either way round
    back = steps.separating("throughput", second, first)
    assert back is not None and back.gain_bits == pytest.approx(found.gain_bits)
    assert steps.separating("throughput", first, "no-such-hypothesis") is None
    assert CaseSteps(projection, []).separating("throughput", first, second) is None


def _ranks_at_a_step(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "rank_probes" and any(k.arg == "seq" for k in node.keywords):
                return True
    return False


def test_probes_are_ranked_at_a_step_in_one_place() -> None:
    package = ROOT / "casefile"
    callers = {
        str(path.relative_to(ROOT)) for path in package.rglob("*.py") if _ranks_at_a_step(path)
    }
    assert callers == {"casefile/app/views/steps_at.py"}
