"""What reading events through upcasters costs the fold.

``project`` now asks, for every event, whether its version is its type's current one (one dict
lookup and a comparison) and reads older ones through :mod:`casefile.domain.upcasters`. Two
figures, each a ratio to a baseline run alternately in the same process:

1. the check alone: ``project`` over 100,000 current events vs the same fold driven without
   the check (the fold's own ``_Folder``, as ``project`` drove it before);
2. upcasting for real: the same case with ``note.added`` declared at version 2 (every note,
   about a quarter of the events, then goes through one upcaster step) vs the check alone.

Run: ``python benchmarks/bench_upcasters.py [--events N] [--repeat R]``; prints a table and a
JSON line. Medians of R alternating rounds (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import synthetic_case

from casefile.domain import catalogue, upcasters
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.projection import _Folder
from casefile.domain.catalogue import Payload
from casefile.domain.events import Event


def fold_without_check(events: list[Event]) -> Projection:
    """``project`` as it was before upcasters: every event applied as stored."""
    projection = Projection(keeps_trajectory=True)
    folder = _Folder(projection)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for event in events:
            folder.apply(event)
    finally:
        folder.handlers.clear()
        if collecting:
            gc.enable()
    return projection


class _NoteV2(Payload):
    text: str = Field(min_length=1)
    tags: list[str]


def notes_at_version_2() -> Callable[[], None]:
    """Declare note.added at version 2 with an upcaster; returns the undo."""
    saved = catalogue.CATALOGUE["note.added"]
    catalogue.CATALOGUE["note.added"] = (2, _NoteV2)
    catalogue.CURRENT_VERSIONS["note.added"] = 2
    upcasters.UPCASTERS[("note.added", 1)] = lambda payload: {**payload, "tags": []}

    def undo() -> None:
        catalogue.CATALOGUE["note.added"] = saved
        catalogue.CURRENT_VERSIONS["note.added"] = saved[0]
        del upcasters.UPCASTERS[("note.added", 1)]

    return undo


def once(fn: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    del result
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    events = synthetic_case(args.events)
    notes = sum(1 for e in events if e.type == "note.added")
    baseline: list[float] = []
    checked: list[float] = []
    upcast: list[float] = []
    for _ in range(args.repeat):
        baseline.append(once(lambda: fold_without_check(events)))
        checked.append(once(lambda: project(events)))
        undo = notes_at_version_2()
        try:
            upcast.append(once(lambda: project(events)))
        finally:
            undo()
    b, c, u = (statistics.median(x) for x in (baseline, checked, upcast))
    rows = [
        ("fold, no version check (before)", b, 1.0),
        ("fold through `project` (the check)", c, c / b),
        (f"fold with {notes:,} notes upcast v1 → v2", u, u / c),
    ]
    print(f"{args.events:,} events, median of {args.repeat} alternating rounds")
    print(f"{'contender':<44} {'median s':>9} {'ratio':>7}")
    for name, seconds, ratio in rows:
        print(f"{name:<44} {seconds:>9.3f} {ratio:>6.3f}×")
    print(
        json.dumps(
            {
                "events": args.events,
                "notes": notes,
                "repeat": args.repeat,
                "baseline_s": round(b, 4),
                "checked_s": round(c, 4),
                "upcast_s": round(u, 4),
                "check_ratio": round(c / b, 4),
                "upcast_ratio": round(u / c, 4),
                "best_check_ratio": round(min(checked) / min(baseline), 4),
            }
        )
    )


if __name__ == "__main__":
    main()
