"""Dialogs and the palette open over the case screen without Textual's repeated work (issue 25):
the backdrop is Textual's picture, each style tinted once; a pushed dialog is not restyled whole
on its first resume; ctrl+p opens the palette that does the same."""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen

from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from casefile.tui.widgets import backdrop
from casefile.tui.widgets.backdrop import CachedBackdrop, Palette, first_resume, tint
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, settle

SIZE = (160, 45)


def test_the_tint_is_textuals_and_worked_out_once_per_style(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    styles = [Style(color="red", bgcolor="blue", bold=True), Style(color="#102030"), None]
    segments = [Segment(f"{n}", styles[n % 3]) for n in range(300)]
    segments.append(Segment("\x1b", None, [(1,)]))  # type: ignore[list-item]  # a control code
    color = Color(18, 18, 18, 0.6)
    expected = list(BackgroundScreen.process_segments(segments, color))
    calls = 0
    textual = BackgroundScreen.process_segments

    def counted(segs: Any, c: Color) -> Any:
        nonlocal calls
        calls += 1
        return textual(segs, c)

    backdrop._TINTED.clear()
    monkeypatch.setattr(BackgroundScreen, "process_segments", counted)
    assert list(tint(segments, color)) == expected
    assert calls == 3  # once per style, not once per segment


async def test_the_backdrop_draws_the_case_screen_as_textual_does(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        options = app.console.options.update_dimensions(*SIZE)
        color = Color(18, 18, 18, 0.6)
        textual = list(app.console.render(BackgroundScreen(screen, color), options))
        assert list(app.console.render(CachedBackdrop(screen, color), options)) == textual


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


async def test_ctrl_p_opens_the_palette_over_the_cached_backdrop(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, Palette))
        assert app.screen.styles.background.a < 1  # Textual's translucent backdrop, kept
