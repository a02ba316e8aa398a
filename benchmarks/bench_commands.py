"""Benchmark what a responder waits for: the CLI's commands and the service's reads on big cases.

Every figure is a ratio to a baseline measured in the same run, alternating round by round
with casefile, so that noise on a shared machine hits both alike (median of ``--rounds``):

note     ``casefile note CASE TEXT`` (the installed CLI, a subprocess) on a 100,000-event case
         vs on a 10-event case in the same database. Target ≤ 1.3×: case size must not matter.
status   ``casefile status CASE`` on a 50,000-event case with a warm snapshot vs ``status`` of
         the 68-event reference case (``casefile/reference/glm5-pcie-pivot``, imported with
         ``casefile import``) in the same database. Target ≤ 1.3×. Also: the lines status
         prints on the big case (target < 200).
cold     In process, snapshots dropped first:
         ``CaseService(SqlEventStore(url)).reader.status(case)``
         on a fresh service vs a raw ``sqlite3`` fetch of the same rows + ``json.loads`` of each
         payload into a list of tuples (fresh connection). Target ≤ 2×. The raw read runs with
         the cyclic GC paused, as ``store.load`` and ``project`` pause it around their own
         loops, and ends with the young-generation pass that pausing defers (``gc.collect(0)``,
         see ``fold``), which casefile's status pays inside; the same read with the GC on is
         shown beside it (on 100,000 rows it costs as much as casefile's load + fold).
refresh  In process: ``CaseSession.refresh()`` of a session held open on a 100,000-event case
         after another store object appended one note vs the session store's own
         ``load(case, after=seq - 1)`` of that event, each timed as the first read after the
         commit (the other reads second; roles alternate). Target ≤ 2×.
fold     In process: ``project(store.load(case))`` of 100,000 events in the reference-case mix
         (``bench_engine.synthetic_case``: 28 % evidence, 50 hypotheses in 3 questions) vs the
         raw read of ``cold`` on the same rows. Target ≤ 2×. Both timings end with
         ``gc.collect(0)``: a paused GC leaves one young-generation pass over everything built
         to the next allocation, which the caller pays (shown without it beside). And the
         peak traced memory (tracemalloc) of load + fold vs that of the raw decoded rows.
         Target ≤ 1.5×.
help     ``casefile --help`` vs ``python -c pass`` with the same interpreter. Target ≤ 6×.
replay   ``casefile replay CASE --json > /dev/null`` on a 10,000-event case vs a cold
         ``casefile status CASE`` (snapshots dropped) of it. Target ≤ 1.5×.

The synthetic cases are ``bench_engine.synthetic_case`` streams resealed with their own case
id and a real hash chain; their probe runs point at one real artifact. They are built once into
a SQLite file cached in the temp directory (``--cache-dir``, ``--rebuild``; never in the repo)
and every figure works on a fresh copy of it.

Run: ``.venv/bin/python benchmarks/bench_commands.py [--quick] [--rounds 5] [--only note,help]``
(``--profile FIGURE`` prints the top cProfile entries of casefile's side of that figure).
Prints a table, then one JSON line (also written to ``--json``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.siblings import sibling

ROOT = Path(__file__).resolve().parents[1]

CASEFILE = ROOT / ".venv" / "bin" / "casefile"
REFERENCE_DIR = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"
REFERENCE_ID = "glm5-pcie-pivot"

#: Bump when the way cases are built changes: cached databases of another build are not used.
BUILD = 1

FIGURES = ("note", "status", "cold", "refresh", "fold", "help", "replay")

#: The one artifact every synthetic probe run points at (import checks that it exists).
ARTIFACT = (
    b"==============NVSMI LOG==============\n\n"
    b"Attached GPUs                             : 4\n"
    b"GPU 00000000:01:00.0\n    Utilization\n        Gpu                       : 97 %\n"
)

CACHE_NAME = "casefile-bench-commands"

#: The raw baseline of ``cold`` and ``fold``: GC paused during the read, as casefile pauses it.
RAW_PAUSED = "raw sqlite3"
RAW_GC_ON = "raw sqlite3, GC on"

RAW_SQL = (
    "SELECT seq, type, version, recorded_at, occurred_at, actor, payload, prev_hash, hash "
    "FROM events WHERE case_id = ? ORDER BY seq"
)


@dataclass(frozen=True)
class Sizes:
    big: int  # note, refresh, fold
    mid: int  # status (warm, cold)
    small: int  # replay
    tiny: int = 10  # note's small case

    @property
    def ids(self) -> dict[str, str]:
        return {
            "big": f"synthetic-{self.big}",
            "mid": f"synthetic-{self.mid}",
            "small": f"synthetic-{self.small}",
            "tiny": f"synthetic-{self.tiny}",
        }


FULL = Sizes(big=100_000, mid=50_000, small=10_000)
QUICK = Sizes(big=20_000, mid=10_000, small=2_000)


# -- building the cases ---------------------------------------------------------------------


def bench_engine() -> ModuleType:
    """``benchmarks/bench_engine.py``, for its case-building helpers."""
    return sibling("bench_engine")


def sealed_case(case_id: str, total: int, digest: str, *, keep: int | None = None) -> list[Any]:
    """``synthetic_case(total)`` (first ``keep`` events), resealed as ``case_id`` on a real
    chain, its probe runs pointing at the artifact ``digest``."""
    from casefile.domain.events import GENESIS_HASH, NewEvent, seal

    stream = bench_engine().synthetic_case(total)
    if keep is not None:
        stream = stream[:keep]
    out = []
    prev = GENESIS_HASH
    for n, event in enumerate(stream, start=1):
        payload = event.payload
        if "stdout_artifact" in payload:
            payload = {**payload, "stdout_artifact": digest}
        stamp = f"2026-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000000Z"
        new = NewEvent(event.type, payload, "bench", None, event.version)
        sealed = seal(case_id, n, prev, new, stamp)
        out.append(sealed)
        prev = sealed.hash
    return out


def cli(
    *args: str, db: Path | None = None, capture: bool = False, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed CLI; raises with its stderr if it fails."""
    argv = [str(CASEFILE), *args]
    if db is not None:
        argv[2:2] = ["--db", url_of(db)]  # after the subcommand, as its help shows
    done = subprocess.run(
        argv,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-2000:]}"
        )
    return done


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


def checkpoint(path: Path) -> None:
    """Fold the WAL into the main file, so that a plain file copy is the whole database."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def build_database(path: Path, sizes: Sizes) -> dict[str, float]:
    """Every case of every figure in one SQLite file; returns the build times."""
    from casefile.domain.events import sha256_hex
    from casefile.store.sql import SqlEventStore

    times: dict[str, float] = {}
    digest = sha256_hex(ARTIFACT)
    store = SqlEventStore(url_of(path))
    try:
        for role, total in (("big", sizes.big), ("mid", sizes.mid), ("small", sizes.small)):
            start = time.perf_counter()
            events = sealed_case(sizes.ids[role], total, digest)
            store.import_case(events, {digest: ARTIFACT})
            del events
            times[role] = time.perf_counter() - start
        store.import_case(
            sealed_case(sizes.ids["tiny"], 100, digest, keep=sizes.tiny), {digest: ARTIFACT}
        )
    finally:
        store.close()
    start = time.perf_counter()
    cli("import", str(REFERENCE_DIR), db=path, cwd=path.parent)
    times["reference import"] = time.perf_counter() - start
    checkpoint(path)
    return times


def cached_database(cache: Path, sizes: Sizes, rebuild: bool) -> Path:
    """The pristine database for ``sizes``, built once into ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"cases-b{BUILD}-{sizes.big}-{sizes.mid}-{sizes.small}-{sizes.tiny}.db"
    if path.exists() and not rebuild:
        return path
    for stale in cache.glob(path.name + "*"):
        stale.unlink()
    building = cache / f"building-{os.getpid()}.db"
    for leftover in cache.glob(building.name + "*"):
        leftover.unlink()
    print(f"building {path} …", file=sys.stderr, flush=True)
    times = build_database(building, sizes)
    for suffix in ("-wal", "-shm"):
        Path(str(building) + suffix).unlink(missing_ok=True)
    building.rename(path)
    print(
        "  built in " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()),
        file=sys.stderr,
        flush=True,
    )
    return path


def work_copy(pristine: Path, work: Path, name: str) -> Path:
    """A fresh copy of the pristine database for one figure (figures never share writes)."""
    target = work / f"{name}.db"
    for old in work.glob(target.name + "*"):
        old.unlink()
    shutil.copyfile(pristine, target)
    return target


# -- measuring ------------------------------------------------------------------------------


def clock(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def timed_cli(*args: str, db: Path, cwd: Path, reps: int) -> float:
    """Mean wall time of ``reps`` runs of one CLI command."""
    total = 0.0
    for _ in range(reps):
        total += clock(lambda: cli(*args, db=db, cwd=cwd))
    return total / reps


def alternate(
    rounds: int, contenders: dict[str, Callable[[], float]], *, collect: bool = True
) -> dict[str, list[float]]:
    """Each round runs every contender once, in an order that flips every round."""
    names = list(contenders)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            if collect:
                gc.collect()
            samples[name].append(contenders[name]())
    return samples


@dataclass
class Figure:
    key: str
    title: str
    ours: str
    baseline: str
    target: float
    unit: str = "s"
    samples: dict[str, list[float]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    #: a figure that is one number (a count), not a ratio of two contenders
    value: float | None = None

    def median(self, name: str) -> float:
        return statistics.median(self.samples[name])

    def best(self, name: str) -> float:
        return min(self.samples[name])

    @property
    def ratio(self) -> float:
        if self.value is not None:
            return self.value
        return self.median(self.ours) / self.median(self.baseline)

    @property
    def best_ratio(self) -> float:
        if self.value is not None:
            return self.value
        return self.best(self.ours) / self.best(self.baseline)

    @property
    def met(self) -> bool:
        if self.value is not None:
            return self.value < self.target
        return self.ratio <= self.target

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "title": self.title,
            "target": self.target,
            "met": self.met,
            "extra": self.extra,
        }
        if self.value is not None:
            out["value"] = self.value
        else:
            out.update(
                unit=self.unit,
                ours=self.ours,
                baseline=self.baseline,
                ratio_median=self.ratio,
                ratio_best=self.best_ratio,
                median={name: self.median(name) for name in self.samples},
                best={name: self.best(name) for name in self.samples},
                samples=self.samples,
            )
        return out


@dataclass
class Context:
    pristine: Path
    work: Path
    sizes: Sizes
    rounds: int
    reps: int  # subprocess runs per round and contender (their mean is the round's figure)
    profile: set[str]

    @property
    def ids(self) -> dict[str, str]:
        return self.sizes.ids


def drop_snapshots(db: Path, case_id: str) -> None:
    from casefile.store.sql import SqlEventStore

    with SqlEventStore(url_of(db)) as store:
        store.drop_snapshots(case_id)


def snapshot_count(db: Path, case_id: str) -> int:
    conn = sqlite3.connect(db)
    try:
        query = "SELECT count(*) FROM snapshots WHERE case_id = ?"
        return int(conn.execute(query, (case_id,)).fetchone()[0])
    finally:
        conn.close()


def raw_read(conn: sqlite3.Connection, case_id: str) -> list[tuple[Any, ...]]:
    """What any script would do: fetch the rows, decode each payload, keep tuples."""
    loads = json.loads
    rows = conn.execute(RAW_SQL, (case_id,)).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4], r[5], loads(r[6]), r[7], r[8]) for r in rows]


def gc_paused(fn: Callable[[], float]) -> Callable[[], float]:
    """``fn`` with the cyclic GC paused while it runs, as ``store.load`` and ``project`` pause it
    around their own loops: the baseline then pays for garbage collection no more than casefile
    does (the GC-on variant is reported beside it)."""

    def run() -> float:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return fn()
        finally:
            if collecting:
                gc.enable()

    return run


def print_profile(title: str, profiler: cProfile.Profile | str, top: int = 15) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats("cumulative").print_stats(top)
    text = out.getvalue()
    print(f"\n--- cProfile, {title}: top {top} cumulative ---\n{text}", flush=True)
    return text


def profile_cli(ctx: Context, title: str, *args: str, db: Path) -> str:
    """cProfile of one CLI run, in its own interpreter (imports included)."""
    out = ctx.work / "cli.prof"
    python = interpreter()
    argv = [python, "-m", "cProfile", "-o", str(out), str(CASEFILE), args[0], "--db", url_of(db)]
    subprocess.run([*argv, *args[1:]], stdout=subprocess.DEVNULL, check=True, cwd=ctx.work)
    return print_profile(title, str(out))


def interpreter() -> str:
    """The interpreter the installed ``casefile`` script runs on (its shebang)."""
    first = CASEFILE.read_text().splitlines()[0]
    return first[2:].strip() if first.startswith("#!") else sys.executable


# -- the figures ----------------------------------------------------------------------------


def fig_note(ctx: Context) -> list[Figure]:
    db = work_copy(ctx.pristine, ctx.work, "note")
    big, tiny = ctx.ids["big"], ctx.ids["tiny"]
    counter = iter(range(10**9))

    def note(case_id: str) -> Callable[[], float]:
        return lambda: timed_cli(
            "note", case_id, f"bench note {next(counter)}", db=db, cwd=ctx.work, reps=ctx.reps
        )

    fig = Figure(
        "note",
        f"`casefile note` on a {ctx.sizes.big:,}-event case vs a {ctx.sizes.tiny}-event case",
        f"{ctx.sizes.big:,} events",
        f"{ctx.sizes.tiny} events",
        1.3,
    )
    for case_id in (big, tiny):
        note(case_id)()  # warm up: page cache, bytecode
    fig.samples = alternate(ctx.rounds, {fig.ours: note(big), fig.baseline: note(tiny)})
    if "note" in ctx.profile:
        fig.extra["profile"] = profile_cli(ctx, "casefile note (big case)", "note", big, "x", db=db)
    return [fig]


def fig_status(ctx: Context) -> list[Figure]:
    db = work_copy(ctx.pristine, ctx.work, "status")
    mid = ctx.ids["mid"]
    first = clock(lambda: cli("status", mid, db=db, cwd=ctx.work))  # writes the snapshot
    snapshots = snapshot_count(db, mid)
    if snapshots < 1:
        raise RuntimeError(f"no snapshot of {mid} after a first status")

    def status(case_id: str) -> Callable[[], float]:
        return lambda: timed_cli("status", case_id, db=db, cwd=ctx.work, reps=ctx.reps)

    status(REFERENCE_ID)()  # warm up
    fig = Figure(
        "status",
        f"`casefile status`, {ctx.sizes.mid:,}-event case with a warm snapshot vs the "
        "68-event reference case",
        f"{ctx.sizes.mid:,} events, warm",
        "reference (68)",
        1.3,
    )
    fig.samples = alternate(ctx.rounds, {fig.ours: status(mid), fig.baseline: status(REFERENCE_ID)})
    fig.extra["first_status_s"] = first  # cold fold + snapshot write
    printed = cli("status", mid, db=db, cwd=ctx.work, capture=True).stdout
    reference = cli("status", REFERENCE_ID, db=db, cwd=ctx.work, capture=True).stdout
    lines = Figure(
        "status-lines",
        f"lines `casefile status` prints on the {ctx.sizes.mid:,}-event case",
        "lines",
        "",
        200,
        value=float(len(printed.splitlines())),
    )
    lines.extra = {
        "reference_lines": len(reference.splitlines()),
        "chars": len(printed),
        "head": printed.splitlines()[:12],
    }
    if "status" in ctx.profile:
        fig.extra["profile"] = profile_cli(ctx, "casefile status (warm)", "status", mid, db=db)
        from casefile.app.opening import registry
        from casefile.app.service import CaseService
        from casefile.store.sql import SqlEventStore

        plugins = registry()
        service = CaseService(SqlEventStore(url_of(db)), plugins)
        service.reader.status(REFERENCE_ID)  # imports and plugin loading out of the way
        service.close()
        profiler = cProfile.Profile()
        profiler.enable()
        service = CaseService(SqlEventStore(url_of(db)), plugins)
        service.reader.status(mid)
        profiler.disable()
        service.close()
        fig.extra["profile_in_process"] = print_profile(
            "warm CaseService.status in process (imports done)", profiler
        )
    return [fig, lines]


def fig_cold(ctx: Context) -> list[Figure]:
    from casefile.app.service import CaseService
    from casefile.store.sql import SqlEventStore

    db = work_copy(ctx.pristine, ctx.work, "cold")
    mid = ctx.ids["mid"]
    url = url_of(db)
    view_json: dict[str, Any] = {}

    def ours() -> float:
        drop_snapshots(db, mid)  # not timed
        gc.collect()
        start = time.perf_counter()
        service = CaseService(SqlEventStore(url))
        view = service.reader.status(mid)
        elapsed = time.perf_counter() - start
        if not view_json:
            view_json.update(view.to_json())
        service.close()
        return elapsed

    def raw() -> float:
        start = time.perf_counter()
        conn = sqlite3.connect(db)
        rows = raw_read(conn, mid)
        gc.collect(0)  # the pass a paused GC defers (casefile's status pays its own inside)
        elapsed = time.perf_counter() - start
        conn.close()
        assert len(rows) == ctx.sizes.mid, len(rows)
        return elapsed

    ours()
    raw()  # warm up
    fig = Figure(
        "cold",
        f"cold status in process (snapshots dropped), {ctx.sizes.mid:,} events, vs raw "
        "sqlite3 + json.loads of the same rows",
        "casefile",
        RAW_PAUSED,
        2.0,
    )
    fig.samples = alternate(
        ctx.rounds, {fig.ours: ours, fig.baseline: gc_paused(raw), RAW_GC_ON: raw}
    )
    fig.extra["view_keys"] = sorted(view_json)[:20]
    fig.extra["ratio_to_raw_gc_on"] = fig.median(fig.ours) / fig.median(RAW_GC_ON)
    if "cold" in ctx.profile:
        drop_snapshots(db, mid)
        profiler = cProfile.Profile()
        profiler.enable()
        CaseService(SqlEventStore(url)).reader.status(mid)
        profiler.disable()
        fig.extra["profile"] = print_profile("cold CaseService.status", profiler)
    return [fig]


def fig_refresh(ctx: Context) -> list[Figure]:
    """After each append by another store object, one side reads first (SQLite's reader then
    notices the commit and drops its page cache) and the other second; the roles alternate.
    The figure compares first reads (what a session refreshing on someone else's write
    pays); second reads are shown beside."""
    from casefile.app.session import CaseSession
    from casefile.domain.events import NewEvent
    from casefile.store.sql import SqlEventStore

    db = work_copy(ctx.pristine, ctx.work, "refresh")
    big = ctx.ids["big"]
    reader = SqlEventStore(url_of(db))
    writer = SqlEventStore(url_of(db))
    session = CaseSession(reader, big)
    start = time.perf_counter()
    session.refresh()  # the first fold, not measured
    first = time.perf_counter() - start
    assert session.projection.last_seq == ctx.sizes.big
    per_round = 20
    names = ("refresh", "store.load", "refresh, second read", "store.load, second read")

    def append() -> int:
        seq = writer.head(big)[0]
        writer.append(big, seq, [NewEvent("note.added", {"text": f"refresh {seq}"})])
        return seq

    def refresh() -> float:
        t0 = time.perf_counter()
        got = session.refresh()
        elapsed = time.perf_counter() - t0
        assert len(got.events) == 1 and not got.rewritten
        return elapsed

    def load(seq: int) -> float:
        t0 = time.perf_counter()
        got = reader.load(big, after=seq)
        elapsed = time.perf_counter() - t0
        assert len(got) == 1 and got[0].seq == seq + 1
        return elapsed

    def one_round(offset: int) -> dict[str, float]:
        times: dict[str, list[float]] = {name: [] for name in names}
        for k in range(per_round):
            seq = append()
            if (k + offset) % 2:
                times["refresh"].append(refresh())
                times["store.load, second read"].append(load(seq))
            else:
                times["store.load"].append(load(seq))
                times["refresh, second read"].append(refresh())
        return {name: statistics.median(values) for name, values in times.items()}

    one_round(0)  # warm up
    fig = Figure(
        "refresh",
        f"`CaseSession.refresh()` after one new event, {ctx.sizes.big:,}-event case, vs "
        "`store.load(case, after=seq-1)` of it (each the first read after the commit)",
        "refresh",
        "store.load",
        2.0,
    )
    fig.samples = {name: [] for name in names}
    for r in range(ctx.rounds):
        gc.collect()
        for name, value in one_round(r).items():
            fig.samples[name].append(value)
    fig.extra["first_fold_s"] = first
    fig.extra["events_per_round"] = per_round
    fig.extra["ratio_second_reads"] = fig.median(names[2]) / fig.median(names[3])
    if "refresh" in ctx.profile:  # after the timed rounds: the profiler slows what it sees
        profiler = cProfile.Profile()
        for _ in range(100):
            append()
            profiler.enable()
            session.refresh()
            profiler.disable()
        fig.extra["profile"] = print_profile("CaseSession.refresh (100 calls)", profiler)
    reader.close()
    writer.close()
    return [fig]


def fig_fold(ctx: Context) -> list[Figure]:
    from casefile.domain.beliefs import project
    from casefile.store.sql import SqlEventStore

    db = work_copy(ctx.pristine, ctx.work, "fold")
    big = ctx.ids["big"]
    store = SqlEventStore(url_of(db))
    conn = sqlite3.connect(db)
    count = ctx.sizes.big

    def timed(read: Callable[[], Any], settle: bool) -> Callable[[], float]:
        """``read`` timed, with (``settle``) the young-generation collection that pausing the
        GC only defers: the next allocation after ``gc.enable()`` pays for one pass over every
        container built meanwhile, and a caller waits for it like for the read itself."""

        def run() -> float:
            start = time.perf_counter()
            result = read()
            if settle:
                gc.collect(0)
            elapsed = time.perf_counter() - start
            assert len(result) == count if isinstance(result, list) else result.last_seq == count
            del result
            return elapsed

        return run

    def fold() -> Any:
        return project(store.load(big))

    def rows() -> Any:
        return raw_read(conn, big)

    ours, raw = timed(fold, True), timed(rows, True)
    ours()
    raw()  # warm up
    fig = Figure(
        "fold",
        f"load + fold {count:,} events cold (reference-case mix) vs raw sqlite3 + json.loads",
        "casefile",
        RAW_PAUSED,
        2.0,
    )
    unsettled = "casefile, without its deferred GC pass"
    fig.samples = alternate(
        ctx.rounds,
        {
            fig.ours: ours,
            fig.baseline: gc_paused(raw),
            RAW_GC_ON: raw,
            unsettled: timed(fold, False),
        },
    )
    fig.extra["ratio_to_raw_gc_on"] = fig.median(fig.ours) / fig.median(RAW_GC_ON)
    fig.extra["ratio_without_deferred_gc"] = fig.median(unsettled) / fig.median(fig.baseline)

    def peak(fn: Callable[[], Any]) -> tuple[float, float]:
        gc.collect()
        tracemalloc.start()
        result = fn()
        current, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del result
        gc.collect()
        return top / 2**20, current / 2**20

    memory: dict[str, list[float]] = {"load + fold": [], "raw decoded rows": []}
    retained: dict[str, list[float]] = {"load + fold": [], "raw decoded rows": []}
    for r in range(min(ctx.rounds, 3)):  # tracemalloc is slow; peaks hardly vary
        pairs: list[tuple[str, Callable[[], Any]]] = [
            ("load + fold", lambda: project(store.load(big))),
            ("raw decoded rows", lambda: raw_read(conn, big)),
        ]
        for name, fn in pairs if r % 2 == 0 else pairs[::-1]:
            top, current = peak(fn)
            memory[name].append(top)
            retained[name].append(current)
    mem = Figure(
        "fold-memory",
        f"peak traced memory (tracemalloc) of load + fold of {count:,} events vs the raw "
        "decoded rows",
        "load + fold",
        "raw decoded rows",
        1.5,
        unit="MiB",
        samples=memory,
    )
    mem.extra["retained_MiB"] = {k: statistics.median(v) for k, v in retained.items()}
    if "fold" in ctx.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        project(store.load(big))
        profiler.disable()
        fig.extra["profile"] = print_profile("project(store.load(case))", profiler)
    store.close()
    conn.close()
    return [fig, mem]


def fig_help(ctx: Context) -> list[Figure]:
    python = interpreter()
    reps = max(ctx.reps, 5)

    def run(argv: Sequence[str]) -> Callable[[], float]:
        def go() -> float:
            total = 0.0
            for _ in range(reps):
                start = time.perf_counter()
                subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
                total += time.perf_counter() - start
            return total / reps

        return go

    ours = run([str(CASEFILE), "--help"])
    base = run([python, "-c", "pass"])
    ours()
    base()  # warm up
    fig = Figure(
        "help",
        "`casefile --help` vs `python -c pass` (same interpreter)",
        "casefile --help",
        "python -c pass",
        6.0,
    )
    fig.samples = alternate(ctx.rounds, {fig.ours: ours, fig.baseline: base})
    fig.extra["interpreter"] = python
    if "help" in ctx.profile:
        out = ctx.work / "help.prof"
        subprocess.run(
            [python, "-m", "cProfile", "-o", str(out), str(CASEFILE), "--help"],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        fig.extra["profile"] = print_profile("casefile --help", str(out))
        imports = subprocess.run(
            [python, "-X", "importtime", str(CASEFILE), "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        fig.extra["importtime_top"] = top_imports(imports)
    return [fig]


def top_imports(importtime: str, top: int = 15) -> list[str]:
    """The slowest imports (cumulative µs) from ``-X importtime`` output."""
    rows = []
    for line in importtime.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    lines = [f"{us / 1000:8.1f} ms {name}" for us, name in rows[:top]]
    print("\n--- slowest imports of casefile --help (cumulative) ---\n" + "\n".join(lines))
    return lines


def fig_replay(ctx: Context) -> list[Figure]:
    db = work_copy(ctx.pristine, ctx.work, "replay")
    small = ctx.ids["small"]

    def replay() -> float:
        return timed_cli("replay", small, "--json", db=db, cwd=ctx.work, reps=ctx.reps)

    def cold_status() -> float:
        total = 0.0
        for _ in range(ctx.reps):
            drop_snapshots(db, small)  # not timed
            total += clock(lambda: cli("status", small, db=db, cwd=ctx.work))
        return total / ctx.reps

    replay()
    cold_status()  # warm up
    fig = Figure(
        "replay",
        f"`casefile replay --json > /dev/null`, {ctx.sizes.small:,}-event case, vs a cold "
        "`casefile status` of it",
        "replay --json",
        "cold status",
        1.5,
    )
    fig.samples = alternate(ctx.rounds, {fig.ours: replay, fig.baseline: cold_status})
    printed = cli("replay", small, "--json", db=db, cwd=ctx.work, capture=True).stdout
    fig.extra["json_bytes"] = len(printed)
    if "replay" in ctx.profile:
        fig.extra["profile"] = profile_cli(
            ctx, "casefile replay --json", "replay", small, "--json", db=db
        )
    return [fig]


RUNNERS: dict[str, Callable[[Context], list[Figure]]] = {
    "note": fig_note,
    "status": fig_status,
    "cold": fig_cold,
    "refresh": fig_refresh,
    "fold": fig_fold,
    "help": fig_help,
    "replay": fig_replay,
}


# -- readiness, reporting -------------------------------------------------------------------


def preflight(work: Path) -> str | None:
    """Why the CLI cannot yet show the reference case's status, or ``None`` if it can."""
    db = work / "preflight.db"
    for old in work.glob(db.name + "*"):
        old.unlink()
    try:
        cli("import", str(REFERENCE_DIR), db=db, cwd=work)
        cli("status", REFERENCE_ID, db=db, cwd=work, capture=True)
    except (RuntimeError, OSError) as error:
        return str(error)
    return None


@contextmanager
def work_directory(base: str | None) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="casefile-bench-commands-", dir=base) as tmp:
        yield Path(tmp)


def machine() -> dict[str, Any]:
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
        "uptime": uptime.strip(),
    }


def fmt(value: float, unit: str) -> str:
    if unit == "s":
        if value < 0.01:
            return f"{value * 1e6:.0f} µs"
        return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.2f} s"
    return f"{value:.1f} {unit}"


def print_table(figures: list[Figure], errors: dict[str, str]) -> None:
    print()
    print(f"{'figure':14} {'target':>8} {'median':>8} {'best':>8}  verdict   casefile vs baseline")
    for fig in figures:
        if fig.value is not None:
            print(
                f"{fig.key:14} {'< ' + format(fig.target, 'g'):>8} {fig.value:8.0f} {'':8}  "
                f"{'met' if fig.met else 'MISSED':9} {fig.title}"
            )
            continue
        print(
            f"{fig.key:14} {'≤ ' + format(fig.target, 'g') + '×':>8} {fig.ratio:7.2f}× "
            f"{fig.best_ratio:7.2f}×  {'met' if fig.met else 'MISSED':9} "
            f"{fmt(fig.median(fig.ours), fig.unit)} vs {fmt(fig.median(fig.baseline), fig.unit)}"
            f" (best {fmt(fig.best(fig.ours), fig.unit)} vs "
            f"{fmt(fig.best(fig.baseline), fig.unit)})"
        )
        for name in fig.samples:
            if name not in (fig.ours, fig.baseline):
                print(f"{'':14} {'':8} also: {name} median {fmt(fig.median(name), fig.unit)}")
    for key, message in errors.items():
        print(f"{key:14} ERROR: {message.splitlines()[-1][:200]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller cases, 3 rounds")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 5; quick 3)")
    parser.add_argument(
        "--reps", type=int, default=3, help="CLI runs per round and contender (their mean)"
    )
    parser.add_argument("--only", default=",".join(FIGURES), help=f"of {','.join(FIGURES)}")
    parser.add_argument("--profile", default="", help="figures to cProfile (comma-separated)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("BENCH_DIR") or tempfile.gettempdir()) / CACHE_NAME,
        help="where the built databases are kept between runs (never the repo)",
    )
    parser.add_argument("--rebuild", action="store_true", help="build the cases again")
    parser.add_argument(
        "--wait-minutes",
        type=float,
        default=0.0,
        help="retry the CLI preflight every 2 minutes for this long before giving up",
    )
    parser.add_argument(
        "--json", type=Path, default=Path(__file__).with_name("bench_commands.json")
    )
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    sizes = QUICK if args.quick else FULL
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(FIGURES))
    if unknown:
        parser.error(f"unknown figures {unknown}; choose from {','.join(FIGURES)}")
    profile = {name.strip() for name in args.profile.split(",") if name.strip()}

    figures: list[Figure] = []
    errors: dict[str, str] = {}
    with work_directory(os.environ.get("BENCH_DIR")) as work:
        deadline = time.monotonic() + args.wait_minutes * 60
        while (problem := preflight(work)) is not None:
            if time.monotonic() >= deadline:
                print(f"preflight: `casefile status` of the reference case fails: {problem}")
                break
            print(f"preflight failed, retrying in 120 s: {problem[-300:]}", file=sys.stderr)
            time.sleep(120)
        needs_cases = [name for name in wanted if name != "help"]
        pristine: Path | None = None
        if needs_cases:
            try:
                pristine = cached_database(args.cache_dir, sizes, args.rebuild)
            except Exception:  # reported; "help" still runs
                for name in needs_cases:
                    errors[name] = "building the cases: " + traceback.format_exc()
        ctx = Context(pristine or work, work, sizes, rounds, args.reps, profile)
        for name in wanted:
            if name in errors:
                continue
            print(f"[{datetime.now():%H:%M:%S}] {name} …", file=sys.stderr, flush=True)
            try:
                figures.extend(RUNNERS[name](ctx))
            except Exception:  # one broken figure must not stop the rest
                errors[name] = traceback.format_exc()
                print(errors[name], file=sys.stderr)

    info = machine()
    print(f"machine: {info}")
    print(f"sizes: {sizes}, rounds: {rounds}, CLI runs per round: {args.reps}")
    print_table(figures, errors)
    report = {
        "machine": info,
        "sizes": sizes.__dict__,
        "rounds": rounds,
        "reps": args.reps,
        "figures": [fig.to_json() for fig in figures],
        "errors": {key: message.splitlines()[-1] for key, message in errors.items()},
    }
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(
        json.dumps(
            {f.key: {"ratio": round(f.ratio, 3), "met": f.met} for f in figures}
            | {k: "error" for k in errors}
        )
    )
    print(f"JSON written to {args.json}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
