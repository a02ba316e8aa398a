"""Screens that open over the case screen (the dialogs, the command palette, the ingest review)
without work Textual would do twice: the same picture, sooner.

- **The backdrop.** Textual draws a translucent modal screen over the one beneath by rendering
  that screen again and blending the backdrop's colour into every segment's colours
  (``BackgroundScreen``): each segment a colour conversion, a blend and a new style, though a
  screen uses a few dozen styles. :class:`CachedBackdrop` gives the same segments with each
  style's tint worked out once.
- **The first resume.** A pushed screen mounts its widgets, each styled as it mounts; then its
  first ``ScreenResume`` restyles the whole screen again (a resume normally follows a time under
  another screen, when the theme may have changed). On the first one nothing can have changed,
  and restyling a dialog of ten fields took as long as styling it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.color import Color
from textual.command import CommandPalette
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen

T = TypeVar("T")

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult

#: (style, tint) → the tinted style, as Textual's backdrop makes it (a screen's styles are few;
#: a theme change makes new ones, and the oldest go)
_TINTED: LRUCache[tuple[Style | None, Color], Style] = LRUCache(4096)


def tinted(style: Style | None, color: Color) -> Style:
    """``style`` under the backdrop's ``color``, by Textual's own blend (one segment's worth)."""
    key = (style, color)
    found = _TINTED.get(key)
    if found is None:
        (segment,) = BackgroundScreen.process_segments([Segment(" ", style)], color)
        found = _TINTED[key] = segment.style or Style()
    return found


def tint(segments: Iterable[Segment], color: Color) -> Iterable[Segment]:
    """The segments with the backdrop's tint, links and meta removed (control codes kept)."""
    for segment in segments:
        text, style, control = segment
        yield segment if control else Segment(text, tinted(style, color), control)


class CachedBackdrop(BackgroundScreen):
    """Textual's backdrop with the tint of each style remembered."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from tint(console.render(self.screen._compositor, options), self.color)


def backdrop(rendered: RenderableType) -> RenderableType:
    """A modal screen's own rendering, its backdrop (if it has one) the cached one."""
    if isinstance(rendered, BackgroundScreen) and not isinstance(rendered, CachedBackdrop):
        return CachedBackdrop(rendered.screen, rendered.color)
    return rendered


class Overlay(ModalScreen[T]):
    """A modal screen over another: its backdrop cached, its first resume without a second
    styling (Textual reads a screen's CSS type names along its first bases, so this is a
    ``ModalScreen`` and not a mix-in)."""

    DEFAULT_CSS = ""  # ModalScreen's own applies
    _resumed = False

    def render(self) -> RenderableType:
        return backdrop(super().render())

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        self._resumed = first_resume(self._resumed, event)


class Palette(CommandPalette):
    """Textual's command palette, opened as an :class:`Overlay` is."""

    _resumed = False

    def render(self) -> RenderableType:
        return backdrop(super().render())

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        self._resumed = first_resume(self._resumed, event)


def first_resume(resumed: bool, event: events.ScreenResume) -> bool:
    """On a screen's first resume, its styles are those its widgets were given as they mounted a
    moment ago: Textual's handler (Screen's, dispatched after the subclass's) is told not to
    restyle them all again. Returns that the screen has resumed."""
    if not resumed:
        event.refresh_styles = False
    return True
