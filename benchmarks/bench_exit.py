"""What a one-shot command pays at exit for the cyclic collector: this tree against another.

``casefile --version`` and a warm ``casefile status`` of the reference case (81 events,
imported into a fresh SQLite database; one untimed run of each first), each run as the
executable (``program()``) in a fresh interpreter, with ``PYTHONPATH`` at a copy of the
working tree or at the old tree (``git archive REV casefile plugins``, default ``HEAD``; or
``--old DIR``).
Rounds alternate old / new; each figure is the median of the rounds (wall time, and the
child's CPU time, steadier on a shared machine), the ratio new / old in the same run. The
output of each command is compared byte for byte.

``.venv/bin/python benchmarks/bench_exit.py [--rounds 9] [--rev REV | --old DIR]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.trees import new_tree, old_tree  # noqa: E402

REFERENCE = "glm5-pcie-pivot"
PROGRAM = "import sys; from casefile.cli.main import program; sys.argv[0] = 'casefile'; "
PROGRAM += "sys.exit(program())"


def child_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def casefile(tree: Path, db: Path, *words: str) -> tuple[float, float, bytes]:
    """The command's wall time, its CPU time (user + system) and its output."""
    env = {**os.environ, "PYTHONPATH": f"{tree}:{tree / 'plugins'}", "CASEFILE_DB": str(db)}
    env.pop("CASEFILE_ACTOR", None)
    cpu, start = child_cpu(), time.perf_counter()
    done = subprocess.run(  # run away from the working tree: `-c` puts the cwd on sys.path
        [sys.executable, "-c", PROGRAM, *words],
        env=env,
        cwd=db.parent,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start, child_cpu() - cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--rev", default="HEAD", help="the old tree's commit (default HEAD)")
    parser.add_argument("--old", type=Path, help="the old tree, a directory (instead of --rev)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-exit-") as scratch:
        work = Path(scratch)
        old = options.old or old_tree(options.rev, work)
        db = work / "cases.db"
        casefile(ROOT, db, "import", str(ROOT / "casefile" / "reference" / REFERENCE))
        trees = {"old": old, "new": new_tree(work)}
        commands = {"--version": ("--version",), "status": ("status", REFERENCE)}
        for tree in trees.values():  # each tree's bytecode written
            casefile(tree, db, "status", REFERENCE)
            casefile(tree, db, "--version")
        times: dict[tuple[str, str], list[float]] = {}
        cpus: dict[tuple[str, str], list[float]] = {}
        outputs: dict[tuple[str, str], set[bytes]] = {}
        for _ in range(options.rounds):
            for name, words in commands.items():
                for label, tree in trees.items():
                    wall, cpu, out = casefile(tree, db, *words)
                    times.setdefault((name, label), []).append(wall)
                    cpus.setdefault((name, label), []).append(cpu)
                    outputs.setdefault((name, label), set()).add(out)
        print(f"{options.rounds} rounds, old = {options.old or options.rev}; medians (s)")
        for name in commands:
            same = outputs[(name, "old")] == outputs[(name, "new")]
            same = same and len(outputs[(name, "new")]) == 1
            print(f"  {name} (output identical: {same})")
            for what, samples in (("wall", times), ("cpu", cpus)):
                old_s = statistics.median(samples[(name, "old")])
                new_s = statistics.median(samples[(name, "new")])
                print(
                    f"    {what:4} old {old_s:.3f}  new {new_s:.3f}  new/old {new_s / old_s:.3f}"
                    f"  saved {1000 * (old_s - new_s):.0f} ms"
                )


if __name__ == "__main__":
    main()
