"""The board behind the TUI: frames at any step from the captured snapshots, the quick glance
of a long case, and the evidence preview, each agreeing with the service's own views."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.board import Board
from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import builtin_registry

REFERENCE = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"
CASE = "glm5-pcie-pivot"


@pytest.fixture
def service(tmp_path: Path) -> CaseService:
    service = CaseService(SqlEventStore(f"sqlite:///{tmp_path / 'b.db'}"), builtin_registry())
    service.library.import_directory(REFERENCE)
    return service


def test_every_frame_matches_status_at_that_step(service: CaseService) -> None:
    board = Board(service, CASE)
    state = board.refresh()
    assert len(state.rows) == 81 and state.pivots == (29, 66)
    for seq in (9, 18, 28, 29, 30, 66, 68, 81):
        frame = board.frame(seq)
        status = CaseService(service.store, service.registry).reader.status(CASE, upto=seq)
        shown = {row.id: row.confidence for row in frame.tree}
        assert {h.id: shown[h.id] for h in status.hypotheses} == {
            h.id: h.confidence for h in status.hypotheses
        }
        assert frame.questions[0].leader == status.questions[0].leader
        assert [p.probe for p in frame.next_steps] == [p.probe for p in status.best_probes]


def test_marks_sit_on_the_steps_that_earned_them(service: CaseService) -> None:
    rows = Board(service, CASE).refresh().rows
    marks = {row.seq: row.marks for row in rows}
    assert "pivot" in marks[29] and "surprise" in marks[29] and "evidence" in marks[29]
    assert "set-aside" in marks[41]
    assert marks[2] == ()  # a note moves nothing


def test_a_glance_shows_the_head_without_folding_the_history(service: CaseService) -> None:
    service.reader.status(CASE)  # as any command would have: a saved fold may exist
    board = Board(service, CASE)
    glance = board.glance()
    assert glance.partial and glance.frame.seq == 81 and not glance.frame.history
    status = service.reader.status(CASE)
    assert {r.id: r.confidence for r in glance.frame.tree} == {
        h.id: h.confidence for h in status.hypotheses
    }
    assert all(r.series == () for r in glance.frame.tree)
    full = board.refresh()
    assert not full.partial and full.frame.history and len(full.rows) == 81


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"probe_run_seq": 63}, "seq 63 is not a probe run of this case"),
        ({"supersedes": "e99"}, "no evidence 'e99' to supersede (active: … "),
        ({}, "hypothesis 'pcie-bound' is retired"),
    ],
)
def test_the_evidence_preview_refuses_what_the_record_would(
    service: CaseService, options: dict[str, object], problem: str
) -> None:
    """The preview builds the record's own event and drops it, so what the case would refuse
    on record is refused as the form is typed, in the same words (a retired hypothesis slipped
    past the preview's own checks before)."""
    from casefile.errors import DomainError

    table = {"collective-latency": 0.9}
    if not options:
        service.writer.retire_hypothesis(CASE, "pcie-bound", "ruled out by the link reading")
        table = {"pcie-bound": 0.9}
    board = Board(service, CASE)
    board.refresh()
    with pytest.raises(DomainError) as preview:
        board.preview_evidence(table, 0.4, "measured", None, **options)  # type: ignore[arg-type]
    assert problem in str(preview.value)
    with pytest.raises(DomainError) as record:
        service.writer.assess(CASE, table, "check", otherwise=0.4, **options)  # type: ignore[arg-type]
    assert str(record.value) == str(preview.value)


def test_the_evidence_preview_is_what_recording_gives(service: CaseService) -> None:
    board = Board(service, CASE)
    board.refresh()
    table = {"collective-latency": 0.9, "compute-launch": 0.1}
    preview = board.preview_evidence(table, 0.4, "measured", None)
    assert preview.leader_before == "compute-launch"
    assert preview.leader_after == "collective-latency"
    service.writer.assess(CASE, table, "preview check", otherwise=0.4)
    after = {h.id: h.confidence for h in service.reader.status(CASE).hypotheses}
    for row in preview.rows:
        if row.id in after:
            assert row.after == pytest.approx(after[row.id], abs=1e-9)
