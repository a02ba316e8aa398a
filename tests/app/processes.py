"""Writers in other processes, started together, and how each one ended.

A spawned worker that raises exits with code 1 and prints its traceback to its own stderr,
which pytest does not show for a child: a test that checks only the exit code says "1" and
nothing about why. So each worker here writes its traceback to a file of its own, and
:func:`run_writers` fails with every failed worker's exit code *and* traceback.

Workers wait for one another at a barrier before writing, so that they really write at once
(spawning sixteen interpreters on a loaded machine takes seconds, and without the barrier the
first would be done before the last had started). A worker that fails before the barrier breaks
it, so the others fail at once instead of waiting out the deadline.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from threading import BrokenBarrierError
from typing import Any

from .writers import respond

#: How long the writers may take, all together, before the test gives up on them. Generous:
#: sixteen spawned interpreters on two loaded cores take tens of seconds, and a deadline that
#: a slow machine overruns is a flaky test, not a finding.
DEADLINE_S = 300.0


def _reporting(target: Callable[..., None], args: tuple[Any, ...], report: str, start: Any) -> None:
    """Run ``target(*args)`` once every worker is ready; on failure, leave the traceback in
    ``report`` for the test to show (and still fail, so the exit code says so too)."""
    try:
        start.wait(DEADLINE_S)
        target(*args)
    except BaseException:
        start.abort()  # the others stop waiting for a worker that will never arrive
        Path(report).write_text(traceback.format_exc(), encoding="utf-8")
        raise


def run_writers(
    target: Callable[..., None], arguments: Sequence[tuple[Any, ...]], reports: Path
) -> float:
    """Run ``target(*args)`` for each ``args`` in its own spawned process, all at once.

    Returns the seconds the writers took, from the first start to the last exit. Fails, with
    each failed worker's traceback, if any worker failed or outlived :data:`DEADLINE_S`.
    """
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(len(arguments))
    reports.mkdir(parents=True, exist_ok=True)
    paths = [reports / f"worker-{n}.txt" for n in range(len(arguments))]
    workers = [
        spawn.Process(target=_reporting, args=(target, args, str(path), start))
        for args, path in zip(arguments, paths, strict=True)
    ]
    began = time.monotonic()
    for worker in workers:
        worker.start()
    deadline = began + DEADLINE_S
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
    took = time.monotonic() - began
    failures: list[str] = []
    for n, (worker, path) in enumerate(zip(workers, paths, strict=True)):
        if worker.is_alive():
            worker.kill()
            worker.join(10)
            failures.append(f"worker {n}: still running after {DEADLINE_S:.0f} s")
        elif worker.exitcode != 0:
            told = path.read_text(encoding="utf-8") if path.exists() else "(no traceback)"
            failures.append(f"worker {n}: exit code {worker.exitcode}\n{told}")
    # A worker that only saw the barrier broken by another says so; show the cause first.
    failures.sort(key=lambda failure: BrokenBarrierError.__name__ in failure)
    assert not failures, f"{len(failures)} of {len(workers)} writers failed:\n" + "\n".join(
        failures
    )
    return took


def crowd(kind: str, where: str, case_id: str, worker: int, rounds: int) -> None:
    """One of many responders on a case at once: :func:`~tests.app.writers.respond`, with a
    child hypothesis whose small share leaves room under its parent for sixteen of them."""
    respond(kind, where, case_id, worker, rounds, child_share=0.05)
