"""One line per row: ``casefile log`` (also as it follows a case) and ``casefile cases``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC

from casefile.app.views import CaseHeader, CaseRow, LogRow
from casefile.cli.render.text import Zone, percent, timestamp
from casefile.cli.terminal import one_line


def render_log(
    rows: Iterable[LogRow], header: CaseHeader | str, case_id: str = "", *, zone: Zone = UTC
) -> str:
    """The log under a ``Case ID: TITLE`` line; ``header`` is the case's header, or its title
    with ``case_id`` beside it (for callers that hold no header). Times are shown in ``zone``
    (UTC unless told), with the zone."""
    if isinstance(header, CaseHeader):
        case_id, title = header.id, header.title
    else:
        title = header
    header_line = one_line(f"Case {case_id}: {title}")
    return "\n".join([header_line, *(render_log_row(r, zone=zone) for r in rows)])


def render_log_row(row: LogRow, *, zone: Zone = UTC) -> str:
    # one line per event, whatever its text holds (the whole line is made terminal-safe)
    when = timestamp(row.when, zone)
    return one_line(f"#{row.seq:<4} {when}  {row.actor:<9} {row.summary}")


def render_cases(rows: Iterable[CaseRow], *, zone: Zone = UTC) -> str:
    """One line per case (with when it was opened, in ``zone``); a case folded for the listing
    also shows who leads each question."""
    lines = []
    for row in rows:
        opened = "-" if row.opened is None else timestamp(row.opened, zone)
        line = f"{row.id}  {opened}  {row.events:>5} events  {row.title}"
        for leader in row.leaders or ():
            line += f"  [{leader.question}: {leader.id} {percent(leader.confidence).strip()}]"
        lines.append(one_line(line))
    return "\n".join(lines)
