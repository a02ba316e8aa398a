"""`casefile note` on a 100,000-event case vs a 10-event case.

``casefile note CASE TEXT`` (the installed CLI, a subprocess) on a 100,000-event case vs on a
10-event case in the same database. Target ≤ 1.3×: case size must not matter.

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_note.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_note.json``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    Context,
    Figure,
    alternate,
    profile_cli,
    timed_cli,
    work_copy,
)
from benchmarks.commands_run import run_figures


def fig_note(ctx: Context) -> list[Figure]:
    db = work_copy(ctx.pristine, ctx.work, "note")
    big, tiny = ctx.ids["big"], ctx.ids["tiny"]
    counter = iter(range(10**9))

    def note(case_id: str) -> Callable[[], float]:
        return lambda: timed_cli(
            "note", case_id, f"bench note {next(counter)}", db=db, cwd=ctx.work, reps=ctx.reps
        )

    fig = Figure(
        "note",
        f"`casefile note` on a {ctx.sizes.big:,}-event case vs a {ctx.sizes.tiny}-event case",
        f"{ctx.sizes.big:,} events",
        f"{ctx.sizes.tiny} events",
        1.3,
    )
    for case_id in (big, tiny):
        note(case_id)()  # warm up: page cache, bytecode
    fig.samples = alternate(ctx.rounds, {fig.ours: note(big), fig.baseline: note(tiny)})
    if "note" in ctx.profile:
        fig.extra["profile"] = profile_cli(ctx, "casefile note (big case)", "note", big, "x", db=db)
    return [fig]


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"note": fig_note},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_note.json"),
        )
    )
