"""A dialog's preview (the evidence dialog works out, on the case thread, what recording would
do) may still be on its way when the dialog closes: recorded with ctrl+s, or dropped with Esc.

It used to look its line up by a query once the case had answered; on a dialog already taken
off the screen that query found nothing and the worker's ``NoMatches`` ended the app (seen in
one CI run of the evidence test under load). Confirming no longer starts a preview at all, and
a preview that lands after the dialog closed writes nowhere. The Esc case covers the second
(the ctrl+s case's held preview is of a request the confirm has since rebuilt, so it is
dropped as stale either way); the ctrl+s case covers the first. ``message._sender`` and
``app._exception`` are Textual's private names (pinned at 8.2.8): what unmounted, and what
ended the app.
"""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from textual.message import Message

from casefile.tui.screens.case import CaseScreen
from tests.tui.conftest import build_app
from tests.tui.helpers import poll_until, recorded, settle
from tests.tui.test_actions import RESTS_ON, _evidence_dialog


@pytest.mark.parametrize("close", ["escape", "ctrl+s"])
async def test_a_preview_that_lands_after_the_dialog_closed_is_dropped(
    close: str, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = asyncio.Event()
    started: list[object] = []

    async def held_preview(self: CaseScreen, request: object) -> str:
        started.append(request)
        await gate.wait()  # the case answers only once the dialog has closed
        return "If recorded now: …"

    monkeypatch.setattr(CaseScreen, "_evidence_preview", held_preview)
    closing: list[object] = []

    def hook(message: Message) -> None:
        if isinstance(message, events.Unmount) and message._sender in closing:
            gate.set()

    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45), message_hook=hook) as pilot:
        dialog = await _evidence_dialog(app, pilot, RESTS_ON)
        # (not ``settle``, which also waits for the workers: this one waits for the gate)
        await poll_until(pilot, lambda: bool(started))
        on_its_way = len(started)
        # the case answers as the dialog is taken apart: its lines are gone, its worker not yet
        line = dialog.query_one("#form-preview")
        closing.append(line)
        if close == "escape":
            dialog.action_cancel()  # typed into: the first Esc asks, the second drops it
            dialog.action_cancel()
        else:
            await pilot.press("ctrl+s")
            await poll_until(pilot, recorded(app))
        await poll_until(pilot, lambda: isinstance(app.screen, CaseScreen))
        assert len(started) == on_its_way  # confirming started no preview of its own
        await settle(pilot, lambda: True)  # every worker done, the held preview's included
        assert app._exception is None
        assert app.is_running
