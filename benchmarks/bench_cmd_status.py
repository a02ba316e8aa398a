"""`casefile status` of a 50,000-event case, warm, vs the reference case.

``casefile status CASE`` on a 50,000-event case with a warm snapshot vs ``status`` of the
68-event reference case (``casefile/reference/glm5-pcie-pivot``, imported with ``casefile
import``) in the same database. Target ≤ 1.3×. Also: the lines status prints on the big case
(target < 200).

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_status.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_status.json``).
"""

from __future__ import annotations

import cProfile
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    REFERENCE_ID,
    Context,
    Figure,
    alternate,
    cli,
    clock,
    print_profile,
    profile_cli,
    snapshot_count,
    timed_cli,
    url_of,
    work_copy,
)
from benchmarks.commands_run import run_figures


def fig_status(ctx: Context) -> list[Figure]:
    db = work_copy(ctx.pristine, ctx.work, "status")
    mid = ctx.ids["mid"]
    first = clock(lambda: cli("status", mid, db=db, cwd=ctx.work))  # writes the snapshot
    snapshots = snapshot_count(db, mid)
    if snapshots < 1:
        raise RuntimeError(f"no snapshot of {mid} after a first status")

    def status(case_id: str) -> Callable[[], float]:
        return lambda: timed_cli("status", case_id, db=db, cwd=ctx.work, reps=ctx.reps)

    status(REFERENCE_ID)()  # warm up
    fig = Figure(
        "status",
        f"`casefile status`, {ctx.sizes.mid:,}-event case with a warm snapshot vs the "
        "68-event reference case",
        f"{ctx.sizes.mid:,} events, warm",
        "reference (68)",
        1.3,
    )
    fig.samples = alternate(ctx.rounds, {fig.ours: status(mid), fig.baseline: status(REFERENCE_ID)})
    fig.extra["first_status_s"] = first  # cold fold + snapshot write
    printed = cli("status", mid, db=db, cwd=ctx.work, capture=True).stdout
    reference = cli("status", REFERENCE_ID, db=db, cwd=ctx.work, capture=True).stdout
    lines = Figure(
        "status-lines",
        f"lines `casefile status` prints on the {ctx.sizes.mid:,}-event case",
        "lines",
        "",
        200,
        value=float(len(printed.splitlines())),
    )
    lines.extra = {
        "reference_lines": len(reference.splitlines()),
        "chars": len(printed),
        "head": printed.splitlines()[:12],
    }
    if "status" in ctx.profile:
        fig.extra["profile"] = profile_cli(ctx, "casefile status (warm)", "status", mid, db=db)
        from casefile.app.opening import registry
        from casefile.app.service import CaseService
        from casefile.store.sql import SqlEventStore

        plugins = registry()
        service = CaseService(SqlEventStore(url_of(db)), plugins)
        service.reader.status(REFERENCE_ID)  # imports and plugin loading out of the way
        service.close()
        profiler = cProfile.Profile()
        profiler.enable()
        service = CaseService(SqlEventStore(url_of(db)), plugins)
        service.reader.status(mid)
        profiler.disable()
        service.close()
        fig.extra["profile_in_process"] = print_profile(
            "warm CaseService.status in process (imports done)", profiler
        )
    return [fig, lines]


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"status": fig_status},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_status.json"),
        )
    )
