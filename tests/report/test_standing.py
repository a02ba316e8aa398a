"""Ruled out or unlikely (issue 25, item 3): a hypothesis is ruled out only when evidence drove
it below the threshold from above it; one no evidence ever supported reads "unlikely (prior
…)". The TUI board and the report read one rule (``casefile.app.views.standing``)."""

from __future__ import annotations

import pytest

from casefile.app.board import Board
from casefile.app.service import CaseService
from casefile.app.views.standing import RULED_OUT_BELOW, Reached, standing, unlikely_words
from casefile.report import ReportOptions, build_report, render
from casefile.store.memory import MemoryEventStore
from tests.app.view_cases import fixed_clock
from tests.cli.conftest import builtin_registry

CASE = "standing-1"


@pytest.fixture(scope="module")
def service() -> CaseService:
    """``faded`` starts at 40 % and evidence drives it to under 5 %; ``tiny`` starts at 2 %
    and no evidence ever bears on it (it only shrinks as ``main`` grows)."""
    service = CaseService(MemoryEventStore(clock=fixed_clock()), builtin_registry())
    service.writer.new_case("Slow decode", case_id=CASE)
    qid = service.writer.add_question(CASE, "Why is decode slow?", "q", catch_all=0.05)
    service.writer.add_hypothesis(CASE, "the main cause", qid, 0.53, "main")
    service.writer.add_hypothesis(CASE, "a faded cause", qid, 0.4, "faded")
    service.writer.add_hypothesis(CASE, "a tiny cause", qid, 0.02, "tiny")
    for n in range(4):
        service.writer.assess(CASE, {"main": 0.9, "faded": 0.05}, f"reading {n} against faded")
    return service


def test_the_rule() -> None:
    assert standing(0.2, reached=False) is None
    assert standing(RULED_OUT_BELOW, reached=False) is None
    assert standing(0.01, reached=True) == "ruled out"
    assert standing(0.01, reached=False) == "unlikely"
    assert unlikely_words(0.027) == "unlikely (prior 2.7 %)"
    reached = Reached()
    # while hypotheses are proposed one by one the first holds everything: not a verdict
    reached.see(1, "hypothesis.proposed", "q", {"a": 0.9})
    reached.see(2, "hypothesis.proposed", "q", {"a": 0.03, "b": 0.9})
    reached.see(3, "evidence.assessed", "q", {"a": 0.01, "b": 0.9})
    assert not reached.by("a", 3) and reached.prior("a") == 0.03
    reached.see(4, "evidence.assessed", "q", {"a": 0.2, "b": 0.7})
    assert not reached.by("a", 3) and reached.by("a", 4)


def test_the_board_says_ruled_out_only_of_what_evidence_drove_down(service: CaseService) -> None:
    board = Board(service, CASE)
    board.refresh()
    rows = {row.id: row for row in board.frame(board.projection.last_seq).tree}
    assert rows["faded"].confidence < RULED_OUT_BELOW and rows["faded"].status == "ruled out"
    assert rows["tiny"].confidence < RULED_OUT_BELOW and rows["tiny"].status == "unlikely"
    assert rows["main"].status == "open"


def test_the_report_credits_evidence_only_where_it_ruled_out(service: CaseService) -> None:
    report = build_report(service, CASE, ReportOptions())
    ruled = {r.hypothesis: r for r in report.ruled_out}
    assert ruled["faded"].standing == "ruled out" and ruled["faded"].ref is not None
    assert ruled["faded"].bits is not None and ruled["faded"].bits < 0
    tiny = ruled["tiny"]
    assert tiny.standing == "unlikely" and tiny.ref is None and tiny.bits is None
    assert tiny.reason.startswith("unlikely (prior ")
    text = render(report, "md").decode()
    assert "unlikely (prior" in text
