"""Waiting for the TUI in Pilot tests: the case thread answers asynchronously."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from textual.pilot import Pilot

from tests.waiting import WAIT_S

if TYPE_CHECKING:
    from casefile.tui.dialogs.form import FormDialog

#: Generous: the case thread folds in the background on a shared, noisy machine (polled, so
#: the deadline costs nothing when the state comes early).
SLACK_S = WAIT_S


async def poll_until(
    pilot: Pilot[None],
    condition: Callable[[], object],
    timeout: float = SLACK_S,
    what: str = "the TUI did not reach the expected state in time",
) -> None:
    """Let the app run until ``condition()`` holds (or fail after ``timeout`` seconds), without
    waiting for its workers: one may be running a probe that only a cancel ends."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            try:
                state = app_state(pilot.app)
            except Exception as error:  # an app with no screen left: say that, not a new error
                state = f"no state: {error!r}"
            raise AssertionError(f"{what}; {state}")
        await pilot.pause(0.05)


def app_state(app: object) -> str:
    """What the app shows and holds, for a failure's message: a wait that timed out on a
    loaded machine is read from this, not rerun until it fails again."""
    from casefile.tui.dialogs.form import FormDialog

    screens = [type(screen).__name__ for screen in getattr(app, "screen_stack", [])]
    focused = getattr(app, "focused", None)
    parts = [f"screens {screens}", f"focused {type(focused).__name__ if focused else None}"]
    screen = getattr(app, "screen", None)
    if isinstance(screen, FormDialog):
        parts.append(f"form {screen.values()!r} (complete {screen.complete})")
    held = getattr(app, "_held_keys", ())
    bounced = getattr(app, "_bounced", ())
    parts.append(f"keys held {[k.key for k in held]}, bounced {[k.key for k in bounced]}")
    giving = getattr(app, "_giving", None)
    parts.append(f"giving {giving.key if giving is not None else None}")
    notes = [n.message for n in getattr(app, "_notifications", [])]
    parts.append(f"notifications {notes[-3:]}")
    return "; ".join(parts)


async def settle(pilot: Pilot[None], until: Callable[[], bool], timeout: float = SLACK_S) -> None:
    """Let the app run until ``until()`` holds (or fail after ``timeout`` seconds), then until
    its workers are done."""
    await poll_until(pilot, until, timeout)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def case_ready(app: object) -> Callable[[], bool]:
    """Whether the case screen is up and has drawn its first frame."""
    from casefile.tui.screens.case import CaseScreen

    def ready() -> bool:
        screen = app.screen  # type: ignore[attr-defined]
        return isinstance(screen, CaseScreen) and screen.frame is not None

    return ready


def case_at_rest(app: object) -> Callable[[], bool]:
    """Whether the case screen has done what it does after its first frame: the chain checked
    (the status bar says so) and the detail of the event under the cursor fetched (a timer
    once the cursor rests, then a worker). A test that compares two moments of the screen
    waits for this first: either can land between them on a loaded machine."""
    from casefile.tui.screens.case import CaseScreen
    from casefile.tui.widgets.status_bar import StatusBar, StatusLine

    def resting() -> bool:
        screen = app.screen  # type: ignore[attr-defined]
        if not isinstance(screen, CaseScreen) or screen.frame is None:
            return False
        checked = screen.query_one(StatusBar).status.chain != StatusLine.chain
        return checked and screen._detail_timer is None

    return resting


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
    # with every field mounted (those below the fold follow the first frame)
    await settle(pilot, lambda: isinstance(app.screen, FormDialog) and app.screen.complete)
    dialog = app.screen
    assert isinstance(dialog, FormDialog)
    return dialog


def count_footer_rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each rebuild of the case footer from now on, by the type of the screen on top then."""
    from casefile.tui.widgets.footer import CaseFooter

    rebuilt: list[str] = []
    recompose = CaseFooter.recompose

    async def counted(self: CaseFooter) -> None:
        rebuilt.append(type(self.app.screen).__name__)
        await recompose(self)

    monkeypatch.setattr(CaseFooter, "recompose", counted)
    return rebuilt
