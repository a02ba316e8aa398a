"""One line per row: ``casefile log`` (also as it follows a case) and ``casefile cases``."""

from __future__ import annotations

from collections.abc import Iterable

from casefile.app.views import CaseHeader, CaseRow, LogRow
from casefile.cli.render.text import percent, timestamp
from casefile.cli.terminal import one_line


def render_log(rows: Iterable[LogRow], header: CaseHeader | str, case_id: str = "") -> str:
    """The log under a ``Case ID: TITLE`` line; ``header`` is the case's header, or its title
    with ``case_id`` beside it (for callers that hold no header)."""
    if isinstance(header, CaseHeader):
        case_id, title = header.id, header.title
    else:
        title = header
    header_line = one_line(f"Case {case_id}: {title}")
    return "\n".join([header_line, *(render_log_row(r) for r in rows)])


def render_log_row(row: LogRow) -> str:
    # one line per event, whatever its text holds (the whole line is made terminal-safe)
    return one_line(f"#{row.seq:<4} {timestamp(row.when)}  {row.actor:<9} {row.summary}")


def render_cases(rows: Iterable[CaseRow]) -> str:
    """One line per case; a case folded for the listing also shows who leads each question."""
    lines = []
    for row in rows:
        line = f"{row.id}  {str(row.opened)[:16]}  {row.events:>5} events  {row.title}"
        for leader in row.leaders or ():
            line += f"  [{leader.question}: {leader.id} {percent(leader.confidence).strip()}]"
        lines.append(one_line(line))
    return "\n".join(lines)
