"""`casefile --help` vs `python -c pass`.

``casefile --help`` vs ``python -c pass`` with the same interpreter. Target ≤ 6×.

A figure of ``bench_commands.py``, also run alone:
``.venv/bin/python benchmarks/bench_cmd_help.py [--quick] [--rounds 5]`` (the
options of ``bench_commands.py``; writes ``benchmarks/bench_cmd_help.json``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    CASEFILE,
    Context,
    Figure,
    alternate,
    interpreter,
    print_profile,
)
from benchmarks.commands_run import run_figures


def fig_help(ctx: Context) -> list[Figure]:
    python = interpreter()
    reps = max(ctx.reps, 5)

    def run(argv: Sequence[str]) -> Callable[[], float]:
        def go() -> float:
            total = 0.0
            for _ in range(reps):
                start = time.perf_counter()
                subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
                total += time.perf_counter() - start
            return total / reps

        return go

    ours = run([str(CASEFILE), "--help"])
    base = run([python, "-c", "pass"])
    ours()
    base()  # warm up
    fig = Figure(
        "help",
        "`casefile --help` vs `python -c pass` (same interpreter)",
        "casefile --help",
        "python -c pass",
        6.0,
    )
    fig.samples = alternate(ctx.rounds, {fig.ours: ours, fig.baseline: base})
    fig.extra["interpreter"] = python
    if "help" in ctx.profile:
        out = ctx.work / "help.prof"
        subprocess.run(
            [python, "-m", "cProfile", "-o", str(out), str(CASEFILE), "--help"],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        fig.extra["profile"] = print_profile("casefile --help", str(out))
        imports = subprocess.run(
            [python, "-X", "importtime", str(CASEFILE), "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        fig.extra["importtime_top"] = top_imports(imports)
    return [fig]


def top_imports(importtime: str, top: int = 15) -> list[str]:
    """The slowest imports (cumulative µs) from ``-X importtime`` output."""
    rows = []
    for line in importtime.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    lines = [f"{us / 1000:8.1f} ms {name}" for us, name in rows[:top]]
    print("\n--- slowest imports of casefile --help (cumulative) ---\n" + "\n".join(lines))
    return lines


if __name__ == "__main__":
    sys.exit(
        run_figures(
            {"help": fig_help},
            __doc__.splitlines()[0],
            Path(__file__).with_name("bench_cmd_help.json"),
        )
    )
