"""The case list's leader column tells a case with no question yet from a long case the list
did not fold (its leaders come with its status, or once it is opened)."""

from __future__ import annotations

from casefile.app.views import LeaderRow
from casefile.tui.screens.case_list import _leader_cell


def test_a_case_the_list_did_not_fold_says_so() -> None:
    assert _leader_cell(None) == "(open it)"


def test_a_case_with_no_question_shows_a_dash() -> None:
    assert _leader_cell(()) == "—"


def test_a_folded_case_shows_its_first_leader() -> None:
    leaders = (
        LeaderRow("throughput", "compute-launch", "Compute-bound", 0.474),
        LeaderRow("other", "x", "X", 0.9),
    )
    assert _leader_cell(leaders).startswith("compute-launch 47.4")
