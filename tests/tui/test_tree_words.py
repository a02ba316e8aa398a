"""The hypothesis tree says "unlikely" as the report does, with the prior the hypothesis held
before evidence ("unlikely (prior 2.0 %)"), where the pane is wide enough (issue 25)."""

from __future__ import annotations

import pytest

from casefile.app.board import Board
from casefile.app.service import CaseService
from casefile.app.views.board import TreeRow
from casefile.app.views.standing import unlikely_words
from casefile.store.memory import MemoryEventStore
from casefile.tui.widgets.hypotheses import hypothesis_text
from tests.app.view_cases import fixed_clock
from tests.cli.conftest import builtin_registry

CASE = "tree-words-1"


def tree_rows() -> dict[str, TreeRow]:
    """``tiny`` starts at 2 % and no evidence bears on it; ``faded`` is driven under 5 %."""
    service = CaseService(MemoryEventStore(clock=fixed_clock()), builtin_registry())
    service.writer.new_case("Slow decode", case_id=CASE)
    qid = service.writer.add_question(CASE, "Why is decode slow?", "q", catch_all=0.05)
    service.writer.add_hypothesis(CASE, "the main cause", qid, 0.53, "main")
    service.writer.add_hypothesis(CASE, "a faded cause", qid, 0.4, "faded")
    service.writer.add_hypothesis(CASE, "a tiny cause", qid, 0.02, "tiny")
    for n in range(4):
        service.writer.assess(CASE, {"main": 0.9, "faded": 0.05}, f"reading {n} against faded")
    board = Board(service, CASE)
    board.refresh()
    return {row.id: row for row in board.frame(board.projection.last_seq).tree}


def test_unlikely_says_the_prior_where_the_width_allows() -> None:
    rows = tree_rows()
    tiny, faded = rows["tiny"], rows["faded"]
    assert tiny.status == "unlikely" and tiny.prior == pytest.approx(0.02)
    assert faded.prior is None
    wide = hypothesis_text(tiny, 120)
    assert unlikely_words(0.02) == "unlikely (prior 2.0 %)"
    assert "unlikely (prior 2.0 %)" in wide
    narrow = hypothesis_text(tiny, 80)
    assert "unlikely" in narrow and "prior" not in narrow and len(narrow) <= 80
    assert "ruled out" in hypothesis_text(faded, 120)
