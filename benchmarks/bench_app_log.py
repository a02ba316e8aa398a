"""Benchmark the application-log parser on a 10 MB log, against another revision's in the same
run: what reading more of each line (the decode roofline's weights, devices and placement)
costs a long server or training log.

The log is real lines repeated: a vLLM server's (golden 008), an mmcv training log's (001) and
Ollama's timing block (036). Each revision is timed in its own process (its own imports),
alternating, medians of several rounds. Prints a table, then one JSON line. Run:
``python benchmarks/bench_app_log.py [--before 651d9c4] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ("008.txt", "001.txt", "036.txt")
SIZE = 10_000_000

_TIMER = """
import sys, time
root = sys.argv[1]
sys.path[:0] = [root + "/plugins", root]
from casefile_probes.app_log import parse_app_log
text = open(sys.argv[2], encoding="utf-8").read()
started = time.perf_counter()
parse_app_log(text)
print(time.perf_counter() - started)
"""


def _log(path: Path) -> None:
    golden = ROOT / "tests" / "golden" / "app-log"
    unit = "".join((golden / name).read_text(encoding="utf-8") for name in SAMPLES)
    path.write_text(unit * (SIZE // len(unit)), encoding="utf-8")


def _time(root: Path, log: Path) -> float:
    ran = subprocess.run(
        [sys.executable, "-c", _TIMER, str(root), str(log)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(ran.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default=None, help="a revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "app.log"
        _log(log)
        roots = {"now": ROOT}
        if args.before:
            base = Path(scratch) / "before"
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "worktree",
                    "add",
                    "-q",
                    "--detach",
                    str(base),
                    args.before,
                ],
                check=True,
            )
            roots["before"] = base
        try:
            times: dict[str, list[float]] = {name: [] for name in roots}
            for _ in range(args.rounds):
                for name, root in roots.items():
                    times[name].append(_time(root, log))
        finally:
            if args.before:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(roots["before"])],
                    check=True,
                )
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"{name:8} {log.name} {SIZE / 1e6:.0f} MB: median {value:.3f} s")
    out: dict[str, object] = {"benchmark": "app_log", "bytes": SIZE, **medians}
    if "before" in medians:
        out["ratio"] = round(medians["now"] / medians["before"], 3)
        print(f"now / before: {out['ratio']}x")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
