"""Benchmark ``casefile report`` on a big case against ``casefile status`` of the same case.

Figures (ratios to a baseline measured in the same run, alternating round by round so that
noise on a shared machine hits both alike; medians of ``--rounds``):

report-md    ``casefile report CASE -o FILE`` (Markdown and its SVG chart) on a 10,000-event
             case vs a cold ``casefile status CASE`` of it (snapshots dropped first, not timed).
             Target ≤ 3×.
report-html  The same with ``--format html``. Target ≤ 3×.
warm         ``report --format html`` vs ``status`` answered from a warm snapshot (what a
             responder usually waits for); shown, with the same 3× target, for honesty: the
             report folds the whole history (its trajectory), which no snapshot holds.

Also: the bytes of each report and of its chart (the chart must stay small on a long case).

The case is ``bench_engine.synthetic_case`` (the reference-case mix: 28 % evidence, 50
hypotheses in 3 questions) resealed on a real hash chain by ``commands_harness.sealed_case``,
built once into a SQLite file cached in the temp directory (``--rebuild`` to redo it).

Run: ``.venv/bin/python benchmarks/bench_report.py [--events 10000] [--rounds 5]``; prints a
table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.siblings import sibling

ROOT = Path(__file__).resolve().parents[1]

BUILD = 1
TARGET = 3.0


def bench_commands() -> ModuleType:
    """``benchmarks/commands_harness.py``, the command benchmarks' case-building helpers."""
    return sibling("commands_harness")


def build(path: Path, case_id: str, events: int) -> float:
    from casefile.domain.events import sha256_hex
    from casefile.store.sql import SqlEventStore

    helpers = bench_commands()
    start = time.perf_counter()
    digest = sha256_hex(helpers.ARTIFACT)
    store = SqlEventStore(helpers.url_of(path))
    try:
        store.import_case(helpers.sealed_case(case_id, events, digest), {digest: helpers.ARTIFACT})
    finally:
        store.close()
    helpers.checkpoint(path)
    return time.perf_counter() - start


def database(cache: Path, case_id: str, events: int, rebuild: bool) -> Path:
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"report-b{BUILD}-{events}.db"
    if rebuild or not path.exists():
        for stale in cache.glob(path.name + "*"):
            stale.unlink()
        building = cache / f"building-{path.name}"
        for stale in cache.glob(building.name + "*"):
            stale.unlink()
        print(f"building {path} …", file=sys.stderr, flush=True)
        seconds = build(building, case_id, events)
        building.rename(path)
        print(f"  built in {seconds:.1f} s", file=sys.stderr, flush=True)
    return path


def run(args: argparse.Namespace) -> dict[str, Any]:
    helpers = bench_commands()
    case_id = f"synthetic-{args.events}"
    pristine = database(Path(args.cache_dir), case_id, args.events, args.rebuild)
    with tempfile.TemporaryDirectory(prefix="casefile-bench-report-") as scratch:
        work = Path(scratch)
        db = work / "work.db"
        shutil.copyfile(pristine, db)
        cli = helpers.cli
        clock = helpers.clock

        def report(fmt: str) -> Callable[[], float]:
            target = work / f"report.{fmt}"
            return lambda: clock(
                lambda: cli("report", case_id, "--format", fmt, "-o", str(target), db=db, cwd=work)
            )

        def cold_status() -> float:
            helpers.drop_snapshots(db, case_id)  # not timed
            return float(clock(lambda: cli("status", case_id, db=db, cwd=work)))

        def warm_status() -> float:
            return float(clock(lambda: cli("status", case_id, db=db, cwd=work)))

        for warm_up in (report("md"), report("html"), cold_status, warm_status):
            warm_up()
        cli("status", case_id, db=db, cwd=work)  # leaves the snapshot for warm_status
        contenders = {
            "report md": report("md"),
            "report html": report("html"),
            "status (cold)": cold_status,
        }
        samples = helpers.alternate(args.rounds, contenders)
        warm = helpers.alternate(
            args.rounds, {"report html": report("html"), "status (warm)": warm_status}
        )
        sizes = {
            name: (work / name).stat().st_size
            for name in ("report.md", "report.svg", "report.html")
        }

    def median(values: list[float]) -> float:
        return float(statistics.median(values))

    figures = [
        ("report-md", "report md", "status (cold)", samples),
        ("report-html", "report html", "status (cold)", samples),
        ("warm", "report html", "status (warm)", warm),
    ]
    rows = []
    for key, ours, baseline, table in figures:
        ratio = median(table[ours]) / median(table[baseline])
        rows.append(
            {
                "key": key,
                "ours": ours,
                "baseline": baseline,
                "median_s": {ours: median(table[ours]), baseline: median(table[baseline])},
                "ratio": ratio,
                "target": TARGET,
                "met": ratio <= TARGET,
                "samples": {ours: table[ours], baseline: table[baseline]},
            }
        )
    return {
        "benchmark": "bench_report",
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "events": args.events,
        "rounds": args.rounds,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "bytes": sizes,
        "figures": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--cache-dir", default=str(Path(tempfile.gettempdir()) / "casefile-bench-report")
    )
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--json", help="also write the JSON result to this file")
    args = parser.parse_args()
    result = run(args)
    print(f"{'figure':<12} {'ours':>10} {'baseline':>10} {'ratio':>7}  target  met")
    for row in result["figures"]:
        ours, base = row["median_s"][row["ours"]], row["median_s"][row["baseline"]]
        print(
            f"{row['key']:<12} {ours:>9.3f}s {base:>9.3f}s {row['ratio']:>6.2f}×  "
            f"≤ {row['target']:.0f}×   {'yes' if row['met'] else 'NO'}"
            f"   ({row['ours']} vs {row['baseline']})"
        )
    print("bytes: " + ", ".join(f"{k} {v:,}" for k, v in result["bytes"].items()))
    line = json.dumps(result)
    print(line)
    if args.json:
        Path(args.json).write_text(line + "\n")
    return 0 if all(row["met"] for row in result["figures"][:2]) else 1


if __name__ == "__main__":
    sys.exit(main())
