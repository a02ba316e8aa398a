"""The command line every command-benchmark figure script shares (``bench_commands.py`` and
its ``bench_cmd_*.py``): the CLI preflight on the reference case, the run of the chosen figures
on the cached synthetic cases of :mod:`benchmarks.commands_harness`, and the table and JSON
report they end in."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    CACHE_NAME,
    CASELESS,
    FULL,
    QUICK,
    REFERENCE_DIR,
    REFERENCE_ID,
    Context,
    Figure,
    cached_database,
    cli,
)

# -- readiness, reporting -------------------------------------------------------------------


def preflight(work: Path) -> str | None:
    """Why the CLI cannot yet show the reference case's status, or ``None`` if it can."""
    db = work / "preflight.db"
    for old in work.glob(db.name + "*"):
        old.unlink()
    try:
        cli("import", str(REFERENCE_DIR), db=db, cwd=work)
        cli("status", REFERENCE_ID, db=db, cwd=work, capture=True)
    except (RuntimeError, OSError) as error:
        return str(error)
    return None


@contextmanager
def work_directory(base: str | None) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="casefile-bench-commands-", dir=base) as tmp:
        yield Path(tmp)


def machine() -> dict[str, Any]:
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
        "uptime": uptime.strip(),
    }


def fmt(value: float, unit: str) -> str:
    if unit == "s":
        if value < 0.01:
            return f"{value * 1e6:.0f} µs"
        return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.2f} s"
    return f"{value:.1f} {unit}"


def print_table(figures: list[Figure], errors: dict[str, str]) -> None:
    print()
    print(f"{'figure':14} {'target':>8} {'median':>8} {'best':>8}  verdict   casefile vs baseline")
    for fig in figures:
        if fig.value is not None:
            print(
                f"{fig.key:14} {'< ' + format(fig.target, 'g'):>8} {fig.value:8.0f} {'':8}  "
                f"{'met' if fig.met else 'MISSED':9} {fig.title}"
            )
            continue
        print(
            f"{fig.key:14} {'≤ ' + format(fig.target, 'g') + '×':>8} {fig.ratio:7.2f}× "
            f"{fig.best_ratio:7.2f}×  {'met' if fig.met else 'MISSED':9} "
            f"{fmt(fig.median(fig.ours), fig.unit)} vs {fmt(fig.median(fig.baseline), fig.unit)}"
            f" (best {fmt(fig.best(fig.ours), fig.unit)} vs "
            f"{fmt(fig.best(fig.baseline), fig.unit)})"
        )
        for name in fig.samples:
            if name not in (fig.ours, fig.baseline):
                print(f"{'':14} {'':8} also: {name} median {fmt(fig.median(name), fig.unit)}")
    for key, message in errors.items():
        print(f"{key:14} ERROR: {message.splitlines()[-1][:200]}")


#: A figure: what it measures, given the run's context.
Runner = Callable[["Context"], list["Figure"]]


def run_figures(runners: dict[str, Runner], description: str, json_path: Path) -> int:
    """The command line of a figure script: runs ``runners`` (all, or ``--only``), prints a
    table and a JSON line, and writes the JSON report to ``json_path`` (``--json``)."""
    names = tuple(runners)
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="smaller cases, 3 rounds")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 5; quick 3)")
    parser.add_argument(
        "--reps", type=int, default=3, help="CLI runs per round and contender (their mean)"
    )
    parser.add_argument("--only", default=",".join(names), help=f"of {','.join(names)}")
    parser.add_argument("--profile", default="", help="figures to cProfile (comma-separated)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("BENCH_DIR") or tempfile.gettempdir()) / CACHE_NAME,
        help="where the built databases are kept between runs (never the repo)",
    )
    parser.add_argument("--rebuild", action="store_true", help="build the cases again")
    parser.add_argument(
        "--wait-minutes",
        type=float,
        default=0.0,
        help="retry the CLI preflight every 2 minutes for this long before giving up",
    )
    parser.add_argument("--json", type=Path, default=json_path)
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    sizes = QUICK if args.quick else FULL
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        parser.error(f"unknown figures {unknown}; choose from {','.join(names)}")
    profile = {name.strip() for name in args.profile.split(",") if name.strip()}

    figures: list[Figure] = []
    errors: dict[str, str] = {}
    with work_directory(os.environ.get("BENCH_DIR")) as work:
        deadline = time.monotonic() + args.wait_minutes * 60
        while (problem := preflight(work)) is not None:
            if time.monotonic() >= deadline:
                print(f"preflight: `casefile status` of the reference case fails: {problem}")
                break
            print(f"preflight failed, retrying in 120 s: {problem[-300:]}", file=sys.stderr)
            time.sleep(120)
        needs_cases = [name for name in wanted if name not in CASELESS]
        pristine: Path | None = None
        if needs_cases:
            try:
                pristine = cached_database(args.cache_dir, sizes, args.rebuild)
            except Exception:  # reported; the figures without cases still run
                for name in needs_cases:
                    errors[name] = "building the cases: " + traceback.format_exc()
        ctx = Context(pristine or work, work, sizes, rounds, args.reps, profile)
        for name in wanted:
            if name in errors:
                continue
            print(f"[{datetime.now():%H:%M:%S}] {name} …", file=sys.stderr, flush=True)
            try:
                figures.extend(runners[name](ctx))
            except Exception:  # one broken figure must not stop the rest
                errors[name] = traceback.format_exc()
                print(errors[name], file=sys.stderr)

    info = machine()
    print(f"machine: {info}")
    print(f"sizes: {sizes}, rounds: {rounds}, CLI runs per round: {args.reps}")
    print_table(figures, errors)
    report = {
        "machine": info,
        "sizes": sizes.__dict__,
        "rounds": rounds,
        "reps": args.reps,
        "figures": [fig.to_json() for fig in figures],
        "errors": {key: message.splitlines()[-1] for key, message in errors.items()},
    }
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(
        json.dumps(
            {f.key: {"ratio": round(f.ratio, 3), "met": f.met} for f in figures}
            | {k: "error" for k in errors}
        )
    )
    print(f"JSON written to {args.json}", file=sys.stderr)
    return 1 if errors else 0
