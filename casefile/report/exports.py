"""Exports a team uses elsewhere: the timeline as CSV and as JSON Lines in Timesketch's import
shape, and every recorded fact as CSV.

They are written from the same model as the report (so ``--redact`` pseudonymises them the
same way, the map included), one row per event or fact, each with its ``seq@hash`` so a row
can be traced to the case. Unlike the report they carry no digest line: a CSV reader or
Timesketch would read it as a row; ``report verify`` is for the documents.

Timesketch's JSONL import needs ``message``, ``datetime`` (ISO 8601) and ``timestamp_desc`` in
every line; the other keys become attributes of the event.
"""

from __future__ import annotations

import csv
import io
import json

from casefile.report.model import FactRow, Ref, Report
from casefile.report.sources import Sources

TIMELINE_COLUMNS = (
    "event",
    "seq",
    "datetime",
    "time",
    "kind",
    "actor",
    "message",
    "host",
    "conditions",
    "facts",
)
FACT_COLUMNS = (
    "event",
    "seq",
    "datetime",
    "probe",
    "host",
    "conditions",
    "name",
    "subject",
    "value",
    "unit",
)
#: what a timeline row's time is, in Timesketch's words
TIMESTAMP_DESC = "Event Recorded"


def build_facts(src: Sources) -> tuple[FactRow, ...]:
    runs = src.projection.probe_runs
    out = []
    for seq in sorted(src.projection.observations):
        observation = src.projection.observations[seq]
        run = runs.get(observation.get("probe_run_seq", -1), {})
        conditions = observation.get("conditions") or {}
        shown = ", ".join(f"{k}={conditions[k]}" for k in sorted(conditions)) or None
        for fact in observation.get("facts", ()):
            unit = fact.get("unit")
            out.append(
                FactRow(
                    ref=src.ref(seq),
                    at=src.event(seq).when,
                    probe=str(observation.get("probe", "")),
                    host=None if run.get("host") is None else str(run["host"]),
                    conditions=shown,
                    name=str(fact.get("name", "")),
                    subject=str(fact.get("subject", "host")),
                    value=_value(fact.get("value")),
                    unit=None if unit is None else str(unit),
                )
            )
    return tuple(out)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def render_export(report: Report, fmt: str) -> str:
    if fmt == "timeline-csv":
        return _csv(
            TIMELINE_COLUMNS, [_timeline_row(report, n) for n in range(len(report.timeline))]
        )
    if fmt == "timeline-jsonl":
        lines = []
        for n in range(len(report.timeline)):
            row = dict(zip(TIMELINE_COLUMNS, _timeline_row(report, n), strict=True))
            line = {
                "message": row.pop("message"),
                "datetime": row.pop("datetime"),
                "timestamp_desc": TIMESTAMP_DESC,
                **{k: v for k, v in row.items() if v != "" and k != "seq"},
                "seq": report.timeline[n].ref.seq,
                "case": report.summary.case_id,
            }
            lines.append(json.dumps(line, ensure_ascii=True, sort_keys=False))
        return "".join(line + "\n" for line in lines)
    if fmt == "facts-csv":
        if report.facts is None:
            raise ValueError("the facts export needs a report built with its facts")
        return _csv(FACT_COLUMNS, [_fact_row(f) for f in report.facts])
    raise ValueError(f"unknown export {fmt!r}")


def _timeline_row(report: Report, n: int) -> list[str]:
    row = report.timeline[n]
    return [
        row.ref.label,
        str(row.ref.seq),
        _iso(row.at),
        row.when,
        row.kind,
        row.actor,
        row.text,
        row.host or "",
        row.conditions or "",
        row.facts or "",
    ]


def _fact_row(fact: FactRow) -> list[str]:
    ref: Ref = fact.ref
    return [
        ref.label,
        str(ref.seq),
        _iso(fact.at),
        fact.probe,
        fact.host or "",
        fact.conditions or "",
        fact.name,
        fact.subject,
        fact.value,
        fact.unit or "",
    ]


def _iso(stored: str) -> str:
    """``2026-03-02T09:51:00.000000Z`` → ``2026-03-02T09:51:00+00:00`` (what Timesketch and
    spreadsheets read as UTC)."""
    return stored[:-1] + "+00:00" if stored.endswith("Z") else stored


def _csv(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    """RFC 4180 CSV; a cell that a spreadsheet would run as a formula gets a leading ``'``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_inert(cell) for cell in row])
    return buffer.getvalue()


def _inert(cell: str) -> str:
    if cell[:1] not in ("=", "+", "-", "@", "\t", "\r"):
        return cell
    try:
        float(cell)  # a negative number stays a number
    except ValueError:
        return "'" + cell
    return cell
