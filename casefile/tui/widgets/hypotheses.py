"""The hypothesis tree at the focused step: per question a header (leader, strongest
alternative, a "never measured" flag), then each hypothesis with its confidence as a number and
a bar, a sparkline of its last evidence steps on a fixed 0–1 scale, its trend and its status
("unlikely" says the prior, as the report does, where the width allows).

The leader, the alternative and the warning sit in the header so they are on screen without
scrolling; each is a word or a glyph as well as a colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style

from casefile.app.views.board import SPARK_POINTS, Frame, FrameQuestion, TreeRow
from casefile.app.views.standing import UNLIKELY, unlikely_words
from casefile.text_safety import line as visible
from casefile.tui.glyphs import bar, percent, sparkline, trend
from casefile.tui.widgets.rows import RowList, cells

#: The word shown for each status (colour is never the only sign).
STATUS_WORDS = {
    "open": "",
    "retired": "retired",
    "does not apply": "does not apply",
    "ruled out": "ruled out",
    "catch-all": "",
}


@dataclass(frozen=True, slots=True)
class Line:
    """One drawn line: a question header or a hypothesis."""

    question: FrameQuestion
    row: TreeRow | None  # None for the question's two header lines
    summary: bool = False  # the second header line: leader, alternative, warning


class HypothesisTree(RowList):
    """Questions and their hypotheses at the frame's step."""

    COMPONENT_CLASSES: ClassVar[set[str]] = RowList.COMPONENT_CLASSES | {
        "tree--leader",
        "tree--question",
        "tree--faded",
        "tree--warning",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[Line] = []
        self.frame: Frame | None = None

    def set_frame(self, frame: Frame) -> None:
        chosen = self.chosen_id()
        self.frame = frame
        by_question = {q.id: q for q in frame.questions}
        lines: list[Line] = []
        for question in frame.questions:
            lines.append(Line(question, None))
            lines.append(Line(question, None, summary=True))
            lines.extend(
                Line(by_question[r.question], r) for r in frame.tree if r.question == question.id
            )
        self.lines = lines
        self.rows_changed()
        if chosen is not None:
            self.select_id(chosen)

    def chosen_id(self) -> str | None:
        """The hypothesis under the cursor (``None`` on a question header)."""
        if 0 <= self.cursor < len(self.lines):
            row = self.lines[self.cursor].row
            return row.id if row is not None else None
        return None

    def chosen_question(self) -> str | None:
        if 0 <= self.cursor < len(self.lines):
            return self.lines[self.cursor].question.id
        return None

    def select_id(self, hypothesis_id: str) -> None:
        for index, item in enumerate(self.lines):
            if item.row is not None and item.row.id == hypothesis_id:
                self.cursor = index
                return

    def row_count(self) -> int:
        return len(self.lines)

    def row_style(self, index: int) -> Style:
        item = self.lines[index]
        if item.row is None:
            if item.summary and item.question.never_measured:
                return self.get_component_rich_style("tree--warning")
            return self.get_component_rich_style(
                "tree--question" if not item.summary else "rows--mark"
            )
        if item.row.leader:
            return self.get_component_rich_style("tree--leader")
        if item.row.status in ("retired", "does not apply", "ruled out"):
            return self.get_component_rich_style("tree--faded")
        return Style()

    def row_segments(self, index: int, width: int, style: Style) -> list[Segment]:
        item = self.lines[index]
        if item.row is None:
            text = (
                summary_text(item.question) if item.summary else f"? {visible(item.question.text)}"
            )
            return [Segment(text, style)]
        return [Segment(hypothesis_text(item.row, width), style)]


def summary_text(question: FrameQuestion) -> str:
    """``★ leader compute-launch 47.4%  ·  ☆ alt collective-latency  ·  ⚠ …``."""
    parts = []
    if question.never_measured:
        parts.append("⚠ leader never measured")
    if question.leader:
        parts.append(f"★ leader {question.leader} {percent(question.leader_confidence).strip()}")
    if question.runner_up:
        parts.append(f"☆ alt {question.runner_up}")
    return "  ·  ".join(parts)


def hypothesis_text(row: TreeRow, width: int) -> str:
    marker = "★" if row.leader else ("☆" if row.runner_up else " ")
    indent = "  " * (row.depth + 1)
    name = "catch-all" if row.status == "catch-all" else row.id
    label = cells(f"{indent}{marker} {visible(name)}", 26)
    spark = sparkline(row.series, SPARK_POINTS)
    status = STATUS_WORDS.get(row.status, row.status)
    fixed = f"{label} {bar(row.confidence)} {percent(row.confidence)} {spark} {trend(row.trend)}"
    if row.status == UNLIKELY and row.prior is not None:
        said = unlikely_words(row.prior)  # as the report says it, where the width allows
        if len(fixed) + len(said) + 1 <= width:
            status = said
    tail = f" {status}" if status else ""
    text_room = width - len(fixed) - len(tail) - 2
    wording = f"  {visible(row.text)}" if text_room > 8 else ""
    return f"{fixed}{tail}{wording[: max(0, text_room + 2)]}"
