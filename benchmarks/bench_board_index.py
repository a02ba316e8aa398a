"""The TUI's warning index on a long case: the compact history against full copies.

The baseline is the computation the board used before (a tuple of every active warning at
each step that raised or cleared one), run in the same process on the same fold. Figures:
memory the index holds (tracemalloc, after building it), time to build it, and the median
time of a lookup at a random step.

Run: ``.venv/bin/python benchmarks/bench_board_index.py [--events N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from bisect import bisect_right
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import bench_engine
from casefile.app.views.warning_groups import WarningRow
from casefile.app.views.warning_history import WarningHistory
from casefile.domain.beliefs import project


def case_with_set_asides(total: int, share: float = 0.14) -> list[Any]:
    """``bench_engine``'s synthetic case with a ``share`` of its events (notes replaced) setting
    the latest reading aside, as a long case with set-aside readings holds them (each raises a
    warning that stays: 14 % of the events, as in the 100,000-event case of issue 24)."""
    from casefile.domain.events import NewEvent

    engine = bench_engine()
    rng = random.Random(11)
    news: list[Any] = []
    reading = 0
    for event in engine.synthetic_case(total):
        if event.type == "observation.recorded":
            reading = event.seq
        if event.type == "note.added" and reading and rng.random() < share / 0.24:
            rule = f"rule-{rng.randrange(8)}"
            payload = {
                "observation_seq": reading,
                "rule": {"id": rule, "version": 1},
                "reason": f"taken at idle; rule {rule} counts only readings taken under load",
            }
            news.append(NewEvent("reading.set_aside", payload))
        else:
            news.append(NewEvent(event.type, event.payload, version=event.version))
    return list(engine.fold_ready(news))


def full_copies(trajectory: Any) -> list[tuple[int, tuple[WarningRow, ...]]]:
    active: dict[Any, WarningRow] = {}
    changes: list[tuple[int, tuple[WarningRow, ...]]] = []
    for step in trajectory:
        if step.raised or step.cleared:
            for w in step.cleared:
                active.pop(w.key, None)
            for w in step.raised:
                active[w.key] = WarningRow.of(w)
            changes.append((step.seq, tuple(active.values())))
    return changes


def compact(trajectory: Any) -> WarningHistory:
    history = WarningHistory()
    for step in trajectory:
        if step.raised or step.cleared:
            history.record(
                step.seq, (w.key for w in step.cleared), (WarningRow.of(w) for w in step.raised)
            )
    return history


def measure(build: Callable[[], Any]) -> tuple[Any, float, int]:
    """What ``build`` returns, its seconds, and the bytes it still holds."""
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    built = build()
    seconds = time.perf_counter() - start
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return built, seconds, held


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lookups", type=int, default=2_000)
    args = parser.parse_args()
    start = time.perf_counter()
    projection = project(case_with_set_asides(args.events))
    trajectory = projection.trajectory
    print(f"folded {args.events} events in {time.perf_counter() - start:.1f} s")
    rng = random.Random(7)
    seqs = [rng.randint(1, projection.last_seq) for _ in range(args.lookups)]
    figures: dict[str, list[float]] = {k: [] for k in ("old_mb", "new_mb", "old_s", "new_s")}
    lookups: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        old, old_s, old_b = measure(lambda: full_copies(trajectory))
        new, new_s, new_b = measure(lambda: compact(trajectory))
        figures["old_mb"].append(old_b / 2**20)
        figures["new_mb"].append(new_b / 2**20)
        figures["old_s"].append(old_s)
        figures["new_s"].append(new_s)
        for seq in seqs:
            t = time.perf_counter()
            at = bisect_right(old, seq, key=lambda change: change[0])
            expected = old[at - 1][1] if at else ()
            lookups["old"].append(time.perf_counter() - t)
            t = time.perf_counter()
            got = new.at(seq)
            lookups["new"].append(time.perf_counter() - t)
            assert got == expected, seq
        slots = sum(len(rows) for _, rows in old)
        del old, new
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"steps that changed warnings: {len(compact(trajectory))}; slots in full copies: {slots}")
    print(
        f"index memory: full copies {med['old_mb']:.1f} MiB, compact {med['new_mb']:.1f} MiB "
        f"({med['new_mb'] / med['old_mb']:.3f}x)"
    )
    print(
        f"build: full copies {med['old_s']:.3f} s, compact {med['new_s']:.3f} s "
        f"({med['new_s'] / med['old_s']:.3f}x)"
    )
    old_l, new_l = (statistics.median(lookups[k]) * 1e3 for k in ("old", "new"))
    print(f"lookup at a random step (median): full copies {old_l:.3f} ms, compact {new_l:.3f} ms")


if __name__ == "__main__":
    main()
