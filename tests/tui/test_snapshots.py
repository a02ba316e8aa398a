"""How each screen looks: SVG snapshots at fixed sizes, grouped by feature.

The reference case's events carry fixed times, the database label is fixed, and text cursors do
not blink, so every run draws the same screen. Textual is pinned exactly in pyproject.toml
(snapshots change with its rendering); refresh them with ``pytest tests/tui --snapshot-update``
and look at every changed SVG before committing it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from casefile.tui.screens.case_list import CaseListScreen
from casefile.tui.widgets.status_bar import StatusBar
from tests.tui.conftest import build_app
from tests.tui.helpers import poll_until, settle

WIDE = (160, 45)
SMALL = (80, 24)


@pytest.fixture(autouse=True)
def no_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FormDialog, "BLINK", False)


def opened(*keys: str, then: Callable[[Pilot[None]], Awaitable[None]] | None = None) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = app.screen
        await settle(pilot, lambda: "verifies" in screen.query_one(StatusBar).status.chain)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        if then is not None:
            await then(pilot)
        await pilot.pause()

    return run_before


def at(seq: int, *more: str) -> Any:
    async def focus(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        await pilot.press("colon", *str(seq), "enter")
        await settle(
            pilot, lambda: getattr(screen, "frame", None) is not None and screen.frame.seq == seq
        )  # type: ignore[attr-defined]
        for key in more:
            await pilot.press(key)
            await pilot.pause()

    return opened(then=focus)


def dialog_open(key: str, **values: str) -> Any:
    async def fill(pilot: Pilot[None]) -> None:
        from tests.tui.test_actions import fill as fill_fields

        await pilot.press(key)
        app = pilot.app
        await settle(pilot, lambda: isinstance(app.screen, FormDialog) and app.screen.complete)
        screen = pilot.app.screen
        assert isinstance(screen, FormDialog)
        fill_fields(screen, values)
        # a text cursor's cell is drawn only in the focused field: put the focus somewhere
        # fixed so the screenshot does not depend on when the first field took it
        screen.query_one("#form-cancel").focus()
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.1)

    return opened(then=fill)


class TestCaseScreen:
    def test_live_reference_case(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=opened())

    @pytest.mark.parametrize("seq", [28, 29, 30])
    def test_replay_around_the_pivot(self, snap_compare: Any, db_url: str, seq: int) -> None:
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=at(seq))

    def test_hypothesis_detail(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(
            build_app(db_url), terminal_size=WIDE, run_before=opened("2", "j", "j", "j")
        )

    def test_next_steps(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=opened("4"))

    def test_filter(self, snap_compare: Any, db_url: str) -> None:
        keys = ("slash", *"evidence", "enter")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=opened(*keys))

    def test_help(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(
            build_app(db_url), terminal_size=WIDE, run_before=opened("question_mark")
        )

    def test_no_color(
        self, snap_compare: Any, db_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # meaning survives without colour: glyphs and words mark leader, pivots, warnings
        monkeypatch.setenv("NO_COLOR", "1")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=at(28))

    def test_read_only(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(
            build_app(db_url, read_only=True), terminal_size=WIDE, run_before=opened()
        )


class TestSmallTerminal:
    def test_live_80x24(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(build_app(db_url), terminal_size=SMALL, run_before=opened())

    def test_replay_80x24(self, snap_compare: Any, db_url: str) -> None:
        assert snap_compare(build_app(db_url), terminal_size=SMALL, run_before=at(28))


class TestDialogs:
    def test_note(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open("n", text="PCIe link at ~1 GB/s of 64 under load")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_hypothesis_with_a_bad_prior(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open("plus", text="CPU launch overhead", under="compute-launch", prior="1.5")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_evidence(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open(
            "e", likelihoods="compute-launch=0.8\npcie-bound=0.1", because="nsys: launch gaps"
        )
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_probe(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open("p", probe="nvidia-smi-q", load="under-load")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_conclude(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open("c", summary="Launch-bound at low batch", recommendations="CUDA graphs")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_report(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open("r", path="postmortem.html", redact="yes")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_jump(self, snap_compare: Any, db_url: str) -> None:
        run = dialog_open("colon", where="09:51")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)


class TestProbeRun:
    def test_a_probe_in_progress(self, snap_compare: Any, db_url: str) -> None:
        async def running(pilot: Pilot[None]) -> None:
            from tests.tui.test_actions import fill as fill_fields

            screen = pilot.app.screen
            await pilot.press("p")
            await settle(pilot, lambda: isinstance(pilot.app.screen, FormDialog))
            dialog = pilot.app.screen
            assert isinstance(dialog, FormDialog)
            fill_fields(dialog, {"probe": "command", "argv": "sleep 30"})
            await pilot.press("ctrl+s")
            # (not settle(): it waits for every worker, the 30-second probe included)
            await poll_until(
                pilot,
                lambda: getattr(screen, "probe_cancel", None) is not None,
                what="the probe never started",
            )
            await pilot.press("4")  # the next steps tab: the same screen whatever the timing
            await pilot.pause(0.2)

        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=opened(then=running))


class TestCaseList:
    def test_new_case_dialog(self, snap_compare: Any, db_url: str) -> None:
        async def new(pilot: Pilot[None]) -> None:
            from tests.tui.test_actions import fill as fill_fields

            screen = pilot.app.screen
            await settle(pilot, lambda: isinstance(screen, CaseListScreen) and bool(screen.rows))
            await pilot.press("n")
            await settle(pilot, lambda: isinstance(pilot.app.screen, FormDialog))
            dialog = pilot.app.screen
            assert isinstance(dialog, FormDialog)
            fill_fields(dialog, {"title": "Slow decode", "environment": "gpu=H100\nnodes=2"})
            dialog.query_one("#form-cancel").focus()
            await pilot.pause(0.1)

        assert snap_compare(build_app(db_url, case=None), terminal_size=WIDE, run_before=new)

    def test_case_list(self, snap_compare: Any, db_url: str) -> None:
        async def listed(pilot: Pilot[None]) -> None:
            screen = pilot.app.screen
            await settle(pilot, lambda: isinstance(screen, CaseListScreen) and bool(screen.rows))

        assert snap_compare(build_app(db_url, case=None), terminal_size=WIDE, run_before=listed)


class TestLargeCase:
    def test_a_10000_event_case_live_and_in_replay(self, snap_compare: Any, tmp_path: Any) -> None:
        """The synthetic 10,000-event case of the benchmarks (fixed times), scrolled to a step
        in the middle of its history: timeline, tree and sparklines as they were there."""
        from benchmarks.bench_tui import build

        url = build(tmp_path / "big.db", 10_000, "big")
        assert snap_compare(build_app(url, case="big"), terminal_size=WIDE, run_before=at(5_000))
