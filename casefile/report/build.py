"""Building the report model: one fold of the case, then each section from it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from casefile.app.views import ProbeRunDetail
from casefile.report.evidence import (
    build_alternatives,
    build_evidence,
    build_excerpts,
    build_ruled_out,
    build_set_aside,
    build_unparsed,
)
from casefile.report.exports import build_facts
from casefile.report.model import Report
from casefile.report.narrative import build_closing, build_integrity, build_summary, build_timeline
from casefile.report.postmortem import Record, build_lessons, build_moments, build_postmortem_part
from casefile.report.reasoning import build_charts, build_health, build_pivots
from casefile.report.sources import gather

if TYPE_CHECKING:
    from casefile.app.service import CaseService


def build(
    service: CaseService,
    case_id: str,
    upto: int | None,
    record: Record | None = None,
    *,
    facts: bool = True,
) -> Report:
    """The report of ``case_id`` as of ``upto``; ``record(key)`` is the command line that
    records a postmortem section not recorded yet (None: the report names no command);
    ``facts``: whether to build the facts export's rows (else the report's ``facts`` is None)."""
    src = gather(service, case_id, upto)

    def run_detail(seq: int) -> ProbeRunDetail | None:
        return service.reader.event_detail(case_id, seq).probe_run

    summary = build_summary(src)
    pivots = build_pivots(src)
    evidence = build_evidence(src)
    health = build_health(src, pivots)
    return Report(
        summary=summary,
        charts=build_charts(src, pivots),
        timeline=build_timeline(src),
        pivots=pivots,
        ruled_out=build_ruled_out(src),
        alternatives=build_alternatives(src, summary.root_causes),
        evidence=evidence,
        excerpts=build_excerpts(src, evidence, run_detail),
        set_aside=build_set_aside(src),
        unparsed=build_unparsed(src),
        health=health,
        closing=build_closing(src),
        integrity=build_integrity(src),
        postmortem=build_postmortem_part(src, summary, record),
        moments=build_moments(src, pivots, evidence, health),
        lessons=build_lessons(src, health),
        facts=build_facts(src) if facts else None,
    )
