"""The timing helper measures work done, not time waited."""

from __future__ import annotations

import gc
import time

from tests.timing import cpu_seconds


def test_time_spent_waiting_is_not_counted() -> None:
    assert cpu_seconds(lambda: time.sleep(0.2), rounds=1) < 0.1


def test_work_is_counted() -> None:
    def spin() -> None:
        until = time.process_time() + 0.2
        while time.process_time() < until:
            pass

    assert cpu_seconds(spin, rounds=2) >= 0.2


def test_the_collector_is_paused_during_the_call_and_restored_after() -> None:
    seen: list[bool] = []
    assert gc.isenabled()
    cpu_seconds(lambda: seen.append(gc.isenabled()))
    assert seen == [False, False, False]
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        cpu_seconds(lambda: None)
        assert not gc.isenabled()
    finally:
        gc.enable()
