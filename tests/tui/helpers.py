"""Waiting for the TUI in Pilot tests: the case thread answers asynchronously."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.pilot import Pilot

if TYPE_CHECKING:
    from casefile.tui.dialogs.form import FormDialog

#: Generous: the case thread folds in the background on a shared, noisy machine.
SLACK_S = 15.0


async def settle(pilot: Pilot[None], until: Callable[[], bool], timeout: float = SLACK_S) -> None:
    """Let the app run until ``until()`` holds (or fail after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise AssertionError("the TUI did not reach the expected state in time")
        await pilot.pause(0.05)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def case_ready(app: object) -> Callable[[], bool]:
    """Whether the case screen is up and has drawn its first frame."""
    from casefile.tui.screens.case import CaseScreen

    def ready() -> bool:
        screen = app.screen  # type: ignore[attr-defined]
        return isinstance(screen, CaseScreen) and screen.frame is not None

    return ready


def recorded(app: object) -> Callable[[], bool]:
    """Whether the case screen is back and has logged a command (an action went through)."""
    from casefile.tui.screens.case import CaseScreen

    def done() -> bool:
        screen = app.screen  # type: ignore[attr-defined]
        return isinstance(screen, CaseScreen) and bool(screen.commands)

    return done


async def open_form(pilot: Pilot[None], key: str) -> FormDialog:  # type: ignore[type-arg]
    """Wait for the case screen, press ``key`` and return the form it opens."""
    from casefile.tui.dialogs.form import FormDialog

    app = pilot.app
    await settle(pilot, case_ready(app))
    await pilot.press(key)
    await settle(pilot, lambda: isinstance(app.screen, FormDialog))
    dialog = app.screen
    assert isinstance(dialog, FormDialog)
    return dialog
