"""The harness of the command benchmarks (``bench_commands.py`` and its ``bench_cmd_*.py``
figures): the synthetic cases and the way figures are measured against a baseline in the
same run (the command line they share, and its table and JSON, are ``commands_run.py``).

The synthetic cases are ``bench_engine.synthetic_case`` streams resealed with their own case
id and a real hash chain; their probe runs point at one real artifact. They are built once into
a SQLite file cached in the temp directory (``--cache-dir``, ``--rebuild``; never in the repo)
and every figure works on a fresh copy of it. Other benchmarks build their cases with
:func:`sealed_case` too.

Each figure is a function of a :class:`Context` returning :class:`Figure` s, whose samples
come from :func:`alternate`: casefile and its baseline, round by round, in an order that flips
every round, so that noise on a shared machine hits both alike.
"""

from __future__ import annotations

import cProfile
import gc
import io
import json
import os
import pstats
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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

#: The one artifact every synthetic probe run points at (import checks that it exists).
ARTIFACT = (
    b"==============NVSMI LOG==============\n\n"
    b"Attached GPUs                             : 4\n"
    b"GPU 00000000:01:00.0\n    Utilization\n        Gpu                       : 97 %\n"
)

CACHE_NAME = "casefile-bench-commands"

#: The figures that need no cases (nothing is built for a run of these alone).
CASELESS = frozenset({"help"})

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
