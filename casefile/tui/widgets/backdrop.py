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
  with regions is what drops the kept lines; a new size or style does too. A screen beneath
  that says when it changes (the case screen, see :func:`backdrop`) keeps them for the next
  screen opened over it, too: the backdrop was a fifth of a dialog's first frame.
- **The first resume.** A pushed screen mounts its widgets, each styled as it mounts; then its
  first ``ScreenResume`` restyles the whole screen again (a resume normally follows a time under
  another screen, when the theme may have changed). On the first one nothing can have changed,
  and restyling a dialog of ten fields took as long as styling it.
- **The frame after the first.** A screen's first frame is drawn whole, as it resumes. Each of
  its widgets, sized by that layout, has meanwhile asked for its region to be drawn again, and
  at the next frame Textual drew every one of them again, unchanged (a quarter of the frame's
  work in the probe dialog): the requests made before the first whole frame are dropped as it
  is drawn (:class:`Drawn`; one made while it is drawn stands).
- **The collector.** Held while it opens (see :mod:`casefile.tui.widgets.collector`).
- **What the last one left.** Each one opened drops the watchers that the widgets of those closed
  before it set on the app (every text area watches the app's theme), and each one closed the
  lines its widgets rendered, which Textual would keep (see
  :mod:`casefile.tui.widgets.leftovers`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events, messages
from textual._time import get_time
from textual.cache import LRUCache
from textual.color import Color
from textual.command import CommandPalette
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget

from casefile.tui.widgets.collector import (
    hold_collector,
    release_after_frame,
    release_collector,
)
from casefile.tui.widgets.leftovers import drop_rendered_lines, prune_watchers

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


def backdrop(rendered: VisualType, kept: KeptBackdrop | None) -> tuple[VisualType, KeptBackdrop]:
    """A modal screen's own rendering, its backdrop (if it has one) kept: in ``kept``, else in
    the one the screen beneath keeps for the screens opened over it (its ``kept_backdrop``: a
    screen that has one says when what it shows changes, on every redrawing of a widget of it,
    scroll or layout, so that a dialog opened, closed and another opened with nothing changed
    beneath shows the same lines), else in one of its own."""
    if kept is None:
        beneath = rendered.screen if isinstance(rendered, BackgroundScreen) else None
        shared = getattr(beneath, "kept_backdrop", None)
        kept = shared if isinstance(shared, KeptBackdrop) else KeptBackdrop()
    if isinstance(rendered, BackgroundScreen):
        return BackdropVisual(rendered.screen, rendered.color, kept), kept
    return rendered, kept


class Drawn:
    """A part of a screen (or all of it) about to be drawn whole, and when: the requests of the
    widgets in it to be drawn again, all made before, will be met by that drawing. Those not yet
    sent are dropped at once (a widget's own lines, which it draws afresh when asked, are left as
    they are: what is dropped is only the screen's redrawing of its region), and those already on
    their way to the screen are dropped as they come (:meth:`met`). A request made while it is
    drawn, or after, stands."""

    def __init__(self) -> None:
        self.node: Widget | None = None
        self.at = float("-inf")

    def whole(self, node: Widget, *, with_self: bool) -> None:
        for widget in node.walk_children(Widget, with_self=with_self):
            for drawn in (widget, widget._vertical_scrollbar, widget._horizontal_scrollbar):
                if drawn is not None:
                    drawn._repaint_required = False
                    drawn._repaint_regions.clear()
        self.node = node
        self.at = get_time()

    def met(self, message: messages.Update) -> bool:
        """Whether ``message`` asked, before the last whole drawing, to draw a widget in it."""
        node = self.node
        if node is None or message.time >= self.at:
            return False
        widget = message.widget
        return widget is node or node in widget.ancestors

    def over(self, screen: Screen[Any], node: Widget, refresh: Any) -> bool:
        """Textual's ``_compositor_refresh`` (``refresh``) for ``screen``, on top; if what it
        draws covers all of ``node`` (laid out), ``node`` and what it holds are drawn whole.
        Returns whether they were."""
        region = node.region if node.is_attached else None
        covered = (
            bool(region)
            and screen is screen.app.screen
            and not screen.app.is_inline
            and any(dirty.contains_region(region) for dirty in screen._compositor._dirty_regions)
        )
        if covered:
            self.whole(node, with_self=True)
        refresh()
        return covered

    def first(self, screen: Screen[Any], refresh: Any) -> None:
        """Textual's ``_compositor_refresh`` (``refresh``) for ``screen``, which is drawn whole
        the first time it is drawn on top (its first frame, as it resumes)."""
        if (
            self.node is None
            and screen is screen.app.screen
            and not screen.app.is_inline
            and screen.size.region in screen._compositor._dirty_regions
        ):
            self.whole(screen, with_self=False)
        refresh()


class Overlay(ModalScreen[T]):
    """A modal screen over another: its backdrop kept, its first resume without a second
    styling (Textual reads a screen's CSS type names along its first bases, so this is a
    ``ModalScreen`` and not a mix-in)."""

    DEFAULT_CSS = ""  # ModalScreen's own applies
    _resumed = False
    _sized = False
    _drawn: Drawn | None = None
    _backdrop: KeptBackdrop | None = None

    def render(self) -> VisualType:  # type: ignore[override]  # a Visual, as Widget.render may
        rendered, self._backdrop = backdrop(super().render(), self._backdrop)
        return rendered

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

    def _compositor_refresh(self) -> None:
        if self._drawn is None:
            self._drawn = Drawn()
        self._drawn.first(self, super()._compositor_refresh)

    async def _on_update(self, message: messages.Update) -> None:
        if self._drawn is not None and self._drawn.met(message):
            message.stop()
            message.prevent_default()  # (not Screen's, which would draw it again)

    async def _compose(self) -> None:
        hold_collector(self.app)
        release_after_frame(self)  # its first refresh comes once it is laid out and drawn
        await super()._compose()

    def _on_mount(self, event: events.Mount) -> None:
        prune_watchers(self.app)

    def _on_unmount(self) -> None:
        release_collector()
        # its widgets have all closed by now (Textual unmounts a screen after its children): the
        # watchers they left go at once, not at the next opening, however late that comes
        prune_watchers(self.app)
        drop_rendered_lines()


class Palette(CommandPalette):
    """Textual's command palette, opened as an :class:`Overlay` is."""

    _resumed = False
    _sized = False
    _drawn: Drawn | None = None
    _backdrop: KeptBackdrop | None = None

    def render(self) -> VisualType:  # type: ignore[override]  # a Visual, as Widget.render may
        rendered, self._backdrop = backdrop(super().render(), self._backdrop)
        return rendered

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

    def _compositor_refresh(self) -> None:
        if self._drawn is None:
            self._drawn = Drawn()
        self._drawn.first(self, super()._compositor_refresh)

    async def _on_update(self, message: messages.Update) -> None:
        if self._drawn is not None and self._drawn.met(message):
            message.stop()
            message.prevent_default()  # (not Screen's, which would draw it again)

    async def _compose(self) -> None:
        hold_collector(self.app)
        release_after_frame(self)  # its first refresh comes once it is laid out and drawn
        await super()._compose()

    def _on_mount(self, event: events.Mount) -> None:
        prune_watchers(self.app)

    def on_unmount(self) -> None:  # (Textual runs each class's handler: CommandPalette's too)
        release_collector()
        prune_watchers(self.app)  # as an Overlay's
        drop_rendered_lines()


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
