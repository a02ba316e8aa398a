"""Benchmark the SQLite event store against raw ``sqlite3`` and the ``eventsourcing`` library.

(1) Durable single-event append (WAL, ``synchronous=FULL``, one ~500-byte event per
    transaction): ``SqlEventStore.append`` against raw ``sqlite3`` doing the same single-row
    INSERT + commit with the same pragmas (target: ≥ 1/3 of the raw rate), and against
    eventsourcing's one-event save on its SQLite module with the same file settings (target:
    faster).
(2) Load, decode and fold 100,000 events of one case: ``store.load`` plus a trivial fold against
    raw ``sqlite3`` fetching the same rows and ``json.loads``-ing the payloads (target: within
    1.5×), and against eventsourcing reconstructing an aggregate from 100,000 events (target:
    faster).

Rounds alternate between the contenders so that noise on a shared machine hits them alike;
the table reports the median round (and the best). eventsourcing is needed only here:
``.venv/bin/pip install eventsourcing`` (it is not a casefile dependency); without it those
rows are skipped.

Run: ``.venv/bin/python benchmarks/bench_store.py [--quick]``. Prints a table, then JSON
(also written to ``--json``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.domain.events import NewEvent, canonical_json
from casefile.store.sql import SqlEventStore

WORDS = [
    "pcie",
    "gen5",
    "x16",
    "link",
    "throughput",
    "decode",
    "token",
    "latency",
    "kernel",
    "launch",
    "overhead",
    "sm",
    "utilisation",
    "memory",
    "bandwidth",
    "nvlink",
    "topology",
    "phb",
    "numa",
    "affinity",
    "batch",
    "prefill",
    "moe",
    "expert",
    "matmul",
    "small",
    "efficiency",
    "measured",
    "calculated",
    "idle",
    "load",
    "watts",
    "clocks",
]


def text_of(n: int, rng: random.Random, size: int = 490) -> str:
    words: list[str] = [f"#{n}"]
    length = len(words[0])
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


# -- eventsourcing (optional) ---------------------------------------------------------------


def eventsourcing_app(path: Path) -> Any:
    """An eventsourcing Application on its SQLite module, WAL + synchronous=FULL."""
    from eventsourcing.application import Application

    app: Application[Any] = Application(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(path),
            "SQLITE_LOCK_TIMEOUT": "30",
        }
    )
    # eventsourcing sets WAL itself and leaves synchronous at SQLite's default, FULL (2) on
    # this build, per connection of its pool; check rather than assume.
    datastore = app.recorder.datastore  # type: ignore[attr-defined]
    with datastore.transaction(commit=False) as cursor:
        cursor.execute("PRAGMA journal_mode")
        mode = cursor.fetchone()[0]
        cursor.execute("PRAGMA synchronous")
        level = cursor.fetchone()[0]
    if (str(mode).lower(), int(level)) != ("wal", 2):
        raise SystemExit(f"eventsourcing runs with journal_mode={mode} synchronous={level}")
    return app


@functools.cache
def note_aggregate_class() -> Any:
    """The aggregate, defined once: eventsourcing registers each class under its topic."""
    from eventsourcing.domain import Aggregate, event

    class Case(Aggregate):
        def __init__(self, title: str) -> None:
            self.title = title
            self.notes = 0
            self.last = ""

        @event("NoteAdded")
        def add_note(self, text: str) -> None:
            self.notes += 1
            self.last = text

    return Case


def eventsourcing_available() -> bool:
    try:
        import eventsourcing  # noqa: F401
    except ImportError:
        return False
    return True


# -- (1) durable single-event append --------------------------------------------------------


class RawAppender:
    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS events (case_id TEXT, seq INTEGER, type TEXT, "
            "version INTEGER, recorded_at TEXT, occurred_at TEXT, actor TEXT, payload TEXT, "
            "prev_hash TEXT, hash TEXT, PRIMARY KEY (case_id, seq))"
        )
        self.conn.commit()
        self.seq = 0

    def append(self, text: str) -> None:
        self.seq += 1
        self.conn.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                "raw",
                self.seq,
                "note.added",
                1,
                "2025-01-01T00:00:00.000000Z",
                None,
                "user",
                canonical_json({"text": text}),
                "0" * 64,
                "f" * 64,
            ),
        )
        self.conn.commit()


class OursAppender:
    def __init__(self, path: Path) -> None:
        self.store = SqlEventStore(f"sqlite:///{path}")
        self.seq = 0

    def append(self, text: str) -> None:
        self.store.append("ours", self.seq, [NewEvent("note.added", {"text": text})])
        self.seq += 1


class EsAppender:
    def __init__(self, path: Path) -> None:
        self.app = eventsourcing_app(path)
        self.case = note_aggregate_class()("bench")
        self.app.save(self.case)

    def append(self, text: str) -> None:
        self.case.add_note(text)
        self.app.save(self.case)


def bench_append(root: Path, rounds: int, per_round: int, with_es: bool) -> dict[str, Any]:
    rng = random.Random(1)
    texts = [text_of(n, rng) for n in range(per_round)]
    makers: dict[str, Callable[[Path], Any]] = {
        "raw sqlite3": RawAppender,
        "casefile": OursAppender,
    }
    if with_es:
        makers["eventsourcing"] = EsAppender
    appenders = {
        name: make(root / f"append-{i}.db") for i, (name, make) in enumerate(makers.items())
    }
    for appender in appenders.values():  # warm up: connections, statement caches
        for text in texts[:20]:
            appender.append(text)
    rates: dict[str, list[float]] = {name: [] for name in appenders}
    for _ in range(rounds):
        for name, appender in appenders.items():
            gc.collect()
            start = time.perf_counter()
            for text in texts:
                appender.append(text)
            rates[name].append(per_round / (time.perf_counter() - start))
    return summarise(rates, "events/s", higher_is_better=True)


# -- (2) load, decode, fold -----------------------------------------------------------------


def fold(events: list[Any]) -> tuple[dict[str, int], str]:
    counts: dict[str, int] = {}
    last = ""
    for event in events:
        counts[event.type] = counts.get(event.type, 0) + 1
        if event.type == "note.added":
            last = event.payload["text"]
    return counts, last


def bench_load(root: Path, rounds: int, count: int, with_es: bool) -> dict[str, Any]:
    rng = random.Random(2)
    path = root / "load.db"
    store = SqlEventStore(f"sqlite:///{path}?synchronous=NORMAL")  # setup speed only
    batch = 1000
    for first in range(0, count, batch):
        news = [
            NewEvent("note.added", {"text": text_of(n, rng)}) for n in range(first, first + batch)
        ]
        store.append("big", first, news)
    store.close()
    ours = SqlEventStore(f"sqlite:///{path}")
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("PRAGMA synchronous = FULL")

    def run_ours() -> None:
        counts, last = fold(ours.load("big"))
        assert counts["note.added"] == count and last.startswith(f"#{count - 1} ")

    def run_raw() -> None:
        loads = json.loads
        rows = raw.execute(
            "SELECT seq, type, version, recorded_at, occurred_at, actor, payload, prev_hash, "
            "hash FROM events WHERE case_id = ? ORDER BY seq",
            ("big",),
        ).fetchall()
        payloads = [loads(row[6]) for row in rows]
        assert len(payloads) == count

    runners: dict[str, Callable[[], None]] = {"raw sqlite3": run_raw, "casefile": run_ours}
    if with_es:
        app = eventsourcing_app(root / "load-es.db")
        case = note_aggregate_class()("bench")
        for first in range(0, count - 1, batch):
            for n in range(first, min(first + batch, count - 1)):
                case.add_note(text_of(n, rng))
            app.save(case)  # one transaction per batch: setup, not measured
        case_id = case.id

        def run_es() -> None:
            aggregate = app.repository.get(case_id)
            assert aggregate.notes == count - 1

        runners["eventsourcing"] = run_es
    for run in runners.values():
        run()  # warm up the page cache and statement caches
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            gc.collect()
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    ours.close()
    raw.close()
    return summarise(times, "s", higher_is_better=False)


# -- reporting ------------------------------------------------------------------------------


def summarise(
    samples: dict[str, list[float]], unit: str, *, higher_is_better: bool
) -> dict[str, Any]:
    best = max if higher_is_better else min
    return {
        "unit": unit,
        "higher_is_better": higher_is_better,
        "median": {name: statistics.median(values) for name, values in samples.items()},
        "best": {name: best(values) for name, values in samples.items()},
        "samples": samples,
    }


def print_table(title: str, result: dict[str, Any], baseline: str) -> None:
    unit = result["unit"]
    print(f"\n{title}")
    print(f"  {'':16} {'median':>12} {'best':>12}   median ratio vs {baseline}")
    for name, median in result["median"].items():
        ratio = median / result["median"][baseline]
        print(f"  {name:16} {median:12.4g} {result['best'][name]:12.4g}   {ratio:6.2f}×  ({unit})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and events")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("bench_store.json"))
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 7)
    per_round = 200 if args.quick else 500
    count = 20_000 if args.quick else args.events
    with_es = eventsourcing_available()
    if not with_es:
        print("eventsourcing is not installed: its rows are skipped", file=sys.stderr)

    with tempfile.TemporaryDirectory(
        prefix="casefile-bench-", dir=os.environ.get("BENCH_DIR")
    ) as tmp:
        root = Path(tmp)
        append = bench_append(root, rounds, per_round, with_es)
        load = bench_load(root, rounds, count, with_es)

    ours_rate = append["median"]["casefile"]
    load_time = load["median"]["casefile"]
    checks = {
        "append ≥ 1/3 of raw sqlite3": ours_rate >= append["median"]["raw sqlite3"] / 3,
        "load ≤ 1.5× raw sqlite3": load_time <= 1.5 * load["median"]["raw sqlite3"],
    }
    if with_es:
        checks["append faster than eventsourcing"] = ours_rate > append["median"]["eventsourcing"]
        checks["load faster than eventsourcing"] = load_time < load["median"]["eventsourcing"]

    machine = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
    }
    print(f"machine: {machine}")
    print_table(
        f"(1) durable single-event append, {per_round} per round × {rounds}", append, "raw sqlite3"
    )
    print_table(f"(2) load + decode + fold {count:,} events, {rounds} rounds", load, "raw sqlite3")
    print()
    for name, ok in checks.items():
        print(f"  {'PASS' if ok else 'MISS'}  {name}")
    report = {"machine": machine, "append": append, "load": load, "checks": checks}
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nJSON written to {args.json}")


if __name__ == "__main__":
    main()
