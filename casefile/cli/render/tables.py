"""One line per row: ``casefile log`` (also as it follows a case) and ``casefile cases``."""

from __future__ import annotations

from collections.abc import Iterable

from casefile.app.views import CaseHeader, CaseRow, LogRow
from casefile.cli.render.text import percent, timestamp


def render_log(rows: Iterable[LogRow], header: CaseHeader | str, case_id: str = "") -> str:
    """The log under a ``Case ID: TITLE`` line; ``header`` is the case's header, or its title
    with ``case_id`` beside it (for callers that hold no header)."""
    if isinstance(header, CaseHeader):
        case_id, title = header.id, header.title
    else:
        title = header
    return "\n".join([f"Case {case_id}: {title}", *(render_log_row(r) for r in rows)])


def render_log_row(row: LogRow) -> str:
    return f"#{row.seq:<4} {timestamp(row.when)}  {row.actor:<9} {row.summary}"


def render_cases(rows: Iterable[CaseRow]) -> str:
    """One line per case; a case folded for the listing also shows who leads each question."""
    lines = []
    for row in rows:
        line = f"{row.id}  {str(row.opened)[:16]}  {row.events:>5} events  {row.title}"
        for leader in row.leaders or ():
            line += f"  [{leader.question}: {leader.id} {percent(leader.confidence).strip()}]"
        lines.append(line)
    return "\n".join(lines)
