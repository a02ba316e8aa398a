"""Load + fold of 100,000 events vs a raw read of the rows, time and memory.

In process: ``project(store.load(case))`` of 100,000 events in the reference-case mix
(``bench_engine.synthetic_case``: 28 % evidence, 50 hypotheses in 3 questions) vs the raw read
of ``cold`` on the same rows. Target ≤ 2×. Both timings end with ``gc.collect(0)``: a paused GC
leaves one young-generation pass over everything built to the next allocation, which the caller
pays (shown without it beside). And the peak traced memory (tracemalloc) of load + fold vs that
of the raw decoded rows. Target ≤ 1.5×.

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_fold.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_fold.json``).
"""

from __future__ import annotations

import cProfile
import gc
import sqlite3
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    RAW_GC_ON,
    RAW_PAUSED,
    Context,
    Figure,
    alternate,
    gc_paused,
    print_profile,
    raw_read,
    url_of,
    work_copy,
)
from benchmarks.commands_run import run_figures


def fig_fold(ctx: Context) -> list[Figure]:
    from casefile.domain.beliefs import project
    from casefile.store.sql import SqlEventStore

    db = work_copy(ctx.pristine, ctx.work, "fold")
    big = ctx.ids["big"]
    store = SqlEventStore(url_of(db))
    conn = sqlite3.connect(db)
    count = ctx.sizes.big

    def timed(read: Callable[[], Any], settle: bool) -> Callable[[], float]:
        """``read`` timed, with (``settle``) the young-generation collection that pausing the
        GC only defers: the next allocation after ``gc.enable()`` pays for one pass over every
        container built meanwhile, and a caller waits for it like for the read itself."""

        def run() -> float:
            start = time.perf_counter()
            result = read()
            if settle:
                gc.collect(0)
            elapsed = time.perf_counter() - start
            assert len(result) == count if isinstance(result, list) else result.last_seq == count
            del result
            return elapsed

        return run

    def fold() -> Any:
        return project(store.load(big))

    def rows() -> Any:
        return raw_read(conn, big)

    ours, raw = timed(fold, True), timed(rows, True)
    ours()
    raw()  # warm up
    fig = Figure(
        "fold",
        f"load + fold {count:,} events cold (reference-case mix) vs raw sqlite3 + json.loads",
        "casefile",
        RAW_PAUSED,
        2.0,
    )
    unsettled = "casefile, without its deferred GC pass"
    fig.samples = alternate(
        ctx.rounds,
        {
            fig.ours: ours,
            fig.baseline: gc_paused(raw),
            RAW_GC_ON: raw,
            unsettled: timed(fold, False),
        },
    )
    fig.extra["ratio_to_raw_gc_on"] = fig.median(fig.ours) / fig.median(RAW_GC_ON)
    fig.extra["ratio_without_deferred_gc"] = fig.median(unsettled) / fig.median(fig.baseline)

    def peak(fn: Callable[[], Any]) -> tuple[float, float]:
        gc.collect()
        tracemalloc.start()
        result = fn()
        current, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del result
        gc.collect()
        return top / 2**20, current / 2**20

    memory: dict[str, list[float]] = {"load + fold": [], "raw decoded rows": []}
    retained: dict[str, list[float]] = {"load + fold": [], "raw decoded rows": []}
    for r in range(min(ctx.rounds, 3)):  # tracemalloc is slow; peaks hardly vary
        pairs: list[tuple[str, Callable[[], Any]]] = [
            ("load + fold", lambda: project(store.load(big))),
            ("raw decoded rows", lambda: raw_read(conn, big)),
        ]
        for name, fn in pairs if r % 2 == 0 else pairs[::-1]:
            top, current = peak(fn)
            memory[name].append(top)
            retained[name].append(current)
    mem = Figure(
        "fold-memory",
        f"peak traced memory (tracemalloc) of load + fold of {count:,} events vs the raw "
        "decoded rows",
        "load + fold",
        "raw decoded rows",
        1.5,
        unit="MiB",
        samples=memory,
    )
    mem.extra["retained_MiB"] = {k: statistics.median(v) for k, v in retained.items()}
    if "fold" in ctx.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        project(store.load(big))
        profiler.disable()
        fig.extra["profile"] = print_profile("project(store.load(case))", profiler)
    store.close()
    conn.close()
    return [fig, mem]


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"fold": fig_fold},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_fold.json"),
        )
    )
