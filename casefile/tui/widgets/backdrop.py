"""Screens that open over the case screen (the dialogs, the command palette, the ingest review)
without work Textual would do again: the same picture, sooner.

- **The backdrop.** Textual draws a translucent modal screen over the one beneath by rendering
  that screen again as one stream of segments, blending the backdrop's colour into every
  segment's colours and splitting the stream back into lines (``BackgroundScreen`` through a
  ``RichVisual``), each time the modal screen itself is repainted: three or four times as a
  dialog opens, and again at each blink of its cursor. :class:`BackdropVisual` gives the same
  lines from the strips of the screen beneath, each style's tint worked out once, and keeps them
  until the screen beneath changes. Textual passes on every change beneath by refreshing the
  screen on top with the regions that changed (``Screen._compositor_refresh``), so a refresh
  with regions is what drops the kept lines; a new size or style does too.
- **The first resume.** A pushed screen mounts its widgets, each styled as it mounts; then its
  first ``ScreenResume`` restyles the whole screen again (a resume normally follows a time under
  another screen, when the theme may have changed). On the first one nothing can have changed,
  and restyling a dialog of ten fields took as long as styling it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.color import Color
from textual.command import CommandPalette
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.visual import Visual

T = TypeVar("T")

if TYPE_CHECKING:
    from textual.css.styles import RulesMap
    from textual.geometry import Region
    from textual.screen import Screen
    from textual.style import Style as VisualStyle
    from textual.visual import RenderOptions, VisualType

#: (style, tint, the modal screen's own style, control) → the segment's style on the backdrop,
#: as Textual makes it (a screen's styles are few; a theme change makes new ones, and the
#: oldest go)
_STYLED: LRUCache[tuple[Style | None, Color, Style, bool], Style] = LRUCache(4096)


def tinted(style: Style | None, color: Color) -> Style:
    """``style`` under the backdrop's ``color``, by Textual's own blend (one segment's worth)."""
    (segment,) = BackgroundScreen.process_segments([Segment(" ", style)], color)
    return segment.style or Style()


def styled(style: Style | None, color: Color, base: Style, control: bool = False) -> Style:
    """A segment's style on the backdrop: tinted (a control code's is not), then under the
    modal screen's own style as Textual applies a widget's style to what it renders."""
    key = (style, color, base, control)
    found = _STYLED.get(key)
    if found is None:
        found = (style or Style()) if control else tinted(style, color)
        if base:
            found = base + found
        _STYLED[key] = found
    return found


class KeptBackdrop:
    """The backdrop's lines, kept until the screen beneath changes (see the module's note)."""

    def __init__(self) -> None:
        self.version = 0
        self._kept: tuple[tuple[Any, ...], list[Strip]] | None = None

    def changed(self) -> None:
        self.version += 1

    def lines(
        self, beneath: Screen[Any], color: Color, base: Style, width: int, height: int | None
    ) -> list[Strip]:
        key = (self.version, beneath, color, base, width, height)
        if self._kept is not None and self._kept[0] == key:
            return self._kept[1]
        lines = backdrop_lines(beneath, color, base, width, height)
        self._kept = (key, lines)
        return lines


def backdrop_lines(
    beneath: Screen[Any], color: Color, base: Style, width: int, height: int | None
) -> list[Strip]:
    """The lines of ``beneath`` as the backdrop shows them: each segment tinted and under
    ``base``, its control codes dropped, each line cropped to ``width`` (as Textual's stream of
    segments split back into lines has them)."""
    out: list[Strip] = []
    for strip in beneath._compositor.render_strips()[:height]:
        segments = [
            Segment(text, styled(style, color, base, bool(control)))
            for text, style, control in strip
        ]
        if strip.cell_length > width:
            segments = Segment.adjust_line_length(segments, width, pad=False)
        out.append(Strip(segments))
    return out


class BackdropVisual(Visual):
    """The screen beneath a modal screen, tinted: the lines Textual's ``RichVisual`` of a
    ``BackgroundScreen`` gives, made from strips and kept while nothing beneath changes."""

    def __init__(self, beneath: Screen[Any], color: Color, kept: KeptBackdrop) -> None:
        self.beneath = beneath
        self.color = color
        self.kept = kept

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        return self.kept.lines(self.beneath, self.color, style.rich_style, width, height)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.beneath._compositor.size.height


def backdrop(rendered: VisualType, kept: KeptBackdrop) -> VisualType:
    """A modal screen's own rendering, its backdrop (if it has one) the kept one."""
    if isinstance(rendered, BackgroundScreen):
        return BackdropVisual(rendered.screen, rendered.color, kept)
    return rendered


class Overlay(ModalScreen[T]):
    """A modal screen over another: its backdrop kept, its first resume without a second
    styling (Textual reads a screen's CSS type names along its first bases, so this is a
    ``ModalScreen`` and not a mix-in)."""

    DEFAULT_CSS = ""  # ModalScreen's own applies
    _resumed = False
    _sized = False
    _backdrop: KeptBackdrop | None = None

    def render(self) -> VisualType:  # type: ignore[override]  # a Visual, as Widget.render may
        if self._backdrop is None:
            self._backdrop = KeptBackdrop()
        return backdrop(super().render(), self._backdrop)

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Any:
        if regions and self._backdrop is not None:
            self._backdrop.changed()
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        self._resumed = first_resume(self._resumed, event)

    async def _on_resize(self, event: events.Resize) -> None:
        self._sized = first_resize(self, self._sized, event)


class Palette(CommandPalette):
    """Textual's command palette, opened as an :class:`Overlay` is."""

    _resumed = False
    _sized = False
    _backdrop: KeptBackdrop | None = None

    def render(self) -> VisualType:  # type: ignore[override]  # a Visual, as Widget.render may
        if self._backdrop is None:
            self._backdrop = KeptBackdrop()
        return backdrop(super().render(), self._backdrop)

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Any:
        if regions and self._backdrop is not None:
            self._backdrop.changed()
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        self._resumed = first_resume(self._resumed, event)

    async def _on_resize(self, event: events.Resize) -> None:
        self._sized = first_resize(self, self._sized, event)


def first_resume(resumed: bool, event: events.ScreenResume) -> bool:
    """On a screen's first resume, its styles are those its widgets were given as they mounted a
    moment ago: Textual's handler (Screen's, dispatched after the subclass's) is told not to
    restyle them all again. Returns that the screen has resumed."""
    if not resumed:
        event.refresh_styles = False
    return True


def first_resize(screen: Screen[Any], sized: bool, event: events.Resize) -> bool:
    """A pushed screen's first layout tells the screen itself it was resized, and Textual's
    handler lays out the screen and every screen beneath again at the same size, and paints
    again. When the screen and those beneath already have that size (and the screen has no
    breakpoints, which a resize would set), that second layout is left out: what it would paint
    is still due, and is painted with the next frame. Returns that the screen has been sized."""
    app = screen.app
    horizontal = screen.HORIZONTAL_BREAKPOINTS
    vertical = screen.VERTICAL_BREAKPOINTS
    breakpoints = (app.HORIZONTAL_BREAKPOINTS if horizontal is None else horizontal) or (
        app.VERTICAL_BREAKPOINTS if vertical is None else vertical
    )
    if sized or breakpoints:
        return True
    beneath = app._background_screens
    if screen.size == event.size and all(other.size == event.size for other in beneath):
        event.prevent_default()
        event.stop()
    return True
