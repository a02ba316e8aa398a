"""What reading payloads as their models costs (issue 22): a revision's tree vs the working tree.

On the commands benchmarks' synthetic 100,000-event case (``commands_harness.sealed_case``
of ``bench_engine.synthetic_case``: 28 % evidence, a quarter each probe runs, observations and
notes), built once into a SQLite file cached in the temp directory:

cold     ``casefile status CASE`` with the case's saved folds dropped first (not timed): the
         child's CPU time (user + system, which moves less than wall time on a shared
         machine) and its wall time
replay   ``casefile replay CASE --json > /dev/null``: the same
report   ``casefile report CASE --format json -o - > /dev/null`` (only with ``--figures``)
fold     in a child process per tree: ``project(store.load(CASE), trajectory=False)``, the
         best of three, timed inside the child (so without start-up and imports)

The old tree is ``git archive REV casefile plugins`` in a temporary directory (or ``--old``, a
directory holding a copy of ``casefile/``), the new one the working tree (or ``--new``); every
command runs the working tree's interpreter with ``PYTHONPATH`` at one tree or the other (the
editable install's finder comes after it). The two trees' outputs are compared byte for byte
first; then rounds alternate which tree goes first, and each figure is the median of the
rounds' own ratios (the machine's speed moves from minute to minute; a round's two runs are
seconds apart).

Another case: ``--db FILE --case NAME`` (a copy of FILE is measured; ``bench_scaling.py``'s
playbook-shaped ``playbook-100000``, say).

Run: ``.venv/bin/python benchmarks/bench_typed_reads.py [--at REV | --old DIR] [--new DIR]
[--rounds 9] [--figures cold,replay,fold,report] [--db FILE --case NAME]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.siblings import sibling

ROOT = Path(__file__).resolve().parents[1]

PYTHON = ROOT / ".venv" / "bin" / "python"
CASE = "synthetic-100000"
CLI = "import sys; from casefile.cli.main import program; sys.argv[0] = 'casefile'; program()"
FOLD = """
import sys, time
from casefile.domain.beliefs import project
from casefile.store.sql import SqlEventStore
with SqlEventStore(sys.argv[1]) as store:
    events = list(store.load(sys.argv[2]))
times = []
for _ in range(3):
    t0 = time.perf_counter()
    project(events, trajectory=False)
    times.append(time.perf_counter() - t0)
print(min(times))
"""


def build(db: Path) -> None:
    commands = sibling("commands_harness")
    from casefile.domain.events import sha256_hex
    from casefile.store.sql import SqlEventStore

    digest = sha256_hex(commands.ARTIFACT)
    building = db.with_suffix(".building")
    with SqlEventStore(f"sqlite:///{building}") as store:
        store.import_case(commands.sealed_case(CASE, 100_000, digest), {digest: commands.ARTIFACT})
    conn = sqlite3.connect(building)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    building.rename(db)


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(tree: Path, code: str, *args: str, out: Path | None = None) -> tuple[float, float, str]:
    """Wall and CPU time (user + system) of ``python -c code args`` on ``tree``, and what it
    printed unless ``out``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cpu = cpu_of_children()
    start = time.perf_counter()
    with open(out, "wb") if out is not None else open(os.devnull, "wb") as sink:
        done = subprocess.run(
            [str(PYTHON), "-c", code, *args],
            env=env,
            stdout=sink if out is not None else subprocess.PIPE,
            stderr=subprocess.PIPE,
            check=False,
        )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{tree}: exit {done.returncode}: {done.stderr.decode()[-2000:]}")
    return wall, cpu_of_children() - cpu, "" if out is not None else done.stdout.decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--at", default="HEAD", help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--old", type=Path, help="a tree (holding casefile/) instead of --at")
    parser.add_argument("--new", type=Path, default=ROOT, help="the tree to measure")
    parser.add_argument("--db", type=Path, help="another SQLite file (a copy is measured)")
    parser.add_argument("--case", default=CASE, help="the case in --db")
    parser.add_argument(
        "--figures", default="cold,replay,fold", help="of cold, replay, fold, report"
    )
    args = parser.parse_args()
    cache = Path(tempfile.gettempdir()) / "casefile-bench-typed-reads"
    cache.mkdir(exist_ok=True)
    db = cache / "synthetic-100000.db"
    if args.db is not None:
        db = cache / f"copy-of-{args.db.name}"
        shutil.copyfile(args.db, db)
    elif not db.exists():
        print(f"building {db} …", file=sys.stderr, flush=True)
        build(db)
    url = f"sqlite:///{db}"
    case = args.case
    from casefile.store.sql import SqlEventStore

    def drop() -> None:
        with SqlEventStore(url) as store:
            store.drop_snapshots(case)

    with tempfile.TemporaryDirectory() as scratch:
        old = args.old
        if old is None:
            old = Path(scratch) / "old"
            old.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.at, "casefile", "plugins"],
                check=True,
                capture_output=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        before = str(old) if args.old is not None else args.at
        trees = {before: old, "new": args.new}
        figures = set(args.figures.split(","))
        commands = {
            "cold": ["status"],
            "replay": ["replay", "--json"],
            "report": ["report", "--format", "json", "-o", "-"],
        }
        compared = [(what, argv) for what, argv in commands.items() if what in figures]
        for what, argv in compared:
            outputs = []
            for tree in trees.values():
                drop()
                target = Path(scratch) / f"{what}-{len(outputs)}"
                run(tree, CLI, *argv[:1], "--db", url, case, *argv[1:], out=target)
                outputs.append(target.read_bytes())
            same = "byte-identical" if outputs[0] == outputs[1] else "DIFFERENT"
            print(f"{what} output: {same} ({len(outputs[1]):,} bytes)", flush=True)
        rounds: dict[str, dict[str, list[float]]] = {}
        for number in range(args.rounds):
            order = list(trees.items())
            if number % 2:
                order.reverse()
            for what, argv in compared:
                for name, tree in order:
                    if what == "cold":
                        drop()
                    wall, cpu, _ = run(tree, CLI, *argv[:1], "--db", url, case, *argv[1:])
                    rounds.setdefault(f"{what}, CPU", {}).setdefault(name, []).append(cpu)
                    rounds.setdefault(f"{what}, wall", {}).setdefault(name, []).append(wall)
            for name, tree in order if "fold" in figures else ():
                _, _, printed = run(tree, FOLD, url, case)
                rounds.setdefault("fold", {}).setdefault(name, []).append(float(printed))
            print(f"round {number + 1} of {args.rounds}", file=sys.stderr, flush=True)
        for figure, by_tree in rounds.items():
            old_times, new_times = by_tree[before], by_tree["new"]
            ratios = [a / b for a, b in zip(new_times, old_times, strict=True)]
            ratio = statistics.median(ratios)
            print(
                f"{figure:12} {before}: {statistics.median(old_times):.3f} s, new: "
                f"{statistics.median(new_times):.3f} s, ratio (median of rounds) {ratio:.4f}, "
                f"rounds {min(ratios):.3f}-{max(ratios):.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
