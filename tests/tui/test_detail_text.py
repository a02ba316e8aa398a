"""The detail pane draws a multi-line note as lines (not ``\\x0a``), while every control
character but the newline and the tab is still made visible (R3-L8)."""

from __future__ import annotations

from rich.console import Console

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.store.memory import MemoryEventStore
from casefile.tui.widgets.detail import event_renderable


def test_a_multi_line_note_reads_as_lines_in_the_detail_pane() -> None:
    service = CaseService(MemoryEventStore())
    case_id = service.writer.new_case("Detail")
    seq = service.writer.note(case_id, "first line\nsecond line\x1b[2J", Who("dana")).seq
    console = Console(width=120, record=True, color_system=None)
    console.print(event_renderable(service.reader.event_detail(case_id, seq)))
    shown = console.export_text()
    assert "\\x0a" not in shown
    assert "first line" in shown and "second line\\x1b[2J" in shown
    summary = next(row for row in shown.splitlines() if row.startswith("summary"))
    assert summary.rstrip().endswith("first line")  # the second line is a line of its own
