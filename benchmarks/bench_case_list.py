"""The case list with leaders after an engine upgrade: peak memory, this tree against another.

The TUI's case list (``service.library.cases(with_leaders=True)``) on a database whose saved
folds another engine wrote, so every one is refused: ``bench_scaling.py``'s
10,000/100,000-event database (``--db``; its snapshots are an older engine's), copied afresh
for every run (a listing saves new snapshots). Each run is a fresh interpreter under
``/usr/bin/time`` with ``PYTHONPATH`` at a copy of the working tree or at the old tree (``git
archive REV casefile plugins``, default ``HEAD``; or ``--old DIR``), rounds alternating old /
new; medians of peak RSS and wall time, and the rows that differ between the two.

``.venv/bin/python benchmarks/bench_case_list.py --db PATH [--rounds 3] [--rev REV | --old DIR]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.trees import new_tree, old_tree  # noqa: E402

LIST = """
import sys
from casefile.app.opening import open_service

service = open_service(sys.argv[1])
for row in service.library.cases(with_leaders=True):
    print(row.id, row.events, row.head_hash, row.leaders)
"""


def listed(tree: Path, pristine: Path, work: Path) -> tuple[float, float, str]:
    """Peak RSS (MB), wall time (s) and the rows, listing a fresh copy of ``pristine``."""
    db = work / "cases.db"
    for stale in work.glob("cases.db*"):
        stale.unlink()
    shutil.copyfile(pristine, db)
    env = {**os.environ, "PYTHONPATH": f"{tree}:{tree / 'plugins'}"}
    report = work / "time.out"
    argv = ["/usr/bin/time", "-f", "%M %e", "-o", str(report)]
    argv += [sys.executable, "-c", LIST, f"sqlite:///{db}"]
    # run away from the working tree: `-c` puts the cwd first on sys.path
    done = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, check=True)
    rss_kb, wall = report.read_text().split()[-2:]
    return int(rss_kb) * 1024 / 1e6, float(wall), done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="bench_scaling.py's database")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rev", default="HEAD", help="the old tree's commit (default HEAD)")
    parser.add_argument("--old", type=Path, help="the old tree, a directory (instead of --rev)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-case-list-") as scratch:
        work = Path(scratch)
        trees = {"old": options.old or old_tree(options.rev, work), "new": new_tree(work)}
        rss: dict[str, list[float]] = {"old": [], "new": []}
        wall: dict[str, list[float]] = {"old": [], "new": []}
        rows: dict[str, set[str]] = {"old": set(), "new": set()}
        for _ in range(options.rounds):
            for label, tree in trees.items():
                peak, seconds, printed = listed(tree, options.db, work)
                rss[label].append(peak)
                wall[label].append(seconds)
                rows[label].add(printed)
                print(f"  {label}: {peak:,.0f} MB, {seconds:.1f} s", file=sys.stderr)
        old_rows = dict(line.split(" ", 1) for line in sorted(rows["old"])[0].splitlines())
        new_rows = dict(line.split(" ", 1) for line in sorted(rows["new"])[0].splitlines())
        print(f"{options.rounds} rounds, old = {options.old or options.rev}; medians")
        for label in trees:
            print(
                f"  {label}: peak RSS {statistics.median(rss[label]):,.0f} MB, "
                f"wall {statistics.median(wall[label]):.1f} s, "
                f"{len(rows[label])} distinct listing(s)"
            )
        for case_id, row in new_rows.items():
            if old_rows.get(case_id) != row:
                print(f"  differs: {case_id}: old {old_rows.get(case_id)!r}\n    new {row!r}")
        ratio = statistics.median(rss["new"]) / statistics.median(rss["old"])
        print(f"  peak RSS new/old {ratio:.2f}")


if __name__ == "__main__":
    main()
