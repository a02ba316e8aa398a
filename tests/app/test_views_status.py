"""The status view: its JSON shape, warning and next-step grouping, and a long case's text."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from casefile.app.views import (
    CATCH_ALL_TEXT,
    StatusView,
    build_replay,
    build_status,
    runner_up,
    summarise,
)
from casefile.app.views.warning_groups import LazyWarningRows
from casefile.cli.render import render_status
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.ranking import NextStep, ProbeStep
from casefile.domain.beliefs.scoring import decisive_evidence
from casefile.domain.events import Event
from tests.app.view_cases import StoreCase, reference_case, small_case
from tests.timing import cpu_seconds

SET_ASIDE_RULES = ("pcie-link-busy", "sm-busy", "memory-bandwidth-share", "power-headroom",
                   "clock-event-reasons")  # fmt: skip


@pytest.fixture(scope="module")
def glm5() -> tuple[list[Event], Projection]:
    events, _ = reference_case()
    return events, project(events)


@pytest.fixture(scope="module")
def glm5_status(glm5: tuple[list[Event], Projection]) -> StatusView:
    _, projection = glm5
    return build_status(projection, decisive=decisive_evidence(projection))


def test_json_keeps_the_documented_shape_and_only_adds_keys(glm5_status: StatusView) -> None:
    data = glm5_status.to_json()
    assert set(data) == {
        "case", "questions", "hypotheses", "warnings", "warning_groups", "next_steps",
        "next_step_groups", "best_probes", "decisive_evidence", "concluded", "integrity",
    }  # fmt: skip
    assert set(data["case"]) == {"id", "title", "symptom", "events", "last_seq", "head_hash"}
    assert set(data["questions"][0]) >= {
        "id", "text", "leader", "leading_leaf", "runner_up", "entropy_bits", "evidence", "playbook",
    }  # fmt: skip
    for row in data["hypotheses"]:
        assert set(row) == {
            "id", "text", "parent", "question", "confidence", "prior", "status", "meaning", "depth",
        }  # fmt: skip
        assert isinstance(row["confidence"], float)
    for warning in data["warnings"]:
        assert set(warning) == {"code", "message", "seq", "question", "subject"}
    for item in data["decisive_evidence"]:
        assert set(item) == {"evidence", "seq", "question", "kind", "bits", "rationale", "hash"}
    assert set(data["concluded"]) == {
        "summary", "root_cause", "recommendations", "lessons", "seq", "hash",
    }  # fmt: skip


def test_header_and_hashes_name_the_events_they_come_from(
    glm5: tuple[list[Event], Projection], glm5_status: StatusView
) -> None:
    events, projection = glm5
    assert glm5_status.case.head_hash == events[-1].hash
    assert glm5_status.case.events == glm5_status.case.last_seq == len(events)
    for item in glm5_status.decisive_evidence:
        assert item.hash == events[item.seq - 1].hash
    assert glm5_status.concluded is not None
    assert glm5_status.concluded.hash == events[glm5_status.concluded.seq - 1].hash
    [question] = glm5_status.questions
    assert question.runner_up == runner_up(projection.questions["throughput"])
    assert question.leader_text.startswith("Compute-bound")


def test_the_catch_all_is_named_by_one_constant(glm5_status: StatusView) -> None:
    catch_all = next(h for h in glm5_status.hypotheses if h.id == "throughput/catch-all")
    assert catch_all.text == CATCH_ALL_TEXT == "something not yet named"
    assert glm5_status.hypotheses[-1] is catch_all  # last of its question


def test_set_aside_warnings_are_grouped_per_rule(glm5_status: StatusView) -> None:
    assert len(glm5_status.warnings) == 10  # two idle readings, five rules each
    groups = glm5_status.warning_groups
    assert [g.rule for g in groups] == list(SET_ASIDE_RULES)
    assert all(g.code == "set-aside" and g.count == 2 for g in groups)
    assert groups[0].latest_seqs == (41, 54) and groups[0].first_seq == 41
    assert groups[0].message.startswith("readings set aside by rule pcie-link-busy: taken at idle")
    assert sum(g.count for g in groups) == len(glm5_status.warnings)


def test_status_text_prints_one_line_per_warning_group(glm5_status: StatusView) -> None:
    text = render_status(glm5_status)
    warnings = [line for line in text.splitlines() if line.startswith("  ⚠")]
    assert len(warnings) == len(SET_ASIDE_RULES)
    assert all("(2×, seqs " in line for line in warnings)
    assert "  leader: compute-launch — Compute-bound" in text
    assert "  strongest alternative: collective-latency — Collective latency" in text
    assert "throughput/catch-all" in text and "Concluded (seq 68)" in text


def long_case(readings: int = 400) -> StoreCase:
    """``readings`` idle readings, each set aside by five rules, and three that did not parse."""
    case = StoreCase("Idle readings")
    case.question()
    case.hypothesis("pcie", "q", 0.5)
    case.evidence({"pcie": 0.8}, kind="calculated", reliability=0.6)
    for n in range(readings):
        _, seen = case.probe(b"utilization.gpu [%]\n0 %\n", load="idle", facts=[
            {"name": "utilization.gpu", "value": 0, "unit": "%", "subject": "gpu0"},
        ])  # fmt: skip
        case.set_aside(seen.seq, SET_ASIDE_RULES)
        if n % 150 == 0:
            case.probe(b"garbage\n", parsed=False)
    return case


def test_two_thousand_set_aside_readings_print_in_a_few_lines_and_fast() -> None:
    projection = long_case().projection
    elapsed = cpu_seconds(lambda: render_status(build_status(projection)), rounds=1)
    view = build_status(projection)
    text = render_status(view)
    assert len(view.warnings) == 2000 + 3 + 1  # set aside, unparsed, never measured
    assert len(text.splitlines()) < 40  # far under 200
    assert elapsed < 1.0, elapsed
    counts = {(g.code, g.rule): g.count for g in view.warning_groups}
    expected: dict[tuple[str, str | None], int] = {("never-measured", None): 1}
    expected.update({("set-aside", rule): 400 for rule in SET_ASIDE_RULES})
    expected[("unparsed", None)] = 3
    assert counts == expected
    busy = next(g for g in view.warning_groups if g.rule == "sm-busy")
    assert len(busy.latest_seqs) == 3 and list(busy.latest_seqs) == sorted(busy.latest_seqs)
    assert busy.latest_seqs[-1] == max(w.seq for w in view.warnings if w.rule == "sm-busy")
    assert "(400×, latest seqs " in text and "(3×, seqs " in text


def test_next_steps_are_grouped_by_rule_in_rank_order() -> None:
    def step(probe: str, rule: str, gain: float, cost: str) -> NextStep:
        return NextStep(probe, rule, 1, "q", gain, cost, "under-load", f"why {rule}")

    ranked = [
        step("dmon", "busy", 0.5, "cheap"),
        step("smi-q", "link", 0.4, "cheap"),
        step("nvml", "busy", 0.5, "moderate"),
    ]
    view = build_status(small_case().projection, next_steps=ranked)
    assert [(g.rule, [p.probe for p in g.probes]) for g in view.next_step_groups] == [
        ("busy", ["dmon", "nvml"]),
        ("link", ["smi-q"]),
    ]
    data = view.to_json()
    assert data["next_steps"][0] == {
        "probe": "dmon", "rule": "busy", "rule_version": 1, "question": "q",
        "expected_gain_bits": 0.5, "cost": "cheap", "load": "under-load", "rationale": "why busy",
        "separates": "", "leaders_gain_bits": 0.0, "remedy_weight": 1.0, "ranked_bits": 0.0,
    }  # fmt: skip
    assert data["next_step_groups"][0]["probes"] == [
        {"probe": "dmon", "cost": "cheap"},
        {"probe": "nvml", "cost": "moderate"},
    ]
    text = render_status(view)
    assert (
        "  1. 0.000 ranked  0.500 bits  rule busy under load: dmon (cheap), nvml (moderate)" in text
    )


def test_next_steps_show_the_figure_they_are_ranked_by() -> None:
    """The order weighs the leaders' bits by cost: a cheap step telling less in all comes
    before a moderate one telling more, and the lines show the figure that puts it there."""
    ranked = [
        NextStep("dmon", "busy", 1, "q", 0.050, "cheap", "idle", "", leaders_gain_bits=0.040),
        NextStep("nvml", "link", 1, "q", 0.059, "moderate", "idle", "", leaders_gain_bits=0.042),
    ]
    probes = [
        ProbeStep("dmon", "q", 0.050, ("busy",), "cheap", "idle", leaders_gain_bits=0.040),
        ProbeStep("nvml", "q", 0.059, ("link",), "moderate", "idle", leaders_gain_bits=0.042),
    ]
    view = build_status(small_case().projection, next_steps=ranked, best_probes=probes)
    text = render_status(view).splitlines()
    assert "  1. 0.038 ranked  0.050 bits  rule busy: dmon (cheap)" in text
    assert "  2. 0.036 ranked  0.059 bits  rule link: nvml (moderate)" in text
    assert "  1. 0.038 ranked  0.050 bits  dmon (cheap): busy" in text
    data = view.to_json()
    assert [g["ranked_bits"] for g in data["next_step_groups"]] == pytest.approx([0.038, 0.0357])
    assert data["best_probes"][1]["leaders_gain_bits"] == 0.042
    assert data["best_probes"][1]["ranked_bits"] == pytest.approx(0.0357)


def test_views_are_frozen_plain_data_with_no_way_back_into_the_fold(
    glm5_status: StatusView,
) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        glm5_status.case.title = "changed"  # type: ignore[misc]
    assert not hasattr(glm5_status, "__dict__")  # slots

    def plain(value: Any) -> None:
        if dataclasses.is_dataclass(value):
            for f in dataclasses.fields(value):
                plain(getattr(value, f.name))
        elif isinstance(value, tuple | list | LazyWarningRows):  # rows built when first read
            for item in value:
                plain(item)
        elif isinstance(value, dict):
            for item in value.values():
                plain(item)
        else:
            assert value is None or isinstance(value, str | int | float | bool), type(value)

    plain(glm5_status)
    data = glm5_status.to_json()
    data["hypotheses"][0]["text"] = "scribbled"
    assert glm5_status.to_json()["hypotheses"][0]["text"] != "scribbled"


def test_views_built_from_explicit_arguments_match_the_defaults(
    glm5: tuple[list[Event], Projection], glm5_status: StatusView
) -> None:
    events, projection = glm5
    explicit = build_status(projection, next_steps=[], decisive=decisive_evidence(projection))
    assert explicit.to_json() == glm5_status.to_json()
    assert build_replay(projection, upto=3).to_json()["steps"][-1]["seq"] == 3
    assert summarise(events[1], projection).startswith("note: ")
