"""Sixteen writers in one process on one PostgreSQL case: what backing off costs, and saves.

Each round, 16 threads append 200 notes each through ``CaseService.note`` (which retries a
lost race eight times), every thread on a store of its own, to a fresh case on a PostgreSQL
server started for the run (``tests/store/pg.py``). Two variants alternate round by round in the
same process: the store as it is (a lost race pauses with jitter before it is reported, and
winners make way while the case is contended) and the same store with those pauses switched off
in place (how it was). Reported per variant (median of ``--rounds``): wall time, writes that
gave up, and wall time per write that got through; and the ratio of the last.

Run: ``.venv/bin/python benchmarks/bench_write_contention.py [--rounds 3]`` (needs initdb/pg_ctl)
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.app.service import CaseService
from casefile.errors import ConcurrencyError
from casefile.store import sql_connections
from casefile.store.sql import SqlEventStore
from tests.store.pg import start_postgres

WRITERS = 16
APPENDS_EACH = 200
_cases = itertools.count(1)


def race(url: str) -> tuple[float, int]:
    """One round: wall seconds, and how many writes gave up."""
    case_id = f"race-{next(_cases)}"
    with SqlEventStore(url) as store:
        CaseService(store).writer.new_case("contention", case_id=case_id)
    services = [CaseService(SqlEventStore(url)) for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS + 1)
    gave_up = [0] * WRITERS

    def write(worker: int) -> None:
        start.wait()
        for n in range(APPENDS_EACH):
            try:
                services[worker].note(case_id, f"w{worker} #{n}")
            except ConcurrencyError:
                gave_up[worker] += 1

    threads = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    for service in services:
        service.close()
    return elapsed, sum(gave_up)


def without_backoff(url: str) -> tuple[float, int]:
    connections = sql_connections.SqlConnections
    saved = (connections._lost_race, connections._won_race)
    connections._lost_race = lambda self, case_id: None  # type: ignore[method-assign]
    connections._won_race = lambda self, case_id: None  # type: ignore[method-assign]
    try:
        return race(url)
    finally:
        connections._lost_race, connections._won_race = saved  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    server = start_postgres()
    try:
        now: list[tuple[float, int]] = []
        before: list[tuple[float, int]] = []
        for _ in range(args.rounds):
            now.append(race(server.url))
            before.append(without_backoff(server.url))
    finally:
        server.stop()
    total = WRITERS * APPENDS_EACH

    def summary(name: str, runs: list[tuple[float, int]]) -> float:
        wall = statistics.median(r[0] for r in runs)
        lost = statistics.median(r[1] for r in runs)
        per_write = statistics.median(r[0] / max(1, total - r[1]) for r in runs)
        print(
            f"{name:<16} wall {wall:6.2f} s   gave up {lost:6.0f} of {total} "
            f"(all rounds: {[r[1] for r in runs]})   {per_write * 1000:6.2f} ms per write"
        )
        return per_write

    ours = summary("with backoff", now)
    theirs = summary("without backoff", before)
    print(f"time per written event, with / without backoff: {ours / theirs:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
