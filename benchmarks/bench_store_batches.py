"""Batched writes at the store's limit: PostgreSQL appends and imports, SQLite durable appends.

PostgreSQL (a throwaway server from ``tests/store/pg.py``, fsync off as in the tests): ``N``
events (``note.added``, ~300-byte payloads) appended in calls of 1,000 through
``SqlEventStore.append`` (validation, sealing and canonical JSON included), against psycopg's
``executemany`` of the same rows (one transaction per 1,000) and against the same append with
COPY switched off (the multi-row INSERT it replaced); and ``import_case`` of an ``N``-event case
against a bare ``COPY`` of its rows. Each contender writes its own case ids; rounds alternate.

SQLite: one event per transaction, WAL with ``synchronous=NORMAL``, through
``SqlEventStore.append`` against raw ``sqlite3`` inserting the same rows (sealed beforehand)
into a database of the same schema, same process.

Run: ``.venv/bin/python benchmarks/bench_store_batches.py [--events N] [--rounds R]
[--only pg|sqlite]``.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.domain.events import GENESIS_HASH, NewEvent, seal
from casefile.store import sql as sql_module
from casefile.store.sql import SqlEventStore
from casefile.store.sql_tables import COLUMNS, row_values

BATCH = 1_000
INSERT = f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"


def notes(count: int, start: int = 0) -> list[NewEvent]:
    return [NewEvent("note.added", {"text": f"note {n} " + "y" * 300}) for n in range(start, count)]


def sealed(case_id: str, count: int) -> list[Any]:
    out = []
    prev = GENESIS_HASH
    news = [NewEvent("case.opened", {"title": "bench"}), *notes(count - 1)]
    for seq, new in enumerate(news, start=1):
        event = seal(case_id, seq, prev, new, "2026-01-01T00:00:00.000000Z")
        out.append(event)
        prev = event.hash
    return out


def rate(count: int, fn: Callable[[], None]) -> float:
    start = time.perf_counter()
    fn()
    return count / (time.perf_counter() - start)


def bench_pg(events: int, rounds: int) -> None:
    import psycopg

    from tests.store.pg import start_postgres

    server = start_postgres()
    store = SqlEventStore(server.url)
    conninfo = server.url.replace("postgresql+psycopg://", "postgresql://")
    conn = psycopg.connect(conninfo)
    rows = [row_values(e) for e in sealed("template", events)]
    samples: dict[str, list[float]] = {}
    run = 0

    def ours(copy: bool) -> Callable[[], float]:
        def go() -> float:
            case = f"ours-{copy}-{run}"
            store.append(case, 0, [NewEvent("case.opened", {"title": "bench"})])
            batches = [notes(min(s + BATCH, events - 1), s) for s in range(0, events - 1, BATCH)]
            saved = sql_module.COPY_FROM_ROWS
            sql_module.COPY_FROM_ROWS = saved if copy else 10**9  # type: ignore[misc]

            def write() -> None:
                seq = 1
                for batch in batches:
                    store.append(case, seq, batch)
                    seq += len(batch)

            try:
                return rate(events - 1, write)
            finally:
                sql_module.COPY_FROM_ROWS = saved  # type: ignore[misc]

        return go

    def executemany() -> float:
        case = f"many-{run}"
        mine = [(case, *row[1:]) for row in rows]

        def write() -> None:
            with conn.cursor() as cursor:
                for start in range(1, events, BATCH):
                    with conn.transaction():
                        cursor.executemany(INSERT, mine[start : start + BATCH])

        with conn.transaction(), conn.cursor() as cursor:
            cursor.execute(INSERT, mine[0])
        return rate(events - 1, write)

    def imported() -> float:
        events_ = sealed(f"import-{run}", events)
        return rate(events, lambda: store.import_case(events_, {}))

    def copied() -> float:
        case = f"copy-{run}"
        mine = [(case, *row[1:]) for row in rows]

        def write() -> None:
            with conn.transaction(), conn.cursor() as cursor:
                sql_module.copy_rows(cursor, mine)

        return rate(events, write)

    contenders = {
        "append (COPY)": ours(True),
        "append (INSERT, before)": ours(False),
        "psycopg executemany": executemany,
        "import_case": imported,
        "COPY of the rows": copied,
    }
    try:
        for r in range(rounds):
            run = r
            names = list(contenders) if r % 2 == 0 else list(contenders)[::-1]
            for name in names:
                samples.setdefault(name, []).append(contenders[name]())
                print(f"round {r + 1}: {name}: {samples[name][-1]:.0f} ev/s", file=sys.stderr)
    finally:
        conn.close()
        store.close()
        server.stop()
    med = {k: statistics.median(v) for k, v in samples.items()}
    print(f"PostgreSQL, {events:,} events in calls of {BATCH:,}, {rounds} rounds, medians (ev/s)")
    for name, value in med.items():
        print(f"  {name}: {value:,.0f}")
    print(f"  append / executemany: {med['append (COPY)'] / med['psycopg executemany']:.2f}x")
    before = med["append (INSERT, before)"] / med["psycopg executemany"]
    print(f"  append before / executemany: {before:.2f}x")
    print(f"  import time / COPY time: {med['COPY of the rows'] / med['import_case']:.2f}x")


def bench_sqlite(events: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-batches-") as tmp:
        ours_db = Path(tmp) / "ours.db"
        store = SqlEventStore(f"sqlite:///{ours_db}?synchronous=NORMAL")
        # the same schema (table, keys, indexes) as the store's, written by bare sqlite3
        raw_path = Path(tmp) / "raw.db"
        SqlEventStore(f"sqlite:///{raw_path}").close()
        raw_db = sqlite3.connect(raw_path, isolation_level=None)
        raw_db.execute("PRAGMA journal_mode=WAL")
        raw_db.execute("PRAGMA synchronous=NORMAL")
        placeholders = ", ".join(["?"] * len(COLUMNS))
        raw_insert = f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES ({placeholders})"
        synchronous = store._cursor("pragma", write=False)
        with synchronous as cursor:
            cursor.execute("PRAGMA synchronous")
            level = cursor.fetchone()[0]
        samples: dict[str, list[float]] = {"append": [], "raw sqlite3": []}
        for r in range(rounds):
            case = f"s-{r}"
            news = notes(events)
            store.append(case, 0, [NewEvent("case.opened", {"title": "bench"})])

            def ours(case: str = case, news: list[NewEvent] = news) -> None:
                for seq, new in enumerate(news, start=1):
                    store.append(case, seq, [new])

            rows = [row_values(e) for e in sealed(case, events + 1)][1:]

            def raw(rows: list[Any] = rows) -> None:
                for row in rows:
                    raw_db.execute("BEGIN IMMEDIATE")
                    raw_db.execute(raw_insert, row)
                    raw_db.execute("COMMIT")

            order = [("append", ours), ("raw sqlite3", raw)]
            for name, fn in order if r % 2 == 0 else order[::-1]:
                samples[name].append(rate(events, fn))
        store.close()
        raw_db.close()
    med = {k: statistics.median(v) for k, v in samples.items()}
    print(f"SQLite (synchronous={level}), {events:,} single-event appends, {rounds} rounds")
    for name, value in med.items():
        print(f"  {name}: {value:,.0f} ev/s")
    print(f"  append / raw: {med['append'] / med['raw sqlite3']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["pg", "sqlite"])
    args = parser.parse_args()
    if args.only != "sqlite":
        bench_pg(args.events, args.rounds)
    if args.only != "pg":
        bench_sqlite(min(args.events, 5_000), args.rounds)


if __name__ == "__main__":
    main()
