"""Benchmark the parsers on one long line: the time must grow linearly with its length.

For each built-in parser, a 100 KB line and a 1 MB line of each of the shapes that used to be
quadratic (issue 9, defect 7) are parsed a few times; the slowest shape's median times are
reported with their ratio, whose target is at most 12 (ten times the text, twelve times the
time; a parser that takes under a millisecond on 1 MB passes whatever its ratio). Prints a
table, then one JSON line. Run:
``python benchmarks/bench_parse_lines.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from importlib import import_module
from pathlib import Path

from casefile.probes.api import Probe

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.cli.conftest import BUILTIN_PROBE_MODULES

#: the built-ins, plus the probes of issue 11 items 3-5 (not yet in the CLI tests' list)
MODULES = BUILTIN_PROBE_MODULES
SHAPES: dict[str, tuple[str, str]] = {
    "letters": ("a", ""),
    "slashes": ("/", "nvidia-smi"),
    "at-signs": ("a@", " nvidia-smi"),
    "env-groups": ("(a)", " nvidia-smi"),
    "digits-spaces": ("1 ", ""),
    "colons": (": ", ""),
    "nccl-log": ("a:1:2 [0] NCCL INFO ", ""),
    # llama.cpp's load log, as the decode roofline reads it (app_log_weights)
    "device-lines": ("Device 0: NVIDIA GeForce ", " size"),
    "size-lines": ("model size = 1.5 ", "n_expert"),
}
SMALL = 100_000
LARGE = 1_000_000
TARGET = 12.0
#: below this a 1 MB parse is too quick to time: its ratio is noise, not growth
NOISE_FLOOR_S = 0.001


def _line(size: int, unit: str, suffix: str) -> str:
    return (unit * (size // len(unit) + 1))[:size] + suffix


def _median(probe: Probe, text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        probe.safe_parse(text)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for module in MODULES:
        probe: Probe = import_module(f"casefile_probes.{module}").PROBE
        worst: tuple[float, str, float] | None = None
        for shape, (unit, suffix) in SHAPES.items():
            small = _median(probe, _line(SMALL, unit, suffix), args.repeat)
            if worst is None or small > worst[0]:
                worst = (small, shape, 0.0)
        assert worst is not None
        small, shape, _ = worst
        unit, suffix = SHAPES[shape]
        large = _median(probe, _line(LARGE, unit, suffix), args.repeat)
        ratio = large / small if small > 0 else float("inf")
        rows.append(
            {
                "parser": probe.name,
                "shape": shape,
                "100KB_s": round(small, 5),
                "1MB_s": round(large, 5),
                "ratio": round(ratio, 2),
                "ok": ratio <= TARGET or large < NOISE_FLOOR_S,
            }
        )
    print(f"{'parser':<20} {'worst shape':<14} {'100 KB (s)':>11} {'1 MB (s)':>10} {'ratio':>7}")
    for row in rows:
        print(
            f"{row['parser']:<20} {row['shape']:<14} {row['100KB_s']:>11.5f} "
            f"{row['1MB_s']:>10.5f} {row['ratio']:>7.2f}{'' if row['ok'] else '  > target'}"
        )
    summary = {
        "benchmark": "parse_lines",
        "target_ratio": TARGET,
        "all_ok": all(row["ok"] for row in rows),
        "parsers": rows,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
