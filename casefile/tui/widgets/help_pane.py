"""The case screen's help: its keys, read from the screen's own bindings (so a key added or
hidden there is added or hidden here), and a legend of the timeline's marks, read from where
the marks are defined (:data:`casefile.app.views.board.MARK_GLYPHS`).

A plain Rich text in one scrollable pane: it opens in one frame on a case of any length
(Textual's own help panel renders Markdown and a key table per focus change). It is mounted in
the case screen's ``#help-dock``, shown only while the pane is: mounted in ``#panes`` itself, it
had the whole of the panes drawn again as it opened (mounting a widget redraws its parent).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.content import Content, Span
from textual.widget import Widget
from textual.widgets import Static

from casefile.app.views.board import MARK_GLYPHS
from casefile.tui.widgets.collector import hold_collector, release_after_frame, release_collector
from casefile.tui.widgets.leftovers import drop_rendered_lines

if TYPE_CHECKING:
    from rich.console import Console
    from textual.binding import Binding
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.style import Style as VisualStyle
    from textual.visual import RenderOptions

#: What each timeline mark means, by the mark's name (every mark in MARK_GLYPHS has one: a
#: test holds them to it).
MARK_MEANINGS = {
    "pivot": "pivot: a different hypothesis leads from here ([ and ] jump)",
    "subpivot": "the leader held, but a different one leads inside it",
    "surprise": "surprise: evidence the leader did not expect",
    "set-aside": "a reading set aside (wrong load or setup; the rules skip it)",
    "warning": "a warning raised here (w and W jump)",
    "evidence": "evidence that moved the confidences",
}

#: The rows' colours, each also said by a mark or by the status bar.
ROW_COLOURS = (
    ("bold amber", "a pivot's row"),
    ("amber", "a warning's or a set-aside reading's row"),
    ("dim", "replay: what had not happened yet at the step"),
)


def legend() -> list[tuple[str, str]]:
    """(glyph, meaning) per mark, in the order the marks are defined."""
    return [(glyph, MARK_MEANINGS[mark]) for mark, glyph in MARK_GLYPHS.items()]


def key_rows(screen: Screen[Any]) -> list[tuple[str, str]]:
    """(keys, what they do) for the screen's active bindings that the user may press, one row
    per action."""
    keys: dict[str, list[str]] = defaultdict(list)
    said: dict[str, Binding] = {}
    # the footer's keys first (b and q among them), then the screen's, the app's, and those of
    # the pane in focus (up, down …)
    order = {id(screen): 0, id(screen.app): 1}
    bound = sorted(
        screen.active_bindings.values(),
        key=lambda a: (not a.binding.show, order.get(id(a.node), 2)),
    )
    for active in bound:
        binding = active.binding
        if binding.system or not active.enabled or not binding.description:
            continue
        shown = screen.app.get_key_display(binding)
        if shown not in keys[binding.action]:
            keys[binding.action].append(shown)
        said.setdefault(binding.action, binding)
    rows = []
    for action, binding in said.items():
        what = binding.description
        if binding.tooltip:
            what += f" — {binding.tooltip}"
        rows.append((" ".join(keys[action]), what))
    return rows


def help_text(screen: Screen[Any]) -> Text:
    text = Text()
    text.append("Timeline marks\n", style="bold underline")
    for glyph, meaning in legend():
        text.append(f" {glyph} ", style="bold")
        text.append(f" {meaning}\n")
    for colour, meaning in ROW_COLOURS:
        text.append(f" {colour}: {meaning}\n", style="italic")
    text.append("\nKeys\n", style="bold underline")
    for keys, what in key_rows(screen):
        text.append(f" {keys:>12} ", style="bold")
        text.append(f" {what}\n")
    text.append("\n ctrl+p: every command, by name\n", style="italic")
    return text


class KeptLines(Content):
    """The help's text, with the lines it was drawn as kept for each width and style: the pane
    is made afresh at each ``?``, and wrapping and drawing its forty lines again was the most of
    what it drew as it opened. (A :class:`Content`, so that text selected in it copies.)"""

    #: widths and styles kept (the pane's width changes only with the terminal's)
    KEEP = 4

    def __init__(self, text: str, spans: list[Span]) -> None:
        super().__init__(text, spans)
        self._kept: dict[tuple[object, ...], list[Strip]] = {}

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        if options.selection is not None or options.post_style is not None:
            return super().render_strips(width, height, style, options)
        get_rule = options.rules.get
        key = (
            width,
            height,
            style,
            get_rule("text_align", "left"),
            get_rule("text_overflow", "fold"),
            get_rule("text_wrap", "wrap"),
            get_rule("line_pad", 0),
        )
        lines = self._kept.get(key)
        if lines is None:
            lines = super().render_strips(width, height, style, options)
            if len(self._kept) >= self.KEEP:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = lines
        return lines


#: The help's texts as drawn, by their text and spans (they differ with the pane in focus)
_DRAWN: dict[tuple[str, tuple[object, ...]], KeptLines] = {}


def drawn(text: Text, console: Console) -> KeptLines:
    """``text`` as the pane shows it, the same object (and its kept lines) at every open."""
    key = (text.plain, tuple(text.spans))
    found = _DRAWN.get(key)
    if found is None:
        content = Content.from_rich_text(text, console=console)
        found = KeptLines(content.plain, list(content.spans))
        if len(_DRAWN) >= 16:
            del _DRAWN[next(iter(_DRAWN))]
        _DRAWN[key] = found
    return found


class HelpPane(VerticalScroll, can_focus=False):
    """Docked on the right of the case screen while ``?`` has it open."""

    def __init__(self, screen: Screen[Any]) -> None:
        self.text = help_text(screen)
        # its text made with it, not composed after: mounted at once with the pane, and laid out
        # and drawn in the same frame
        super().__init__(
            Static(drawn(self.text, screen.app.console), id="help-text"), id="help-pane"
        )
        self._sized = False

    def on_resize(self) -> None:
        if not self._sized:  # laid out: the collector held as it opened goes after its frame
            self._sized = True
            release_after_frame(self)


def open_help(screen: Screen[Any]) -> Widget:
    """Show the help over the right of ``screen``'s panes (in its ``#help-dock``); returns the
    dock, which the screen draws whole as the pane first shows (see
    :class:`casefile.tui.widgets.backdrop.Drawn`)."""
    hold_collector(screen.app)  # until the pane is drawn (see widgets.collector)
    dock = screen.query_one("#help-dock", Widget)
    dock.mount(HelpPane(screen))
    dock.add_class("-open")  # with the pane in it: laid out and drawn together
    return dock


def close_help(screen: Screen[Any]) -> bool:
    """Close the help if it is open on ``screen``; whether it was."""
    shown = screen.query(HelpPane)
    if not shown:
        return False
    shown.remove()
    screen.query_one("#help-dock").remove_class("-open")
    release_collector()  # closed before its first frame: nothing else would let it go
    drop_rendered_lines()  # the lines the pane rendered (see widgets.leftovers)
    return True
