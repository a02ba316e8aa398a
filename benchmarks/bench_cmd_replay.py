"""`casefile replay --json` of a 10,000-event case vs a cold `status` of it.

``casefile replay CASE --json > /dev/null`` on a 10,000-event case vs a cold ``casefile status
CASE`` (snapshots dropped) of it. Target ≤ 1.5×.

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_replay.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_replay.json``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    Context,
    Figure,
    alternate,
    cli,
    clock,
    drop_snapshots,
    profile_cli,
    timed_cli,
    work_copy,
)
from benchmarks.commands_run import run_figures


def fig_replay(ctx: Context) -> list[Figure]:
    db = work_copy(ctx.pristine, ctx.work, "replay")
    small = ctx.ids["small"]

    def replay() -> float:
        return timed_cli("replay", small, "--json", db=db, cwd=ctx.work, reps=ctx.reps)

    def cold_status() -> float:
        total = 0.0
        for _ in range(ctx.reps):
            drop_snapshots(db, small)  # not timed
            total += clock(lambda: cli("status", small, db=db, cwd=ctx.work))
        return total / ctx.reps

    replay()
    cold_status()  # warm up
    fig = Figure(
        "replay",
        f"`casefile replay --json > /dev/null`, {ctx.sizes.small:,}-event case, vs a cold "
        "`casefile status` of it",
        "replay --json",
        "cold status",
        1.5,
    )
    fig.samples = alternate(ctx.rounds, {fig.ours: replay, fig.baseline: cold_status})
    printed = cli("replay", small, "--json", db=db, cwd=ctx.work, capture=True).stdout
    fig.extra["json_bytes"] = len(printed)
    if "replay" in ctx.profile:
        fig.extra["profile"] = profile_cli(
            ctx, "casefile replay --json", "replay", small, "--json", db=db
        )
    return [fig]


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"replay": fig_replay},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_replay.json"),
        )
    )
