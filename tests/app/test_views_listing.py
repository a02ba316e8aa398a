"""One line per thing: log rows and case rows, their JSON and their text."""

from __future__ import annotations

from casefile.app.views import (
    CATCH_ALL_TEXT,
    build_case_header,
    build_case_row,
    build_log,
    summarise,
)
from casefile.cli.render import render_cases, render_log, render_log_row
from casefile.domain.beliefs import project
from tests.app.view_cases import StoreCase, reference_case, small_case


def test_log_rows_carry_times_actor_summary_and_hash() -> None:
    events, _ = reference_case()
    projection = project(events)
    rows = build_log(events, projection)
    assert [r.seq for r in rows] == [e.seq for e in events]
    for row, event in zip(rows, events, strict=True):
        assert row.to_json() == {
            "seq": event.seq,
            "when": event.when,
            "recorded_at": event.recorded_at,
            "occurred_at": event.occurred_at,
            "actor": event.actor,
            "type": event.type,
            "summary": summarise(event),
            "hash": event.hash,
        }
    text = render_log(rows, build_case_header(projection)).splitlines()
    assert text[0] == f"Case glm5-pcie-pivot: {projection.title}"
    assert text[2] == (
        "#2    2026-03-02 09:03 UTC  assistant note: Set up the ML environment: NVIDIA driver, "
        "CUDA Toolkit 13.1 and a Python venv on Ubuntu 24.04; flash-attn build problems worked "
        "through."
    )
    assert render_log(rows, projection.title, "glm5-pcie-pivot").splitlines() == text
    assert render_log_row(rows[1]) == text[2]


def test_log_rows_need_no_fold() -> None:
    events = small_case().events
    assert [r.summary for r in build_log(events)] == [summarise(e) for e in events]


def test_a_case_row_without_a_fold_keeps_the_cases_json_keys() -> None:
    case = StoreCase("Slow decode")
    case.note("first look")
    events = case.events
    row = build_case_row(
        case.case_id, events[0], events[-1].seq, events[-1].hash, events[-1].recorded_at, None
    )
    data = row.to_json()
    assert {k: data[k] for k in ("id", "title", "opened", "events")} == {
        "id": "views-1",
        "title": "Slow decode",
        "opened": events[0].recorded_at,
        "events": 2,
    }
    assert data["symptom"] == "11 tok/s single stream"
    assert data["last_activity"] == events[-1].recorded_at and data["head_hash"] == events[-1].hash
    assert data["leaders"] is None
    assert (
        render_cases([row])
        == f"views-1  {events[0].recorded_at[:10]} {events[0].recorded_at[11:16]} UTC"
        "      2 events  Slow decode"
    )


def test_a_folded_case_row_names_who_leads_each_question() -> None:
    case = small_case()
    case.question("other", "Is it the host?")  # no hypotheses: the catch-all leads
    events, projection = case.events, case.projection
    row = build_case_row(case.case_id, events[0], len(events), events[-1].hash, None, projection)
    assert row.leaders is not None
    leaders = {r.question: r for r in row.leaders}
    assert leaders["q"].id == "compute" and leaders["q"].text == "compute-bound"
    assert leaders["q"].confidence == projection.questions["q"].confidences["compute"]
    assert leaders["other"].id == "other/catch-all" and leaders["other"].text == CATCH_ALL_TEXT
    assert "[q: compute " in render_cases([row])


def test_a_case_with_no_first_event_still_gets_a_row() -> None:
    row = build_case_row("empty", None, 0, None, None)
    assert row.to_json()["title"] == "" and row.opened is None and row.events == 0
