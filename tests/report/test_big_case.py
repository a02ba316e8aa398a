"""A long case (issue 10): the chart stays small — every pivot plotted, then only the evidence
that moved most — and the report still renders and verifies."""

from __future__ import annotations

import pytest

from casefile.app.service import CaseService
from casefile.report import Report, ReportOptions, build_report, render, render_chart, verify_report
from casefile.report.reasoning import MAX_POINTS
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

EVENTS = 3000


@pytest.fixture(scope="module")
def big() -> tuple[CaseService, str, Report]:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from commands_harness import ARTIFACT, sealed_case

    from casefile.domain.events import sha256_hex

    digest = sha256_hex(ARTIFACT)
    store = MemoryEventStore()
    store.import_case(sealed_case("big", EVENTS, digest), {digest: ARTIFACT})
    service = CaseService(store, builtin_registry())
    return service, "big", build_report(service, "big", ReportOptions())


def test_chart_is_bounded_and_keeps_every_pivot(big: tuple[CaseService, str, Report]) -> None:
    _, _, report = big
    assert len(report.charts) == 3
    for chart in report.charts:
        assert len(chart.points) <= MAX_POINTS
        assert chart.thinned > 0
        plotted = {p.ref.seq for p in chart.points if p.pivot}
        top = {p.ref.seq for p in report.pivots if p.question == chart.question}
        assert plotted == top and plotted
    assert len(render_chart(report)) < 300_000


def test_pivots_at_every_depth() -> None:
    """A change of the leading child is a pivot too (a new child arriving is not)."""
    service = CaseService(MemoryEventStore(), builtin_registry())
    cid = service.writer.new_case("nested", case_id="nested")
    service.writer.add_question(cid, "What limits it?", "q")
    service.writer.add_hypothesis(cid, "link", "q", 0.6, "link")
    service.writer.add_hypothesis(cid, "compute", "q", 0.3, "compute")
    service.writer.add_hypothesis(cid, "narrow", "link", 0.6, "narrow")
    service.writer.add_hypothesis(cid, "slow", "link", 0.4, "slow")  # arrives below: no pivot
    service.writer.assess(cid, {"narrow": 0.1, "slow": 0.9}, "lanes are full", kind="measured")
    report = build_report(service, cid, ReportOptions())
    (pivot,) = report.pivots
    assert (pivot.ref.seq, pivot.question, pivot.parent) == (7, "q", "link")
    assert (pivot.before, pivot.after) == ("narrow", "slow")
    assert pivot.depth == 1  # the children of a top-level hypothesis
    assert "q, under link (depth 1)" in render(report, "md").decode()
    assert [s.hypothesis for s in pivot.belief_after] == ["slow", "narrow"]
    assert report.health.advice == ()  # advice is for the question's own pivots


def test_renders_and_verifies(big: tuple[CaseService, str, Report]) -> None:
    service, case_id, report = big
    for fmt in ("md", "html"):
        checked = verify_report(service, case_id, render(report, fmt).decode())
        assert checked.problem is None
    assert len(report.timeline) > EVENTS // 2
