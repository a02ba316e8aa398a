"""The case screen's help: its keys, read from the screen's own bindings (so a key added or
hidden there is added or hidden here), and a legend of the timeline's marks, read from where
the marks are defined (:data:`casefile.app.views.board.MARK_GLYPHS`).

A plain Rich text in one scrollable pane: it opens in one frame on a case of any length
(Textual's own help panel renders Markdown and a key table per focus change).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from casefile.app.views.board import MARK_GLYPHS

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.binding import Binding
    from textual.screen import Screen

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


class HelpPane(VerticalScroll, can_focus=False):
    """Docked on the right of the case screen while ``?`` has it open."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__(id="help-pane")
        self.text = help_text(screen)

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="help-text")
