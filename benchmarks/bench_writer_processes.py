"""Sixteen writer processes on one case: holding the case for each read–decide–append, vs not.

Each round, sixteen spawned processes start together (a barrier) and each writes through
``CaseService`` what a responder writes: a note, evidence decided on the fold (some superseding)
and a child hypothesis (``tests.app.processes.crowd``), to one fresh case, on a case directory
and on a SQLite file. Two variants alternate round by round: the store as it is (each write
holds the case: the directory's flock, SQLite's writers' lock file) and the same store with the
hold switched off in the workers (optimistic retries only: how it was). Reported per store and
variant, medians of ``--rounds``: wall time from the first start to the last exit, and writers
that failed (ran out of retries); and the ratio of the wall times.

Run: ``.venv/bin/python benchmarks/bench_writer_processes.py [--rounds 3] [--writers 16]``
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from casefile.app.service import CaseService
from casefile.store.casedir import export_case
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from tests.app.processes import crowd
from tests.app.test_session import seed

ROUNDS_EACH = 2
_cases = itertools.count(1)


def _worker(kind: str, where: str, case_id: str, worker: int, hold: bool, start: Any) -> int:
    """One writer; returns through its exit code whether it failed."""
    if not hold:
        for store_type in (DirectoryEventStore, SqlEventStore):
            store_type.writing = lambda _self, _case: contextlib.nullcontext()  # type: ignore[method-assign,assignment,misc]
    start.wait(300)
    crowd(kind, where, case_id, worker, ROUNDS_EACH)
    return 0


def _run(kind: str, where: str, case_id: str, writers: int, hold: bool) -> tuple[float, int]:
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(writers)
    procs = [
        spawn.Process(target=_worker, args=(kind, where, case_id, w, hold, start))
        for w in range(writers)
    ]
    for proc in procs:
        proc.start()
    began = time.monotonic()
    for proc in procs:
        proc.join(600)
    took = time.monotonic() - began
    return took, sum(1 for proc in procs if proc.exitcode != 0)


def _fresh(kind: str, folder: Path) -> tuple[str, str]:
    case_id = f"crowd-{next(_cases)}"
    if kind == "directory":
        memory = MemoryEventStore()
        seed(CaseService(memory), case_id)
        target = folder / case_id
        export_case(memory.load(case_id), {}, target)
        return str(target), case_id
    url = f"sqlite:///{folder / (case_id + '.db')}"
    with SqlEventStore(url) as store:
        seed(CaseService(store), case_id)
    return url, case_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writers", type=int, default=16)
    args = parser.parse_args()
    results: dict[tuple[str, bool], list[tuple[float, int]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for _round in range(args.rounds):
            for kind in ("directory", "sqlite"):
                for hold in (True, False):
                    where, case_id = _fresh(kind, Path(folder))
                    results.setdefault((kind, hold), []).append(
                        _run(kind, where, case_id, args.writers, hold)
                    )
    print(f"{args.writers} writer processes, {args.rounds} rounds, medians")
    for kind in ("directory", "sqlite"):
        held = results[(kind, True)]
        loose = results[(kind, False)]
        held_s = statistics.median(t for t, _ in held)
        loose_s = statistics.median(t for t, _ in loose)
        print(
            f"{kind:9}  hold: {held_s:5.1f} s, failed {[f for _, f in held]}   "
            f"no hold: {loose_s:5.1f} s, failed {[f for _, f in loose]}   "
            f"wall time hold/no hold {held_s / loose_s:.2f}x"
        )


if __name__ == "__main__":
    main()
