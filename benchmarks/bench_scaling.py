"""Every CLI command and the TUI on a playbook-shaped case of 10,000 and 100,000 events.

Issue 24's targets, measured in one run on one SQLite file:

scaling  each command (``status``, ``log``, ``replay --json`` / ``--jsonl``, ``report``,
         ``graph``, ``verify``, ``export``, ``intake --list``, ``hypothesis list`` / ``show``,
         ``question list``, ``show``, ``note``, a cold ``status``) as a subprocess of the
         installed ``.venv/bin/casefile``: wall time and the child's peak RSS
         (``os.wait4``'s ``ru_maxrss``). Targets: time at 100,000 events at most 10× the time
         at 10,000; peak RSS at most 1.5× the case's decoded rows, measured in the same run as
         the peak RSS of a plain Python process that fetches the case's rows and ``json.loads``
         each into a dict (an event as its exported line gives it).
tui      the TUI opening each case under Pilot, in a subprocess, until the history is folded
         and the chain verified: the same ratio of times, and peak RSS at most 2× the decoded
         rows.
warm     a warm ``casefile status`` (the case's fold saved by an earlier command) of the
         100,000-event case vs that of the reference case (``casefile/reference/glm5-pcie-pivot``)
         in the same database. Target at most 1.3×.

The cases are shaped like the reference case: opened from the ``gpu-throughput`` playbook,
four intake questions answered (the others left open, as intake finds them), then shell
transcripts of ``nvidia-smi`` outputs (the reference case's artifacts) ingested in chunks
alternately under load and at idle, so the playbook's rules record evidence from the loaded
readings and set the idle ones aside; notes fill the last events up to the exact count.
They are built once into ``$TMPDIR/casefile-bench-scaling/`` (``--rebuild``), each case
``status``-ed once so its fold is saved, and every run works on a fresh copy.

Rounds alternate the order of the sizes; medians of ``--rounds`` (default 3). Prints a table
and writes ``benchmarks/bench_scaling.json``. Run:
``.venv/bin/python benchmarks/bench_scaling.py [--rounds 3] [--sizes 10000,100000]
[--only status,log] [--no-tui]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scaling_cases import (  # noqa: E402
    CASEFILE,
    REFERENCE_ID,
    cached_database,
    case_name,
    url_of,
)

PYTHON = ROOT / ".venv" / "bin" / "python"
CACHE_NAME = "casefile-bench-scaling"
TIME = "/usr/bin/time"
TIME_TARGET = 10.0
RSS_TARGET = 1.5
TUI_RSS_TARGET = 2.0
WARM_TARGET = 1.3
#: the raw baseline: a plain script's read of the case, each row decoded into a dict
RAW_DECODE = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
rows = conn.execute(
    "SELECT seq, type, version, recorded_at, occurred_at, actor, payload, prev_hash, hash "
    "FROM events WHERE case_id = ? ORDER BY seq", (sys.argv[2],)
).fetchall()
keys = ("seq", "type", "version", "recorded_at", "occurred_at", "actor", "payload",
        "prev_hash", "hash")
loads = json.loads
events = [dict(zip(keys, r[:6] + (loads(r[6]),) + r[7:])) for r in rows]
del rows
print(len(events))
"""


# -- measuring ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    wall_s: float
    rss_mb: float  # peak resident set of the child, MB (10^6 bytes)


def measured(argv: list[str], cwd: Path, stdout: int | None = subprocess.DEVNULL) -> Sample:
    """Run ``argv`` under ``/usr/bin/time``: its wall time and peak RSS.

    Through ``time`` rather than this process's own ``wait4``: Linux counts the pages a child
    shared with its parent before ``exec`` in its ``ru_maxrss``, so a child forked from a large
    benchmark process would report at least the benchmark's size; ``time`` is small.
    """
    report = cwd / "time.out"
    timed = [TIME, "-f", "%M", "-o", str(report), *argv]
    start = time.perf_counter()
    done = subprocess.run(timed, stdout=stdout, stderr=subprocess.PIPE, cwd=cwd, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip()[-1500:]
        raise RuntimeError(f"{shlex.join(argv)}: exit {done.returncode}: {err}")
    kib = int(report.read_text().split()[-1])
    return Sample(wall, kib * 1024 / 1e6)


@dataclass(frozen=True)
class Command:
    name: str
    args: Callable[[str, Path], list[str]]  # (case, scratch dir) -> argv after `casefile`
    before: Callable[[Path, str, Path], None] | None = None  # untimed preparation


def _drop_snapshots(db: Path, case: str, scratch: Path) -> None:
    from casefile.store.sql import SqlEventStore

    with SqlEventStore(url_of(db)) as store:
        store.drop_snapshots(case)


def _fresh_dir(db: Path, case: str, scratch: Path) -> None:
    shutil.rmtree(scratch / "export", ignore_errors=True)


def _middle(case: str) -> str:
    return str(int(case.rsplit("-", 1)[1]) // 2)


COMMANDS = (
    Command("status", lambda c, s: ["status", c]),
    Command("status --json", lambda c, s: ["status", c, "--json"]),
    Command("status, cold", lambda c, s: ["status", c], _drop_snapshots),
    Command("log", lambda c, s: ["log", c]),
    Command("log --json", lambda c, s: ["log", c, "--json"]),
    Command("replay --jsonl", lambda c, s: ["replay", c, "--jsonl"]),
    Command("replay --json", lambda c, s: ["replay", c, "--json"]),
    Command("report", lambda c, s: ["report", c, "-o", str(s / "report.md")]),
    Command("report --format json", lambda c, s: ["report", c, "--format", "json", "-o", "-"]),
    Command("graph", lambda c, s: ["graph", c]),
    Command("graph --format json", lambda c, s: ["graph", c, "--format", "json"]),
    Command("verify", lambda c, s: ["verify", c]),
    Command("export", lambda c, s: ["export", c, str(s / "export")], _fresh_dir),
    Command("intake --list", lambda c, s: ["intake", c, "--list"]),
    Command("hypothesis list", lambda c, s: ["hypothesis", "list", c]),
    Command("hypothesis show", lambda c, s: ["hypothesis", "show", c, "pcie-bound"]),
    Command("question list", lambda c, s: ["question", "list", c]),
    Command("show", lambda c, s: ["show", c, _middle(c)]),
    Command("note", lambda c, s: ["note", c, "a note from the benchmark"]),
)


def cli_argv(command: Command, case: str, db: Path, scratch: Path) -> list[str]:
    args = command.args(case, scratch)
    group = 2 if args[0] in ("hypothesis", "question") else 1
    return [str(CASEFILE), *args[:group], "--db", url_of(db), *args[group:]]


def run_command(command: Command, case: str, db: Path, scratch: Path) -> Sample:
    if command.before is not None:
        command.before(db, case, scratch)
    return measured(cli_argv(command, case, db, scratch), scratch)


def tui_child(url: str, case: str) -> None:
    """In a child process: open ``case`` in the TUI under Pilot until the history is folded
    and the chain verified; print the seconds it took."""
    import asyncio

    from casefile.app.service import CaseService
    from casefile.store.sql import SqlEventStore
    from casefile.tui import make_app
    from casefile.tui.screens.case import CaseScreen
    from casefile.tui.widgets.status_bar import StatusBar
    from tests.cli.conftest import builtin_registry

    async def go() -> float:
        app = make_app(CaseService(SqlEventStore(url), builtin_registry()), case)
        start = time.perf_counter()
        async with app.run_test(size=(160, 45)) as pilot:

            def done() -> bool:
                screen = app.screen
                if not isinstance(screen, CaseScreen) or screen.frame is None:
                    return False
                chain = screen.query_one(StatusBar).status.chain
                return bool(chain) and not chain.startswith("checking")

            deadline = time.monotonic() + 600
            while not done():
                if time.monotonic() > deadline:
                    raise TimeoutError("the case did not open")
                await pilot.pause(0.01)
            await pilot.pause()
            return time.perf_counter() - start

    print(f"{asyncio.run(go()):.4f}")


def run_tui(case: str, db: Path, scratch: Path) -> Sample:
    out = scratch / "tui.out"
    with out.open("wb") as sink:
        sample = measured(
            [str(PYTHON), __file__, "--tui-child", url_of(db), case], scratch, stdout=sink.fileno()
        )
    opened = float(out.read_text().strip().splitlines()[-1])
    return Sample(opened, sample.rss_mb)


def run_raw(case: str, db: Path, scratch: Path) -> Sample:
    return measured([str(PYTHON), "-c", RAW_DECODE, str(db), case], scratch)


def run_bare(case: str, db: Path, scratch: Path) -> Sample:
    return measured([str(PYTHON), "-c", "import json, sqlite3"], scratch)


def run_help(case: str, db: Path, scratch: Path) -> Sample:
    return measured([str(CASEFILE), "--help"], scratch)


# -- the run --------------------------------------------------------------------------------


def median(samples: list[Sample], attr: str) -> float:
    return statistics.median(getattr(s, attr) for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--only", default="", help="command names, comma-separated")
    parser.add_argument("--no-tui", action="store_true")
    parser.add_argument("--warm-reps", type=int, default=3, help="warm status runs per round")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("BENCH_DIR") or tempfile.gettempdir()) / CACHE_NAME,
    )
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("bench_scaling.json"))
    parser.add_argument("--tui-child", nargs=2, metavar=("URL", "CASE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tui_child:
        tui_child(*args.tui_child)
        return 0
    sizes = sorted(int(n) for n in args.sizes.split(","))
    small, big = sizes[0], sizes[-1]
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    commands = [c for c in COMMANDS if not only or c.name in only]
    pristine = cached_database(args.cache_dir, sizes, args.rebuild)
    loads: list[tuple[float, float, float]] = [os.getloadavg()]
    results: dict[str, dict[int, list[Sample]]] = {}
    with tempfile.TemporaryDirectory(prefix="casefile-bench-scaling-") as tmp:
        scratch = Path(tmp)
        db = scratch / "cases.db"
        shutil.copyfile(pristine, db)
        contenders: list[tuple[str, Callable[[str, Path, Path], Sample]]] = [
            ("decoded rows (raw json.loads)", run_raw),
            ("bare python", run_bare),
            ("casefile --help", run_help),
        ]
        contenders += [
            (c.name, lambda case, d, s, c=c: run_command(c, case, d, s)) for c in commands
        ]
        if not args.no_tui:
            contenders.append(("tui", run_tui))
        for name, _ in contenders:
            results[name] = {n: [] for n in sizes}
        results["warm status, reference"] = {0: []}
        results["warm status, big"] = {0: []}
        for r in range(args.rounds):
            print(f"[{datetime.now():%H:%M:%S}] round {r + 1}", file=sys.stderr, flush=True)
            order = sizes if r % 2 == 0 else sizes[::-1]
            for name, run in contenders:
                for total in order:
                    try:
                        sample = run(case_name(total), db, scratch)
                    except Exception as error:  # one broken command must not stop the rest
                        print(f"{name} at {total}: {error}", file=sys.stderr)
                        continue
                    results[name][total].append(sample)
                print(
                    f"  {name}: "
                    + ", ".join(
                        f"{n}: {got[-1].wall_s:.2f} s {got[-1].rss_mb:.0f} MB"
                        for n in sizes
                        if (got := results[name][n])
                    ),
                    file=sys.stderr,
                    flush=True,
                )
            warm = Command("status", lambda c, s: ["status", c])
            pair = [("warm status, reference", REFERENCE_ID), ("warm status, big", case_name(big))]
            for key, case in pair if r % 2 == 0 else pair[::-1]:
                walls = [run_command(warm, case, db, scratch).wall_s for _ in range(args.warm_reps)]
                results[key][0].append(Sample(statistics.mean(walls), 0.0))
            loads.append(os.getloadavg())
    return report(results, sizes, small, big, loads, args)


def report(
    results: dict[str, dict[int, list[Sample]]],
    sizes: list[int],
    small: int,
    big: int,
    loads: list[tuple[float, float, float]],
    args: argparse.Namespace,
) -> int:
    raw = {n: median(results["decoded rows (raw json.loads)"][n], "rss_mb") for n in sizes}
    bare = median(results["bare python"][small], "rss_mb")
    floor = median(results["casefile --help"][small], "rss_mb")
    rows: list[dict[str, Any]] = []
    print(f"\nload average during the run (1 min): {[round(x[0], 1) for x in loads]}")
    print(
        f"decoded rows: {', '.join(f'{n}: {raw[n]:.0f} MB' for n in sizes)}; bare python "
        f"{bare:.0f} MB; casefile --help {floor:.0f} MB (net: each side less its start)"
    )
    print(
        f"{'command':24} {'10k wall':>9} {'100k wall':>10} {'ratio':>6} {'10k RSS':>8} "
        f"{'100k RSS':>9} {'RSS/rows':>8} {'net':>6}  verdict"
    )
    for name, by_size in results.items():
        skip = ("bare python", "casefile --help")
        if name.startswith("warm status") or name in skip or not all(by_size.values()):
            continue
        wall = {n: median(by_size[n], "wall_s") for n in sizes}
        rss = {n: median(by_size[n], "rss_mb") for n in sizes}
        ratio = wall[big] / wall[small]
        limit = TUI_RSS_TARGET if name == "tui" else RSS_TARGET
        rss_ratio = rss[big] / raw[big]
        net_ratio = (rss[big] - floor) / (raw[big] - bare)
        row = {
            "command": name,
            "wall_s": wall,
            "rss_mb": rss,
            "time_ratio": ratio,
            "rss_to_rows": rss_ratio,
            "rss_to_rows_net": net_ratio,
            "time_met": ratio <= TIME_TARGET,
            "rss_met": rss_ratio <= limit,
            "samples": {n: [s.__dict__ for s in by_size[n]] for n in sizes},
        }
        rows.append(row)
        verdict = (
            ""
            if name.startswith("decoded")
            else (
                ("time ok" if row["time_met"] else "TIME MISSED")
                + (", rss ok" if row["rss_met"] else f", RSS MISSED (≤ {limit}×)")
            )
        )
        print(
            f"{name:24} {wall[small]:8.2f}s {wall[big]:9.2f}s {ratio:5.1f}× {rss[small]:7.0f}M "
            f"{rss[big]:8.0f}M {rss_ratio:7.2f}× {net_ratio:5.2f}×  {verdict}"
        )
    ref = statistics.median(s.wall_s for s in results["warm status, reference"][0])
    ours = statistics.median(s.wall_s for s in results["warm status, big"][0])
    print(
        f"\nwarm status, {big:,} events vs the reference case: {ours:.3f} vs {ref:.3f} s = "
        f"{ours / ref:.2f}× (target ≤ {WARM_TARGET}×)"
    )
    out = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": loads,
        "rounds": args.rounds,
        "decoded_rows_mb": raw,
        "bare_python_mb": bare,
        "casefile_help_mb": floor,
        "raw": {
            name: {n: [s.__dict__ for s in v] for n, v in by.items()}
            for name, by in results.items()
        },
        "commands": rows,
        "warm_status": {"reference_s": ref, "big_s": ours, "ratio": ours / ref},
    }
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
