"""The case screen's help and footer: ``b`` (back to the case list) is offered in both, and
the help has a legend for every mark the timeline draws, read from where the marks are
defined."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from casefile.app.views.board import MARK_GLYPHS
from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from casefile.tui.screens.case_list import CaseListScreen
from casefile.tui.widgets.help_pane import MARK_MEANINGS, HelpPane, legend
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, count_footer_rebuilds, poll_until, settle


def test_every_mark_has_a_meaning_in_the_legend() -> None:
    assert set(MARK_MEANINGS) == set(MARK_GLYPHS)
    assert [glyph for glyph, _ in legend()] == list(MARK_GLYPHS.values())


async def test_b_is_in_the_footer_and_takes_you_back_to_the_case_list(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, case_ready(app))
        footer = {key.key: key.description for key in app.screen.query(FooterKey)}
        assert footer.get("b") == "cases"
        await pilot.press("b")
        await poll_until(pilot, lambda: isinstance(app.screen, CaseListScreen))


async def test_the_help_lists_b_and_the_legend_of_the_timeline_marks(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("question_mark")
        await poll_until(pilot, lambda: bool(screen.query(HelpPane)))
        text = screen.query_one(HelpPane).text.plain
        lines = text.splitlines()
        assert any(
            line.split() == ["b", "cases", "—", "back", "to", "the", "case", "list"]
            for line in lines
        )
        for glyph, meaning in legend():
            assert f" {glyph}  {meaning}" in lines
        assert "pivot: a different hypothesis leads from here ([ and ] jump)" in text
        # what the keys do, not only the footer's: the hidden replay keys are there too
        assert any(line.split()[:1] == ["]"] for line in lines)
        await pilot.press("question_mark")
        await poll_until(pilot, lambda: not screen.query(HelpPane), what="? did not close it")


async def test_the_footer_is_not_rebuilt_under_a_dialog_and_catches_up_after(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rebuilding the hidden footer cost a third of a dialog's opening (bench_tui_dialogs.py)."""
    rebuilt = count_footer_rebuilds(monkeypatch)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        await pilot.press("n")
        await poll_until(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.pause(0.2)
        assert [name for name in rebuilt if name != "CaseScreen"] == []
        app.screen.dismiss(None)
        await poll_until(pilot, lambda: app.screen is screen)
        await pilot.pause(0.2)
        footer = {key.key for key in screen.query(FooterKey)}
        assert {"b", "n", "p", "q"} <= footer


async def test_esc_closes_the_help_and_keeps_the_replay_step(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("left")  # into replay: Esc would also leave it, but closes help first
        await poll_until(pilot, lambda: screen.focus_seq is not None, what="no replay step")
        step = screen.focus_seq
        await pilot.press("question_mark")
        await poll_until(pilot, lambda: bool(screen.query(HelpPane)))
        await pilot.press("escape")
        await poll_until(pilot, lambda: not screen.query(HelpPane), what="Esc did not close it")
        assert screen.focus_seq == step


async def test_the_help_opens_over_the_panes_and_leaves_them_as_they_are(db_url: str) -> None:
    """Docked beside the panes, the help narrowed them: every pane laid out and drawn again
    at its new width as the help opened and as it closed (issue 25: most of its opening)."""
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        panes = ["#timeline", "#tree", "#tabs", "#status"]
        before = {name: screen.query_one(name).region for name in panes}
        await pilot.press("question_mark")
        await poll_until(pilot, lambda: any(p.size.area for p in screen.query(HelpPane)))
        await pilot.pause()
        help_pane = screen.query_one(HelpPane)
        assert {name: screen.query_one(name).region for name in panes} == before
        side = screen.query_one("#side").region
        assert help_pane.region.right == side.right and help_pane.region.overlaps(side)
        text = "\n".join(strip.text for strip in screen._compositor.render_strips())
        assert "Timeline marks" in text  # drawn over the side pane
        await pilot.press("question_mark")
        await poll_until(pilot, lambda: not screen.query(HelpPane))
        assert {name: screen.query_one(name).region for name in panes} == before


async def test_help_closed_before_its_first_frame_lets_the_collector_go(db_url: str) -> None:
    """Opening the help holds the collector until the pane is drawn; closed at once (no frame
    between), the close lets it go rather than the one-second fail-safe."""
    import gc

    from casefile.tui.widgets.help_pane import close_help, open_help

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        assert gc.isenabled()
        open_help(app.screen)
        assert not gc.isenabled()
        assert close_help(app.screen)
        assert gc.isenabled()
