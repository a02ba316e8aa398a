"""The replay view: per-step shape, hashes and texts, suggestions, the summary and its text."""

from __future__ import annotations

import pytest

from casefile.app.views import CATCH_ALL_TEXT, ReplayView, build_replay
from casefile.cli.render import render_replay
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.ranking import ProbeStep
from casefile.domain.events import Event
from tests.app.view_cases import reference_case, small_case

#: the README's keys of every replay step, and the one every step now adds
STEP_KEYS = {
    "seq", "type", "actor", "when", "summary", "detail", "questions", "changes",
    "surprise_bits", "unexpected_bits", "surprising", "warnings_raised", "warnings_cleared",
}  # fmt: skip


@pytest.fixture(scope="module")
def glm5() -> tuple[list[Event], Projection]:
    events, _ = reference_case()
    return events, project(events)


@pytest.fixture(scope="module")
def glm5_replay(glm5: tuple[list[Event], Projection]) -> ReplayView:
    _, projection = glm5
    return build_replay(projection)


def test_every_step_keeps_its_shape_and_names_its_event(
    glm5: tuple[list[Event], Projection], glm5_replay: ReplayView
) -> None:
    events, _ = glm5
    data = glm5_replay.to_json()
    assert set(data) == {"case", "steps", "summary", "names"}
    assert [s["seq"] for s in data["steps"]] == [e.seq for e in events]
    for step, event in zip(data["steps"], events, strict=True):
        extra = {"text", "outcome"} if event.type in ("note.added", "action.taken") else set()
        assert STEP_KEYS | {"hash"} <= set(step) <= STEP_KEYS | {"hash"} | extra
        assert step["hash"] == event.hash
        for question in step["questions"].values():
            assert set(question) == {
                "leader", "leading_leaf", "pivot", "previous_leader", "pivot_depth",
                "previous_leading_leaf", "confidences",
            }  # fmt: skip


def test_notes_and_actions_carry_their_own_words(
    glm5: tuple[list[Event], Projection], glm5_replay: ReplayView
) -> None:
    events, _ = glm5
    by_seq = {s.seq: s for s in glm5_replay.steps}
    for event in events:
        step = by_seq[event.seq]
        if event.type in ("note.added", "action.taken"):
            assert step.text == event.payload["text"]
            assert step.outcome == event.payload.get("outcome")
        else:
            assert step.text is None and step.outcome is None
    assert by_seq[5].to_json()["outcome"] == "decode runs without NaN"
    assert "outcome" not in by_seq[3].to_json()  # an action without one


def test_the_summary_holds_the_pivots_and_who_leads_at_the_end(
    glm5: tuple[list[Event], Projection], glm5_replay: ReplayView
) -> None:
    _, projection = glm5
    expected = [
        (step.seq, qid, old, new)
        for step in projection.pivots()
        for qid, (old, new) in step.pivots.items()
    ]
    pivots = glm5_replay.summary.pivots
    assert [(p.seq, p.question, p.previous_leader, p.leader) for p in pivots] == expected
    assert pivots[0].previous_leader == "pcie-bound" and pivots[0].seq == 29
    [end] = glm5_replay.summary.leaders
    assert end.question == "throughput" and end.leader == "compute-launch"
    assert end.text.startswith("Compute-bound")
    assert end.confidence == pytest.approx(
        projection.questions["throughput"].confidences[end.leader]
    )
    assert glm5_replay.names["throughput/catch-all"] == CATCH_ALL_TEXT


def test_suggestions_ride_on_their_steps_only() -> None:
    case = small_case()
    projection = case.projection
    raised = [
        s.seq for s in projection.trajectory if any(w.code == "never-measured" for w in s.raised)
    ]
    assert raised == [7]
    best = ProbeStep(
        "nvidia-smi-dmon", "q", 0.42, ("pcie-link-busy", "sm-busy"), "cheap", "under-load"
    )
    view = build_replay(projection, suggestions={7: best})
    steps = {s["seq"]: s for s in view.to_json()["steps"]}
    assert steps[7]["suggestion"] == {
        "probe": "nvidia-smi-dmon",
        "expected_gain_bits": 0.42,
        "rules": ["pcie-link-busy", "sm-busy"],
        "load": "under-load",
    }
    assert [seq for seq, s in steps.items() if "suggestion" in s] == [7]
    hint = "→ measure next: nvidia-smi-dmon under load (0.42 bits expected, via pcie-link-busy"
    assert hint in render_replay(view)


def test_upto_stops_the_steps_and_the_summary_there() -> None:
    projection = small_case().projection
    view = build_replay(projection, upto=8)
    assert [s.seq for s in view.steps] == list(range(1, 9))
    assert view.summary.pivots == ()  # the pivot is at 9
    [end] = view.summary.leaders
    assert end.leader == "pcie"
    assert view.case.last_seq == 10  # the header is the whole case's


def test_replay_text_needs_nothing_but_the_view() -> None:
    view = build_replay(small_case().projection)
    lines = render_replay(view).splitlines()
    assert lines[0] == "Replay of case views-1: Slow decode"
    assert any(
        line.startswith("#8 ") and "note: the link looks idle under load" in line for line in lines
    )
    assert (
        "        ⚑ PIVOT [q]: the leading explanation is now compute (compute-bound), was pcie"
        in lines
    )
    assert (
        "        ⚠ [never-measured] 'PCIe-bound' leads on calculated evidence only: never measured"
        in lines
    )
    share = f"{view.summary.leaders[0].confidence * 100:.1f}%"
    assert lines[-3:] == [
        "In short",
        "  #9: [q] pcie → compute",
        f"  [q] leads at the end: compute ({share}) — compute-bound",
    ]


def test_steps_that_changed_nothing_share_one_copy_of_the_confidences() -> None:
    steps = {s.seq: s for s in build_replay(small_case().projection).steps}
    evidence, note = steps[7].questions["q"], steps[8].questions["q"]  # the note moves nothing
    assert note.confidences is evidence.confidences
    assert steps[9].questions["q"].confidences is not evidence.confidences


def test_the_fast_json_text_is_exactly_the_json_of_the_view(glm5_replay: ReplayView) -> None:
    import json

    projection = small_case().projection
    suggested = build_replay(projection, suggestions={})
    for view in (glm5_replay, suggested, build_replay(projection, upto=3)):
        assert view.to_json_text() == json.dumps(view.to_json(), ensure_ascii=False)
