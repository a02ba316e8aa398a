"""The collector held while a dialog opens (``widgets.collector``): let go by the frame, by a
close, or by the fail-safe timer, and the timer stopped as soon as it is let go (its task kept
the opening dialog's context, and so the dialog, alive for up to a second)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from casefile.tui.widgets import collector


class FakeTimer:
    def __init__(self, callback: Any) -> None:
        self.callback = callback
        self.stopped = 0

    def stop(self) -> None:
        self.stopped += 1


class FakeApp:
    def __init__(self) -> None:
        self.timers: list[FakeTimer] = []

    def set_timer(self, delay: float, callback: Any, name: str = "") -> FakeTimer:
        assert delay == collector.LONGEST_S and name == "release-collector"
        timer = FakeTimer(callback)
        self.timers.append(timer)
        return timer


@pytest.fixture(autouse=True)
def collector_enabled() -> Iterator[None]:
    gc.enable()
    yield
    collector.release_collector()
    gc.enable()


def test_letting_go_stops_the_fail_safe_timer() -> None:
    app = FakeApp()
    collector.hold_collector(app)
    assert not gc.isenabled()
    (timer,) = app.timers
    collector.release_collector()
    assert gc.isenabled() and timer.stopped == 1
    collector.release_collector()  # again: nothing left to stop
    assert timer.stopped == 1


def test_the_fail_safe_firing_lets_go_without_stopping_itself() -> None:
    app = FakeApp()
    collector.hold_collector(app)
    (timer,) = app.timers
    timer.callback()
    assert gc.isenabled() and timer.stopped == 0


def test_holding_twice_makes_one_timer_and_a_collector_turned_off_elsewhere_is_left_alone() -> None:
    app = FakeApp()
    collector.hold_collector(app)
    collector.hold_collector(app)
    assert len(app.timers) == 1
    collector.release_collector()
    gc.disable()  # someone else's
    collector.hold_collector(app)
    assert len(app.timers) == 1
    collector.release_collector()
    assert not gc.isenabled()  # not ours to turn on
