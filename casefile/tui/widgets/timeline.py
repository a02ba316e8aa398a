"""The timeline: every event of the case, one row each, virtualised.

Rows after the replay focus are dimmed (what had not happened yet); pivots, surprises,
set-aside readings and warnings carry a glyph as well as a colour. The border's title says the
zone once; each row shows the time without it, and the year only where it is not the newest
row's. A filter (``/``) hides the
rows that do not match, by text, type or actor, without losing the cursor's event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style

from casefile.app.views.board import TimelineRow
from casefile.domain.event_types import label
from casefile.text_safety import line as visible
from casefile.tui.glyphs import compact_time, zone_said
from casefile.tui.widgets.rows import RowList, cells


class Timeline(RowList):
    """The case's events; the cursor picks the event the detail pane shows."""

    COMPONENT_CLASSES: ClassVar[set[str]] = RowList.COMPONENT_CLASSES | {
        "timeline--pivot",
        "timeline--warning",
        "timeline--note",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[TimelineRow] = ()
        self.shown: Sequence[int] | None = None  # row indices that pass the filter
        self.focus_seq: int | None = None  # replay: rows after it are dimmed
        self.filter_text = ""

    def set_rows(self, rows: Sequence[TimelineRow], *, follow: bool) -> None:
        """New rows (a tuple the case thread will not touch again); ``follow`` moves the cursor
        to the newest event, as a live view does."""
        chosen = self.chosen_seq()
        self.rows = rows
        # the zone, said once above the times (each row shows the time without it)
        self.border_title = f"times in {zone_said(rows[-1].when)}" if rows else ""
        self._apply_filter()
        self.rows_changed()
        if follow:
            self.cursor = max(0, self.row_count() - 1)
        elif chosen is not None:
            self.select_seq(chosen)

    def row_count(self) -> int:
        return len(self.rows) if self.shown is None else len(self.shown)

    def row_at(self, index: int) -> TimelineRow | None:
        if not 0 <= index < self.row_count():
            return None
        return self.rows[index if self.shown is None else self.shown[index]]

    def chosen_seq(self) -> int | None:
        row = self.row_at(self.cursor)
        return row.seq if row is not None else None

    def select_seq(self, seq: int) -> None:
        """Put the cursor on event ``seq`` (or the nearest shown row before it)."""
        if self.shown is None:
            index = seq - self.rows[0].seq if self.rows else 0
        else:
            from bisect import bisect_right

            seqs = [self.rows[i].seq for i in self.shown]
            index = max(0, bisect_right(seqs, seq) - 1)
        self.cursor = max(0, min(index, self.row_count() - 1))

    def set_focus_seq(self, seq: int | None) -> None:
        self.focus_seq = seq
        self.refresh()

    def set_filter(self, text: str) -> None:
        chosen = self.chosen_seq()
        self.filter_text = text.strip()
        self._apply_filter()
        self.rows_changed()
        if chosen is not None:
            self.select_seq(chosen)

    def _apply_filter(self) -> None:
        needle = self.filter_text.lower()
        if not needle:
            self.shown = None
            return
        self.shown = [
            i
            for i, row in enumerate(self.rows)
            if needle in row.summary.lower()
            or needle in row.type.lower()
            or needle in label(row.type).lower()  # the type as the row shows it
            or needle in row.actor.lower()
            or any(needle == mark for mark in row.marks)
        ]

    def row_style(self, index: int) -> Style:
        row = self.row_at(index)
        if row is None:
            return Style()
        if self.focus_seq is not None and row.seq > self.focus_seq:
            return self.get_component_rich_style("rows--dim")
        if "pivot" in row.marks:
            return self.get_component_rich_style("timeline--pivot")
        if "warning" in row.marks or "set-aside" in row.marks:
            return self.get_component_rich_style("timeline--warning")
        return Style()

    def row_segments(self, index: int, width: int, style: Style) -> list[Segment]:
        row = self.row_at(index)
        if row is None:
            return []
        when = compact_time(row.when, self.rows[-1].when)
        head = f"{row.seq:>6} {when} {cells(visible(row.actor), 9)} "
        marks = cells(row.glyphs, 3)
        kind = cells(label(row.type), 11)  # the type in the width of a column
        rest = max(0, width - len(head) - len(marks) - len(kind) - 2)
        summary = cells(visible(row.summary), rest)
        return [Segment(f"{head}{marks} {kind} {summary}", style)]
