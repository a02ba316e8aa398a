"""Benchmark the time-series facts of dmon and looped --query-gpu output (issue 11, item 5).

Two questions: what keeping the series costs against the mean-only parse it extends, and
whether the parse stays linear in the number of samples. For each parser, a synthetic looped
output of 8 GPUs is parsed at 1,000 and 10,000 samples per GPU, with the series on and, as the
baseline in the same process, with ``add_series_facts`` replaced by a no-op (the parse as it
was before); medians of several runs. Also the largest ``.series`` value in bytes, which the
300-point cap bounds whatever the run's length. Targets: series overhead at most 1.5x the
mean-only parse; 10x the samples at most 12x the time; a series value under 8 KB. Times are
CPU seconds of the benchmark process (``time.process_time``), medians.

    .venv/bin/python benchmarks/bench_series.py [--repeat 3]

Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import casefile_probes.dmon as dmon
import casefile_probes.query_gpu as query_gpu

from casefile.domain.facts import ParseResult

GPUS = 8
SMALL = 1_000
LARGE = 10_000
OVERHEAD_TARGET = 1.5
SCALING_TARGET = 12.0
SIZE_TARGET = 8_192


def query_text(samples: int) -> str:
    lines = [
        "$ nvidia-smi --query-gpu=timestamp,index,utilization.gpu,temperature.gpu,clocks.sm,"
        "power.draw --format=csv -l 1",
        "timestamp, index, utilization.gpu [%], temperature.gpu, clocks.current.sm [MHz], "
        "power.draw [W]",
    ]
    for sample in range(samples):
        hours, rest = divmod(sample, 3600)
        stamp = (
            f"2026/03/02 {10 + hours % 12:02d}:{rest // 60:02d}:{rest % 60:02d}.{sample % 1000:03d}"
        )
        for gpu in range(GPUS):
            temp = 40 + (sample * 7 + gpu) % 45
            lines.append(
                f"{stamp}, {gpu}, {sample % 101} %, {temp}, {1980 - sample % 400} MHz, 3{gpu}1.25 W"
            )
    return "\n".join(lines) + "\n"


def dmon_text(samples: int) -> str:
    lines = [
        "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk",
        "# Idx     W     C     C     %     %     %     %   MHz   MHz",
    ]
    for sample in range(samples):
        for gpu in range(GPUS):
            lines.append(
                f"    {gpu}   {300 + sample % 50}    {40 + sample % 45}     -    {sample % 101}"
                f"    {sample % 60}     0     0  9501  {1980 - sample % 400}"
            )
    return "\n".join(lines) + "\n"


@contextmanager
def series_off() -> Iterator[None]:
    """The mean-only baseline, the parse as it was: no sample times read, no series made."""
    targets: list[tuple[object, str]] = [
        (dmon, "add_series_facts"),
        (query_gpu, "add_series_facts"),
        (dmon._SampleClock, "time_of"),
        (query_gpu, "_sample_times"),
    ]
    saved = [getattr(owner, name) for owner, name in targets]

    def nothing(*_: object) -> None:
        return None

    def untimed(table: query_gpu._Table, *_: object) -> tuple[list[None], None, bool]:
        return [None] * len(table.rows), None, False

    for (owner, name), stand_in in zip(targets, (nothing, nothing, nothing, untimed), strict=True):
        setattr(owner, name, stand_in)
    try:
        yield
    finally:
        for (owner, name), original in zip(targets, saved, strict=True):
            setattr(owner, name, original)


@dataclass(frozen=True)
class Row:
    parser: str
    small_s: float
    large_s: float
    baseline_large_s: float
    series_bytes: int

    @property
    def overhead(self) -> float:
        return self.large_s / self.baseline_large_s

    @property
    def scaling(self) -> float:
        return self.large_s / self.small_s


def median_time(parse: Callable[[str], ParseResult], text: str, repeat: int) -> float:
    # CPU time of this process: on a shared machine the wall clock mostly measures the others.
    times = []
    for _ in range(repeat):
        started = time.process_time()
        parse(text)
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows: list[Row] = []
    for name, parse, make in (
        ("nvidia-smi-query -l", query_gpu.parse_query_gpu, query_text),
        ("nvidia-smi-dmon", dmon.parse_dmon, dmon_text),
    ):
        small, large = make(SMALL), make(LARGE)
        with_small = median_time(parse, small, args.repeat)
        with_large = median_time(parse, large, args.repeat)
        with series_off():
            base_large = median_time(parse, large, args.repeat)
        biggest = max(
            len(str(fact.value).encode())
            for fact in parse(large).facts
            if fact.name.endswith(".series")
        )
        rows.append(Row(name, with_small, with_large, base_large, biggest))
    print(
        f"| parser | {SMALL:,} samples | {LARGE:,} samples | mean-only, {LARGE:,} | overhead |"
        " scaling | largest .series |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row.parser} | {row.small_s:.3f} s | {row.large_s:.3f} s | "
            f"{row.baseline_large_s:.3f} s | {row.overhead:.2f}× | {row.scaling:.2f}× | "
            f"{row.series_bytes:,} B |"
        )
    met = all(
        row.overhead <= OVERHEAD_TARGET
        and row.scaling <= SCALING_TARGET
        and row.series_bytes < SIZE_TARGET
        for row in rows
    )
    summary = [
        {
            "parser": row.parser,
            "small_s": round(row.small_s, 4),
            "large_s": round(row.large_s, 4),
            "baseline_large_s": round(row.baseline_large_s, 4),
            "overhead": round(row.overhead, 2),
            "scaling": round(row.scaling, 2),
            "series_bytes": row.series_bytes,
        }
        for row in rows
    ]
    print(json.dumps({"benchmark": "series", "gpus": GPUS, "rows": summary, "targets_met": met}))


if __name__ == "__main__":
    main()
