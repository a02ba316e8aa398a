"""`CaseSession.refresh()` after one new event vs `store.load` of that event.

In process: ``CaseSession.refresh()`` of a session held open on a 100,000-event case after
another store object appended one note vs the session store's own ``load(case, after=seq - 1)``
of that event, each timed as the first read after the commit (the other reads second; roles
alternate). Target ≤ 2×.

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_refresh.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_refresh.json``).
"""

from __future__ import annotations

import cProfile
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    Context,
    Figure,
    print_profile,
    url_of,
    work_copy,
)
from benchmarks.commands_run import run_figures


def fig_refresh(ctx: Context) -> list[Figure]:
    """After each append by another store object, one side reads first (SQLite's reader then
    notices the commit and drops its page cache) and the other second; the roles alternate.
    The figure compares first reads (what a session refreshing on someone else's write
    pays); second reads are shown beside."""
    from casefile.app.session import CaseSession
    from casefile.domain.events import NewEvent
    from casefile.store.sql import SqlEventStore

    db = work_copy(ctx.pristine, ctx.work, "refresh")
    big = ctx.ids["big"]
    reader = SqlEventStore(url_of(db))
    writer = SqlEventStore(url_of(db))
    session = CaseSession(reader, big)
    start = time.perf_counter()
    session.refresh()  # the first fold, not measured
    first = time.perf_counter() - start
    assert session.projection.last_seq == ctx.sizes.big
    per_round = 20
    names = ("refresh", "store.load", "refresh, second read", "store.load, second read")

    def append() -> int:
        seq = writer.head(big)[0]
        writer.append(big, seq, [NewEvent("note.added", {"text": f"refresh {seq}"})])
        return seq

    def refresh() -> float:
        t0 = time.perf_counter()
        got = session.refresh()
        elapsed = time.perf_counter() - t0
        assert len(got.events) == 1 and not got.rewritten
        return elapsed

    def load(seq: int) -> float:
        t0 = time.perf_counter()
        got = reader.load(big, after=seq)
        elapsed = time.perf_counter() - t0
        assert len(got) == 1 and got[0].seq == seq + 1
        return elapsed

    def one_round(offset: int) -> dict[str, float]:
        times: dict[str, list[float]] = {name: [] for name in names}
        for k in range(per_round):
            seq = append()
            if (k + offset) % 2:
                times["refresh"].append(refresh())
                times["store.load, second read"].append(load(seq))
            else:
                times["store.load"].append(load(seq))
                times["refresh, second read"].append(refresh())
        return {name: statistics.median(values) for name, values in times.items()}

    one_round(0)  # warm up
    fig = Figure(
        "refresh",
        f"`CaseSession.refresh()` after one new event, {ctx.sizes.big:,}-event case, vs "
        "`store.load(case, after=seq-1)` of it (each the first read after the commit)",
        "refresh",
        "store.load",
        2.0,
    )
    fig.samples = {name: [] for name in names}
    for r in range(ctx.rounds):
        gc.collect()
        for name, value in one_round(r).items():
            fig.samples[name].append(value)
    fig.extra["first_fold_s"] = first
    fig.extra["events_per_round"] = per_round
    fig.extra["ratio_second_reads"] = fig.median(names[2]) / fig.median(names[3])
    if "refresh" in ctx.profile:  # after the timed rounds: the profiler slows what it sees
        profiler = cProfile.Profile()
        for _ in range(100):
            append()
            profiler.enable()
            session.refresh()
            profiler.disable()
        fig.extra["profile"] = print_profile("CaseSession.refresh (100 calls)", profiler)
    reader.close()
    writer.close()
    return [fig]


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"refresh": fig_refresh},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_refresh.json"),
        )
    )
