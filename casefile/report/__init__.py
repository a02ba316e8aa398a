"""Postmortem reports that prove every claim: model → redaction → one writer per format.

The one entry point for every front end (the CLI now, the TUI next)::

    report = build_report(service, case_id, ReportOptions(upto=None, redact=False))
    data = render(report, "html")          # bytes; "md" and "json" too

Every claim carries the events it rests on as ``seq@hash`` (:class:`Ref`), checked against
the case by :func:`verify_report` (``casefile report verify``), and every file ends with a
digest of its own text (:mod:`casefile.report.digest`), so an edited claim fails too. The
package reads the case only through :class:`~casefile.app.service.CaseService` and its views
(:class:`~casefile.app.views.report_sources.ReportSources`), and imports no store, runner, UI
library or belief engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.report.model import Ref, Report

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.report.verify import Checked

__all__ = [
    "EXPORTS",
    "FORMATS",
    "Ref",
    "Report",
    "ReportOptions",
    "build_report",
    "needs_facts",
    "redact_report",
    "render",
    "render_chart",
    "verify_report",
]

#: The documents ``render`` writes (each sealed with its digest; ``report verify`` reads them).
FORMATS = ("md", "html", "json")
#: The exports ``render`` writes for other tools (no digest line; every row has its seq@hash).
EXPORTS = ("timeline-csv", "timeline-jsonl", "facts-csv")


@dataclass(frozen=True)
class ReportOptions:
    upto: int | None = None  # the case as it stood after this event
    redact: bool = False
    redact_patterns: tuple[str, ...] = ()
    #: key (a postmortem section, ``item``, ``about``) → the command line that records it,
    #: shown beside what is not recorded yet; the front end lends it from the action table
    record: Callable[[str], str] | None = None
    #: build the facts export's rows: every fact of every observation (a million on a long
    #: case, the largest part of the model), which only ``facts-csv`` shows and redaction
    #: reads; without them the report's ``facts`` is None (see :func:`needs_facts`)
    facts: bool = True


def needs_facts(fmt: str, *, redact: bool) -> bool:
    """Whether a report rendered as ``fmt`` needs its facts rows: the ``facts-csv`` export
    shows them, and redaction learns names from them (so a redacted document needs them too,
    to replace the same names); the documents and the timeline exports show none."""
    return fmt == "facts-csv" or redact


def build_report(service: CaseService, case_id: str, options: ReportOptions) -> Report:
    """The report of ``case_id`` (redacted if ``options`` say so; the pseudonym map is then
    dropped: use :func:`redact_report` on an unredacted report to keep it)."""
    from casefile.report.build import build

    facts = options.facts or options.redact
    report = build(service, case_id, options.upto, options.record, facts=facts)
    if options.redact:
        report, _ = redact_report(report, options.redact_patterns)
    return report


def redact_report(report: Report, patterns: tuple[str, ...] = ()) -> tuple[Report, dict[str, str]]:
    """``report`` pseudonymised, and the map pseudonym → original (never part of a report).
    Raises ``ValueError`` for a report built without its facts: redaction learns from them."""
    from casefile.report.redact import redact_report as redact

    if report.facts is None:
        raise ValueError("redaction needs the report's facts: build it with them")
    return redact(report, patterns)


def render(report: Report, fmt: str, *, chart_file: str | None = None) -> bytes:
    """``report`` in ``fmt`` as UTF-8 bytes, ending with the digest of its text (see
    :mod:`casefile.report.digest`); a Markdown report links its chart as ``chart_file``
    (written beside it by the caller, from :func:`render_chart`)."""
    from casefile.report.digest import seal

    if fmt in EXPORTS:
        from casefile.report.exports import render_export

        return render_export(report, fmt).encode("utf-8")
    if fmt == "md":
        from casefile.report.markdown import render_markdown

        text = render_markdown(report, chart_file)
    elif fmt == "html":
        from casefile.report.html import render_html

        text = render_html(report)
    elif fmt == "json":
        from casefile.report.jsonfmt import render_json

        text = render_json(report)
    else:
        known = ", ".join((*FORMATS, *EXPORTS))
        raise ValueError(f"unknown report format {fmt!r} (one of {known})")
    return seal(text).encode("utf-8")


def render_chart(report: Report) -> bytes:
    """The trajectory chart as a standalone SVG file, with its own digest."""
    from casefile.report.digest import seal
    from casefile.report.svg import render_svg

    return seal(render_svg(report.charts, standalone=True)).encode("utf-8")


def verify_report(service: CaseService, case_id: str, text: str) -> Checked:
    """Whether every ``seq@hash`` in ``text`` is an event of ``case_id`` with that hash, and
    the text is as casefile wrote it (its digest matches)."""
    from casefile.report.verify import check

    return check(text, service.reader.event_hashes(case_id), case_id)
