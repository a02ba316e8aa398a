"""Dialogs and the palette open over the case screen without Textual's repeated work (issue 25):
the backdrop is Textual's picture, each style tinted once; a pushed dialog is not restyled whole
on its first resume; ctrl+p opens the palette that does the same."""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual._context import visible_screen_stack
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import RichVisual, Visual
from textual.widgets import TextArea

from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from casefile.tui.widgets import backdrop
from casefile.tui.widgets.backdrop import BackdropVisual, Palette, first_resume, styled
from casefile.tui.widgets.status_bar import StatusBar
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, poll_until, settle

SIZE = (160, 45)


def test_the_tint_is_textuals_and_worked_out_once_per_style(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    styles = [Style(color="red", bgcolor="blue", bold=True), Style(color="#102030"), None]
    color = Color(18, 18, 18, 0.6)
    base = Style(bgcolor="#121212")
    calls = 0
    textual = BackgroundScreen.process_segments

    def counted(segs: Any, c: Color) -> Any:
        nonlocal calls
        calls += 1
        return textual(segs, c)

    backdrop._STYLED.clear()
    monkeypatch.setattr(BackgroundScreen, "process_segments", counted)
    for n in range(300):
        style = styles[n % 3]
        (expected,) = textual([Segment(" ", style)], color)
        assert styled(style, color, base) == base + expected.style
    assert calls == 3  # once per style, not once per segment


def lines_of(strips: list[Strip]) -> list[list[Segment]]:
    return [list(strip) for strip in strips]


async def test_the_backdrop_draws_the_case_screen_as_textual_does(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        visible_screen_stack.set([screen])  # type: ignore[list-item]  # as the compositor does
        mine = dialog.render()
        assert isinstance(mine, BackdropVisual)
        textual = RichVisual(dialog, BackgroundScreen(screen, dialog.styles.background))
        style = dialog.visual_style
        expected = Visual.to_strips(dialog, textual, *SIZE, style)
        assert lines_of(Visual.to_strips(dialog, mine, *SIZE, style)) == lines_of(expected)


async def test_the_backdrop_is_drawn_once_until_the_screen_beneath_changes(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual drew the case screen again each time the dialog was repainted (three or four
    times as it opened, then at each blink of its cursor)."""
    drawn: list[Screen[Any]] = []
    draw = backdrop.backdrop_lines

    def counted(beneath: Screen[Any], *args: Any) -> list[Strip]:
        drawn.append(beneath)
        return draw(beneath, *args)

    monkeypatch.setattr(backdrop, "backdrop_lines", counted)
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause(0.2)
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        kept = dialog._backdrop
        assert kept is not None
        # once, and once more for each change beneath (the case screen may still be busy)
        assert drawn and set(drawn) == {screen} and len(drawn) <= kept.version + 1
        opened, changes = len(drawn), kept.version
        for text in ("typed", "typed more", "typed again"):  # the dialog repaints
            dialog.query_one("#field-text", TextArea).text = text
            await poll_until(pilot, lambda text=text: text in shown(app))  # type: ignore[misc]
        assert len(drawn) - opened <= kept.version - changes  # none but for changes beneath
        typed = len(drawn)
        screen.query_one(StatusBar).change(notice="a change beneath the dialog")
        await poll_until(pilot, lambda: "a change beneath the dialog" in shown(app))
        assert len(drawn) > typed


def shown(app: Any) -> str:
    """The text of the screen as composed now (the dialog over its backdrop)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_dialog_is_laid_out_once_as_it_opens_and_again_when_the_terminal_resizes(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first layout told the dialog it was resized, and Textual laid out the dialog and the
    case screen beneath again at the same size."""
    resized: list[Screen[Any]] = []
    original = Screen._screen_resized

    def screen_resized(self: Screen[Any], size: Any) -> None:
        resized.append(self)
        original(self, size)

    monkeypatch.setattr(Screen, "_screen_resized", screen_resized)
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        resized.clear()
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause(0.2)
        dialog = app.screen
        assert resized == []
        assert "Note" in shown(app)
        await pilot.resize_terminal(100, 30)
        await poll_until(pilot, lambda: dialog.size == (100, 30) and screen.size == (100, 30))
        assert dialog in resized and screen in resized
        assert "Note" in shown(app)


async def test_a_dialog_opens_with_the_focus_on_its_first_field_and_moves_it_no_more(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's auto-focus took the field list first and the form's own focus moved it to the
    field after the first frame: a restyle and a paint more."""
    focused: list[str] = []
    original = Screen.set_focus

    def set_focus(self: Screen[Any], widget: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(self, FormDialog) and widget is not None and widget is not self.focused:
            focused.append(str(widget.id))
        original(self, widget, *args, **kwargs)

    monkeypatch.setattr(Screen, "set_focus", set_focus)
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause(0.2)
        assert focused == ["field-text"]
        assert app.focused is app.screen.query_one("#field-text")
        app.screen.dismiss(None)
        await settle(pilot, case_ready(app))
        focused.clear()
        await pilot.press("p")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause(0.2)
        assert focused == ["probe-picker"]
        assert app.focused is app.screen.query_one("#probe-picker")
        assert app.screen.query_one("#form-fields").scroll_y == 0


async def test_a_dialog_is_styled_once_as_it_opens(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual restyles a screen whole on each resume; the first follows its widgets' own
    styling by a moment, and a dialog skips it."""
    restyled: list[Screen[Any]] = []
    original = Screen.update_node_styles

    def update_node_styles(self: Any, animate: bool = True) -> None:
        if isinstance(self, Screen):
            restyled.append(self)
        original(self, animate)

    monkeypatch.setattr(Screen, "update_node_styles", update_node_styles)
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause()
        dialog = app.screen
        assert dialog.styles.background.a < 1  # still Textual's translucent modal backdrop
        assert dialog not in restyled


def test_later_resumes_restyle_as_textual_does() -> None:
    first, later = events.ScreenResume(), events.ScreenResume()
    assert first_resume(False, first) and not first.refresh_styles
    assert first_resume(True, later) and later.refresh_styles


async def test_ctrl_p_opens_the_palette_over_the_kept_backdrop(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, Palette))
        assert app.screen.styles.background.a < 1  # Textual's translucent backdrop, kept
        visible_screen_stack.set(list(app._background_screens))
        assert isinstance(app.screen.render(), BackdropVisual)
