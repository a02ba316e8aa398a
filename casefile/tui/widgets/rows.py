"""A virtualised list with a cursor: only the rows on screen are ever drawn.

The timeline of a 100,000-event case and the hypothesis tree are both lists of plain rows; a
``DataTable`` would build a cell per value up front, while this draws a row when it is on
screen (Textual's line API: ``render_line``), so opening a long case costs what one screen of
rows costs. Subclasses say how many rows there are and how one looks.

The list keeps its own viewport (the first row shown) and settles it against the cursor each
time it draws, when its size is known: the cursor is always on screen, whatever order layout,
new rows and cursor moves arrive in (a scroll offset set before the first layout can be lost,
which made a live view sometimes start at the top instead of following the newest row).
The mouse wheel moves the cursor; the border's subtitle says where it is (``68/68``).
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from casefile.tui.messages import RowChosen, RowHighlighted

#: Rows the mouse wheel moves the cursor by.
WHEEL_ROWS = 3


def settle_top(top: int, cursor: int, height: int, count: int) -> int:
    """The first row to show so that ``cursor`` is on screen, moving as little as possible."""
    height = max(1, height)
    if cursor < top:
        top = cursor
    elif cursor >= top + height:
        top = cursor - height + 1
    return max(0, min(top, max(0, count - height)))


class RowList(Widget, can_focus=True):
    """Rows with a cursor, moved by arrows, vim keys, pages, home/end and the mouse."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("pagedown,ctrl+d", "page(1)", "Page down", show=False),
        Binding("pageup,ctrl+u", "page(-1)", "Page up", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "rows--cursor",
        "rows--cursor-idle",  # the cursor of a list that does not have the focus
        "rows--dim",
        "rows--mark",
    }

    cursor: reactive[int] = reactive(0, always_update=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.top = 0  # the first row on screen

    def row_count(self) -> int:
        raise NotImplementedError

    def row_segments(self, index: int, width: int, style: Style) -> list[Segment]:
        """The segments of one row (``style`` is the row's base style)."""
        raise NotImplementedError

    def row_style(self, index: int) -> Style:
        return Style()

    def rows_changed(self) -> None:
        """Call after the rows changed: keeps the cursor in range and redraws."""
        count = self.row_count()
        if count and self.cursor >= count:
            self.cursor = count - 1
        self._where()
        self.refresh()

    def centre(self) -> None:
        """Show the cursor in the middle of the list (after a jump, so there is context on
        both sides of it)."""
        self.top = max(0, self.cursor - max(1, self.size.height) // 2)
        self.refresh()

    def _where(self) -> None:
        count = self.row_count()
        self.border_subtitle = f"{min(self.cursor + 1, count)}/{count}" if count else ""

    def render_lines(self, crop: Region) -> list[Strip]:
        self.top = settle_top(self.top, self.cursor, self.size.height, self.row_count())
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        index = self.top + y
        width = self.size.width
        base = self.rich_style
        if index >= self.row_count():
            return Strip.blank(width, base)
        style = base + self.row_style(index)
        if index == self.cursor:
            name = "rows--cursor" if self.has_focus else "rows--cursor-idle"
            style += self.get_component_rich_style(name)
        segments = self.row_segments(index, width, style)
        return Strip(segments).crop(0, width).extend_cell_length(width, style)

    def watch_cursor(self, old: int, new: int) -> None:
        count = self.row_count()
        if count == 0:
            return
        if new < 0 or new >= count:
            self.cursor = max(0, min(new, count - 1))
            return
        self._where()
        self.refresh()
        self.post_message(RowHighlighted(self.id or "", new))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)  # None on the border
        if offset is not None:
            self.cursor = self.top + offset.y

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.cursor = self.cursor + WHEEL_ROWS

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.cursor = self.cursor - WHEEL_ROWS

    def action_cursor(self, delta: int) -> None:
        self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        self.cursor = self.cursor + direction * max(1, self.size.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = max(0, self.row_count() - 1)

    def action_choose(self) -> None:
        if self.row_count():
            self.post_message(RowChosen(self.id or "", self.cursor))


def cells(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` cells (rows are mostly ASCII; wide glyphs are rare
    enough that cropping the strip takes care of the rest)."""
    return text[:width].ljust(width) if width > 0 else ""
