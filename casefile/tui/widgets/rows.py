"""A virtualised list with a cursor: only the rows on screen are ever drawn.

The timeline of a 100,000-event case and the hypothesis tree are both lists of plain rows; a
``DataTable`` would build a cell per value up front, while this draws a row when it scrolls into
view (Textual's line API: ``render_line``), so opening a long case costs what one screen of rows
costs. Subclasses say how many rows there are and how one looks.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from casefile.tui.messages import RowChosen, RowHighlighted


class RowList(ScrollView, can_focus=True):
    """Rows with a cursor, moved by arrows, vim keys, pages and home/end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("pagedown,ctrl+d", "page(1)", "Page down", show=False),
        Binding("pageup,ctrl+u", "page(-1)", "Page up", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"rows--cursor", "rows--dim", "rows--mark"}

    cursor: reactive[int] = reactive(0, always_update=True)

    def row_count(self) -> int:
        raise NotImplementedError

    def row_segments(self, index: int, width: int, style: Style) -> list[Segment]:
        """The segments of one row (``style`` is the row's base style)."""
        raise NotImplementedError

    def row_style(self, index: int) -> Style:
        return Style()

    def rows_changed(self) -> None:
        """Call after the rows changed: resizes the scroll area and redraws."""
        count = self.row_count()
        self.virtual_size = Size(max(1, self.size.width), count)
        if count and self.cursor >= count:
            self.cursor = count - 1
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= self.row_count():
            return Strip.blank(width, base)
        style = base + self.row_style(index)
        if index == self.cursor and self.has_focus:
            style += self.get_component_rich_style("rows--cursor")
        elif index == self.cursor:
            style += self.get_component_rich_style("rows--cursor", partial=True)
        segments = self.row_segments(index, width, style)
        return Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width, style)

    def watch_cursor(self, old: int, new: int) -> None:
        count = self.row_count()
        if count == 0:
            return
        if new < 0 or new >= count:
            self.cursor = max(0, min(new, count - 1))
            return
        self._keep_visible(new)
        # the scroll area may grow with the same refresh (new rows): scroll again once it has
        self.call_after_refresh(self._keep_visible, new)
        self.refresh()
        self.post_message(RowHighlighted(self.id or "", new))

    def _keep_visible(self, index: int) -> None:
        if index != self.cursor:
            return
        top = round(self.scroll_offset.y)
        height = max(1, self.size.height)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    def on_resize(self) -> None:
        # laid out (or resized) after the cursor moved: bring it back into view
        self._keep_visible(self.cursor)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", None)
        if isinstance(y, int):
            self.cursor = round(self.scroll_offset.y) + y

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
