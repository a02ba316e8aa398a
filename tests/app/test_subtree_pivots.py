"""Pivots inside a subtree: the top-level leader holds while the leader among its children (or
deeper) changes. Flagged in the fold with its depth, in replay's JSON and in the board's marks."""

from __future__ import annotations

import json

import pytest

from casefile.app.views.board import MARK_GLYPHS, BoardIndex
from casefile.app.views.replay import build_replay
from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.tree import moved_depth
from tests.engine.reasoning_helpers import ev, hyp, new_case


@pytest.fixture
def case() -> tuple[Projection, dict[str, int]]:
    """pcie (bw, lat) against compute; evidence keeps pcie ahead while lat overtakes bw, then
    vm overtakes acs under lat (two children proposed after the first move)."""
    b = new_case()
    hyp(b, "pcie", "q", 0.5)
    hyp(b, "compute", "q", 0.4)
    hyp(b, "bw", "pcie", 0.6)
    hyp(b, "lat", "pcie", 0.4)
    seqs = {"first": ev(b, {"pcie": 0.8}).seq}  # path pcie → bw
    seqs["lat"] = ev(b, {"bw": 0.1, "lat": 0.9}).seq  # pcie holds; lat leads its siblings
    hyp(b, "acs", "lat", 0.5)
    seqs["grown"] = hyp(b, "vm", "lat", 0.5).seq  # the path grows to acs: no pivot
    seqs["vm"] = ev(b, {"acs": 0.3, "vm": 0.7}).seq
    return b.projection, seqs


def test_the_fold_flags_a_move_between_siblings_with_its_depth(
    case: tuple[Projection, dict[str, int]],
) -> None:
    projection, seqs = case
    moved = {s.seq: s.pivot_depths for s in projection.trajectory if s.pivot_depths}
    assert moved == {seqs["lat"]: {"q": (1, "bw", "lat")}, seqs["vm"]: {"q": (2, "acs", "vm")}}
    # the top-level leader never changed: ``pivots`` keeps its meaning
    assert not projection.pivots()
    assert projection.questions["q"].leader() == "pcie"


def test_replay_json_keeps_pivot_and_adds_the_depth(
    case: tuple[Projection, dict[str, int]],
) -> None:
    projection, seqs = case
    view = build_replay(projection)
    data = view.to_json()
    assert json.loads(view.to_json_text()) == data
    by_seq = {s["seq"]: s["questions"]["q"] for s in data["steps"] if "q" in s["questions"]}
    lat = by_seq[seqs["lat"]]
    assert lat["pivot"] is False and lat["previous_leader"] is None
    assert lat["pivot_depth"] == 1
    assert (lat["previous_leading_leaf"], lat["leading_leaf"]) == ("bw", "lat")
    assert by_seq[seqs["vm"]]["pivot_depth"] == 2
    assert by_seq[seqs["vm"]]["leading_leaf"] == "vm"
    unmoved = [s for seq, s in by_seq.items() if seq not in (seqs["lat"], seqs["vm"])]
    assert all(s["pivot_depth"] is None and s["previous_leading_leaf"] is None for s in unmoved)
    assert data["summary"]["pivots"] == []
    assert data["summary"]["subpivots"] == [
        {"seq": seqs["lat"], "question": "q", "depth": 1, "previous_leaf": "bw", "leaf": "lat"},
        {"seq": seqs["vm"], "question": "q", "depth": 2, "previous_leaf": "acs", "leaf": "vm"},
    ]


def test_the_board_marks_a_subtree_pivot_with_its_own_glyph(
    case: tuple[Projection, dict[str, int]],
) -> None:
    projection, seqs = case
    index = BoardIndex()
    rows = {row.seq: row for row in index.extend(projection)}
    assert index.subpivot_seqs == [seqs["lat"], seqs["vm"]]
    assert index.pivot_seqs == []
    assert rows[seqs["lat"]].marks[0] == "subpivot"
    assert (
        rows[seqs["lat"]].glyphs.startswith(MARK_GLYPHS["subpivot"]) and "◇" in MARK_GLYPHS.values()
    )
    assert "subpivot" not in rows[seqs["grown"]].marks
    assert "subpivot" not in rows[seqs["first"]].marks


def test_a_top_level_pivot_is_depth_zero_and_marked_as_a_pivot() -> None:
    b = new_case()
    hyp(b, "pcie", "q", 0.5)
    hyp(b, "compute", "q", 0.4)
    hyp(b, "bw", "pcie", 0.6)
    hyp(b, "lat", "pcie", 0.4)
    seq = ev(b, {"pcie": 0.1, "compute": 0.9}).seq
    step = b.projection.trajectory[-1]
    assert step.seq == seq and step.pivots == {"q": ("pcie", "compute")}
    assert step.pivot_depths == {"q": (0, "bw", "compute")}
    index = BoardIndex()
    rows = index.extend(b.projection)
    assert rows[-1].marks[0] == "pivot" and "subpivot" not in rows[-1].marks


def test_moved_depth_ignores_a_path_that_only_grows_or_shrinks() -> None:
    assert moved_depth(("a", "b"), ("a", "b", "c")) is None
    assert moved_depth(("a", "b", "c"), ("a",)) is None
    assert moved_depth(("a", "b", "c"), ("a", "d")) == 1
    assert moved_depth(("a",), ("x",)) == 0


def test_the_text_replay_says_where_the_leader_moved_within_its_parent(
    case: tuple[Projection, dict[str, int]],
) -> None:
    from casefile.cli.render.replay import render_replay

    projection, seqs = case
    text = render_replay(build_replay(projection))
    assert "◇ PIVOT within pcie [q], depth 1: now lat" in text
    assert f"#{seqs['vm']}: [q] within the leader, at depth 2: acs → vm" in text
