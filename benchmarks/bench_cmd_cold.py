"""Cold status in process vs a raw read of the same rows.

In process, snapshots dropped first: ``CaseService(SqlEventStore(url)).reader.status(case)`` on
a fresh service vs a raw ``sqlite3`` fetch of the same rows + ``json.loads`` of each payload
into a list of tuples (fresh connection). Target ≤ 2×. The raw read runs with the cyclic GC
paused, as ``store.load`` and ``project`` pause it around their own loops, and ends with the
young-generation pass that pausing defers (``gc.collect(0)``, see ``fold``), which casefile's
status pays inside; the same read with the GC on is shown beside it (on 100,000 rows it costs
as much as casefile's load + fold).

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_cold.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_cold.json``).
"""

from __future__ import annotations

import cProfile
import gc
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    RAW_GC_ON,
    RAW_PAUSED,
    Context,
    Figure,
    alternate,
    drop_snapshots,
    gc_paused,
    print_profile,
    raw_read,
    url_of,
    work_copy,
)
from benchmarks.commands_run import run_figures


def fig_cold(ctx: Context) -> list[Figure]:
    from casefile.app.service import CaseService
    from casefile.store.sql import SqlEventStore

    db = work_copy(ctx.pristine, ctx.work, "cold")
    mid = ctx.ids["mid"]
    url = url_of(db)
    view_json: dict[str, Any] = {}

    def ours() -> float:
        drop_snapshots(db, mid)  # not timed
        gc.collect()
        start = time.perf_counter()
        service = CaseService(SqlEventStore(url))
        view = service.reader.status(mid)
        elapsed = time.perf_counter() - start
        if not view_json:
            view_json.update(view.to_json())
        service.close()
        return elapsed

    def raw() -> float:
        start = time.perf_counter()
        conn = sqlite3.connect(db)
        rows = raw_read(conn, mid)
        gc.collect(0)  # the pass a paused GC defers (casefile's status pays its own inside)
        elapsed = time.perf_counter() - start
        conn.close()
        assert len(rows) == ctx.sizes.mid, len(rows)
        return elapsed

    ours()
    raw()  # warm up
    fig = Figure(
        "cold",
        f"cold status in process (snapshots dropped), {ctx.sizes.mid:,} events, vs raw "
        "sqlite3 + json.loads of the same rows",
        "casefile",
        RAW_PAUSED,
        2.0,
    )
    fig.samples = alternate(
        ctx.rounds, {fig.ours: ours, fig.baseline: gc_paused(raw), RAW_GC_ON: raw}
    )
    fig.extra["view_keys"] = sorted(view_json)[:20]
    fig.extra["ratio_to_raw_gc_on"] = fig.median(fig.ours) / fig.median(RAW_GC_ON)
    if "cold" in ctx.profile:
        drop_snapshots(db, mid)
        profiler = cProfile.Profile()
        profiler.enable()
        CaseService(SqlEventStore(url)).reader.status(mid)
        profiler.disable()
        fig.extra["profile"] = print_profile("cold CaseService.status", profiler)
    return [fig]


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"cold": fig_cold},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_cold.json"),
        )
    )
