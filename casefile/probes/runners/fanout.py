"""Run one command on many hosts at once.

A fleet is only as slow as its slowest host if results wait for each other; here every target
runs in its own worker with its own timeout, and :func:`fan_out_as_completed` hands each result
over the moment it exists. A dead or hung host therefore costs its own timeout and nothing
else. A runner that raises (a bug, not a failed host) becomes a result with ``error`` set, so one
bad target never ends the batch (STYLE.md, "Failure inside a batch is data").
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Protocol, runtime_checkable

from casefile.domain.events import utc_now
from casefile.probes.runners.result import RunResult

DEFAULT_MAX_WORKERS = 16


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
        return RunResult(
            argv=argv,
            host=_host_of(runner),
            exit_status=None,
            stdout="",
            stderr="",
            started_at=started_at,
            finished_at=utc_now(),
            duration_s=time.monotonic() - t0,
            error=f"runner failed: {type(e).__name__}: {e}",
            source=getattr(runner, "source", "unknown"),
            error_kind="internal",
        )


def _host_of(runner: Runner) -> str:
    try:
        return str(runner.host)
    except Exception:
        return repr(runner)


def fan_out_as_completed(
    runners: Sequence[Runner],
    argv: Sequence[str],
    *,
    timeout_s: float | None = None,
    max_workers: int = DEFAULT_MAX_WORKERS,
) -> Iterator[tuple[int, RunResult]]:
    """Yield ``(index into runners, result)`` for each target as soon as its result exists.

    At most ``max_workers`` targets run at once. Leaving the loop early cancels the targets that
    have not started; the ones already running finish in the background within their timeouts.
    """
    if max_workers < 1:
        raise ValueError("max_workers must be at least 1")
    args = tuple(argv)
    if not runners:
        return
    pool = ThreadPoolExecutor(
        max_workers=min(max_workers, len(runners)), thread_name_prefix="casefile-fanout"
    )
    try:
        pending: dict[Future[RunResult], int] = {
            pool.submit(_run_safely, runner, args, timeout_s): i for i, runner in enumerate(runners)
        }
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def fan_out(
    runners: Sequence[Runner],
    argv: Sequence[str],
    *,
    timeout_s: float | None = None,
    max_workers: int = DEFAULT_MAX_WORKERS,
) -> list[RunResult]:
    """Run ``argv`` on every runner concurrently; results come back in the order of ``runners``."""
    results: list[RunResult | None] = [None] * len(runners)
    for i, result in fan_out_as_completed(
        runners, argv, timeout_s=timeout_s, max_workers=max_workers
    ):
        results[i] = result
    return [r for r in results if r is not None]
