"""Run one command on many hosts at once.

A fleet is only as slow as its slowest host if results wait for each other; here every target
runs in its own worker with its own timeout, and :func:`fan_out_as_completed` hands each result
over the moment it exists. A dead or hung host therefore costs its own timeout and nothing
else. A runner that raises (a bug, not a failed host) becomes a result with ``error`` set, so one
bad target never ends the batch (STYLE.md, "Failure inside a batch is data").

Cancelling (Ctrl-C) must answer within a second even when a worker is stuck where nothing can
interrupt it (a TCP connect, an SSH handshake): once the :class:`~.cancel.CancelToken` is
cancelled, the workers get :data:`CANCEL_GRACE_S` to hand in what they have (a runner built with
the same token stops on its own and says ``cancelled``), and every target still without a result
gets a cancelled one made here. Workers are daemon threads, so one still stuck in a connect
never holds up the process's exit the way a ``ThreadPoolExecutor`` (joined at exit) did.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

from casefile.domain.events import utc_now
from casefile.probes.runners.cancel import CANCELLED, POLL_S, CancelToken
from casefile.probes.runners.result import RunResult

DEFAULT_MAX_WORKERS = 16
#: How long cancelled workers may take to hand in their results before they are made here.
CANCEL_GRACE_S = 0.3


@runtime_checkable
class Runner(Protocol):
    """Anything that can run an argv somewhere: :class:`LocalRunner`, a bound SSH target …"""

    @property
    def host(self) -> str:
        """The name results carry in ``RunResult.host``."""
        ...

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> RunResult:
        """Run ``argv`` and return what happened; never raises for a failed host."""
        ...


def _run_safely(runner: Runner, argv: tuple[str, ...], timeout_s: float | None) -> RunResult:
    """Call ``runner.run`` and turn an unexpected exception into a result for that host."""
    started_at = utc_now()
    t0 = time.monotonic()
    try:
        return runner.run(argv, timeout_s=timeout_s)
    except Exception as e:  # a runner bug must not take the rest of the fleet down with it
        return _made_here(
            runner, argv, started_at, t0, f"runner failed: {type(e).__name__}: {e}", "internal"
        )


def _made_here(
    runner: Runner, argv: tuple[str, ...], started_at: str, t0: float, error: str, kind: str
) -> RunResult:
    return RunResult(
        argv=argv,
        host=_host_of(runner),
        exit_status=None,
        stdout="",
        stderr="",
        started_at=started_at,
        finished_at=utc_now(),
        duration_s=time.monotonic() - t0,
        error=error,
        source=getattr(runner, "source", "unknown"),
        error_kind=kind,
    )


def _host_of(runner: Runner) -> str:
    try:
        return str(runner.host)
    except Exception:
        return repr(runner)


class _Batch:
    """The work of one fan-out: a queue of target indexes, daemon workers, a queue of results."""

    def __init__(
        self, runners: Sequence[Runner], argv: tuple[str, ...], timeout_s: float | None
    ) -> None:
        self.runners = runners
        self.argv = argv
        self.timeout_s = timeout_s
        self.todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        self.done: queue.SimpleQueue[tuple[int, RunResult]] = queue.SimpleQueue()
        self.stopped = False  # no new target starts once set
        for i in range(len(runners)):
            self.todo.put(i)

    def start(self, workers: int) -> None:
        for n in range(workers):
            threading.Thread(target=self._work, name=f"casefile-fanout-{n}", daemon=True).start()

    def _work(self) -> None:
        while not self.stopped:
            try:
                i = self.todo.get_nowait()
            except queue.Empty:
                return
            self.done.put((i, _run_safely(self.runners[i], self.argv, self.timeout_s)))


def fan_out_as_completed(
    runners: Sequence[Runner],
    argv: Sequence[str],
    *,
    timeout_s: float | None = None,
    max_workers: int = DEFAULT_MAX_WORKERS,
    cancel: CancelToken | None = None,
) -> Iterator[tuple[int, RunResult]]:
    """Yield ``(index into runners, result)`` for each target as soon as its result exists.

    At most ``max_workers`` targets run at once. Leaving the loop early stops the targets that
    have not started; the ones already running finish in the background within their timeouts.
    Once ``cancel`` is cancelled, every target yields within :data:`CANCEL_GRACE_S` plus a poll:
    its own result if it has one by then, else a cancelled result (``error_kind="cancelled"``).
    """
    if max_workers < 1:
        raise ValueError("max_workers must be at least 1")
    args = tuple(argv)
    if not runners:
        return
    started_at, t0 = utc_now(), time.monotonic()
    batch = _Batch(runners, args, timeout_s)
    batch.start(min(max_workers, len(runners)))
    pending = set(range(len(runners)))
    grace_ends: float | None = None
    try:
        while pending:
            if cancel is not None and cancel.cancelled and grace_ends is None:
                batch.stopped = True
                grace_ends = time.monotonic() + CANCEL_GRACE_S
            wait = None if cancel is None else POLL_S
            if grace_ends is not None:
                wait = max(min(grace_ends - time.monotonic(), POLL_S), 0.0)
            try:
                i, result = batch.done.get(timeout=wait)
            except queue.Empty:
                if grace_ends is not None and time.monotonic() >= grace_ends:
                    break
                continue
            pending.discard(i)
            yield i, result
        for i in sorted(pending):  # cancelled, and their workers did not answer in time
            assert cancel is not None
            message = cancel.message(time.monotonic() - t0)
            yield i, _made_here(runners[i], args, started_at, t0, message, CANCELLED)
    finally:
        batch.stopped = True


def fan_out(
    runners: Sequence[Runner],
    argv: Sequence[str],
    *,
    timeout_s: float | None = None,
    max_workers: int = DEFAULT_MAX_WORKERS,
    cancel: CancelToken | None = None,
) -> list[RunResult]:
    """Run ``argv`` on every runner concurrently; results come back in the order of ``runners``."""
    results: list[RunResult | None] = [None] * len(runners)
    for i, result in fan_out_as_completed(
        runners, argv, timeout_s=timeout_s, max_workers=max_workers, cancel=cancel
    ):
        results[i] = result
    return [r for r in results if r is not None]
