"""fan_out with fake runners: ordering, isolation of failures, bounded concurrency."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from casefile.probes.runners import LocalRunner, RunResult, fan_out, fan_out_as_completed
from tests.waiting import wait_until


@dataclass
class FakeRunner:
    host: str
    delay_s: float = 0.0
    fail: bool = False
    tracker: ConcurrencyTracker | None = None
    source: str = "fake"

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> RunResult:
        if self.tracker:
            self.tracker.enter()
        try:
            time.sleep(self.delay_s)
            if self.fail:
                raise RuntimeError("runner bug")
            return RunResult(tuple(argv), self.host, 0, self.host, "", "t", "t", self.delay_s)
        finally:
            if self.tracker:
                self.tracker.leave()


@dataclass
class ConcurrencyTracker:
    lock: threading.Lock = field(default_factory=threading.Lock)
    now: int = 0
    peak: int = 0

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def test_results_in_target_order() -> None:
    runners = [FakeRunner(f"h{i}", delay_s=0.05 * (5 - i)) for i in range(5)]
    results = fan_out(runners, ["x"])
    assert [r.host for r in results] == ["h0", "h1", "h2", "h3", "h4"]


def test_as_completed_yields_fast_hosts_first() -> None:
    runners = [FakeRunner("slow", delay_s=0.5), FakeRunner("fast")]
    order = [runners[i].host for i, _ in fan_out_as_completed(runners, ["x"])]
    assert order == ["fast", "slow"]


def test_a_runner_that_raises_becomes_an_error_result() -> None:
    results = fan_out([FakeRunner("bad", fail=True), FakeRunner("good")], ["x"])
    assert results[0].error == "runner failed: RuntimeError: runner bug"
    assert results[0].error_kind == "internal"
    assert results[0].host == "bad"
    assert results[0].source == "fake"
    assert results[1].ok


def test_concurrency_is_bounded() -> None:
    tracker = ConcurrencyTracker()
    runners = [FakeRunner(f"h{i}", delay_s=0.05, tracker=tracker) for i in range(12)]
    fan_out(runners, ["x"], max_workers=3)
    assert tracker.peak == 3


def test_runs_concurrently() -> None:
    start = time.monotonic()
    fan_out([FakeRunner(f"h{i}", delay_s=0.3) for i in range(8)], ["x"])
    assert time.monotonic() - start < 0.9


def test_empty_and_mixed_runners() -> None:
    assert fan_out([], ["true"]) == []
    results = fan_out([LocalRunner(), FakeRunner("f")], ["true"])
    assert results[0].ok and results[0].source == "local"


def test_cancel_answers_within_the_grace_even_for_runners_that_ignore_it() -> None:
    from casefile.probes.runners.cancel import CancelToken
    from casefile.probes.runners.fanout import CANCEL_GRACE_S

    token = CancelToken()
    tracker = ConcurrencyTracker()
    runners = [
        FakeRunner("quick"),
        FakeRunner("stuck", delay_s=5, tracker=tracker),
        FakeRunner("stuck too", delay_s=5, tracker=tracker),
        FakeRunner("queued"),  # behind the stuck two: never starts
    ]
    got: dict[str, tuple[RunResult, float]] = {}
    cancelled_at: list[float] = []

    def cancel_once_both_are_stuck() -> None:
        wait_until(lambda: "quick" in got, what="the quick result handed over as it came")
        wait_until(lambda: tracker.now == 2, what="both stuck runners started")
        cancelled_at.append(time.monotonic())
        token.cancel("test")

    threading.Thread(target=cancel_once_both_are_stuck, daemon=True).start()
    for i, result in fan_out_as_completed(runners, ["x"], max_workers=2, cancel=token):
        got[runners[i].host] = (result, time.monotonic())
    assert cancelled_at, "the quick result or the stuck runners never came"
    # the grace, a poll, and the rest of a second on a loaded machine: not the stuck ones' 5 s
    assert time.monotonic() - cancelled_at[0] < CANCEL_GRACE_S + 0.7
    assert got["quick"][0].ok and got["quick"][1] < cancelled_at[0]
    for host in ("stuck", "stuck too", "queued"):
        result = got[host][0]
        assert result.cancelled and result.host == host and result.source == "fake"
        assert result.error is not None and "cancelled (test)" in result.error
