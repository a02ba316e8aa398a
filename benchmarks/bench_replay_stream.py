"""``replay --jsonl`` and the streamed ``replay --json`` on a long case, against cold ``status``.

Each contender is a fresh CLI process on one SQLite file (a 100,000-event case from
``commands_harness.sealed_case``, the synthetic reference-case mix), its snapshots dropped before
every run (so each folds the whole case, as a cold ``status`` does); "fold saved" runs after an
untimed ``status`` has saved the case's fold, as any command leaves it. Wall time and peak RSS
(``/usr/bin/time``) per run, rounds alternating, medians reported. The ``replay --json`` the CLI
printed before (the whole view built, then its text) is measured too, through
``CaseService.reader.replay(...).to_json_text()`` in a process of its own, and its text
compared with the streamed one.

``--before TREE`` adds ``replay --jsonl`` (fold saved) and cold ``status`` run from another
checkout of casefile (its directory first on ``PYTHONPATH``, the same virtual environment), so
a change is measured against the code before it in the same run.

Run: ``.venv/bin/python benchmarks/bench_replay_stream.py [--events N] [--rounds R]
[--before TREE]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.commands_harness import (
    ARTIFACT,
    CASEFILE,
    ROOT,
    checkpoint,
    drop_snapshots,
    sealed_case,
    url_of,
)

OLD_JSON = """
import sys
from casefile.app.opening import registry
from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
service = CaseService(SqlEventStore(sys.argv[1]), registry())
sys.stdout.write(service.reader.replay(sys.argv[2]).to_json_text() + "\\n")
"""


def run(argv: list[str], out: Path, tree: str | None = None) -> tuple[float, float, float]:
    """Seconds, peak RSS (MB) and CPU seconds (user and system) of one process, its stdout
    into ``out`` (casefile imported from ``tree`` when given)."""
    stats = out.with_suffix(".time")
    env = {**os.environ, "PYTHONPATH": tree} if tree else None
    start = time.perf_counter()
    with out.open("wb") as sink:
        subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %S", "-o", str(stats), *argv],
            stdout=sink,
            check=True,
            env=env,
        )
    seconds = time.perf_counter() - start
    rss, user, system = stats.read_text().split()[-3:]
    return seconds, int(rss) / 1024, float(user) + float(system)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="another checkout to run beside this one")
    args = parser.parse_args()
    from casefile.domain.events import sha256_hex
    from casefile.store.sql import SqlEventStore

    case = f"synthetic-{args.events}"
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        work = Path(tmp)
        db = work / "cases.db"
        digest = sha256_hex(ARTIFACT)
        with SqlEventStore(url_of(db)) as store:
            store.import_case(sealed_case(case, args.events, digest), {digest: ARTIFACT})
        checkpoint(db)
        url = url_of(db)
        cli = [str(CASEFILE)]
        contenders = {
            "cold status": [*cli, "status", case, "--db", url],
            "replay --jsonl": [*cli, "replay", case, "--db", url, "--jsonl"],
            "replay --jsonl, fold saved": [*cli, "replay", case, "--db", url, "--jsonl"],
            "replay --json (streamed)": [*cli, "replay", case, "--db", url, "--json"],
            "replay --json (whole, before)": [sys.executable, "-c", OLD_JSON, url, case],
        }
        trees: dict[str, str] = {}
        if args.before:
            for name in ("cold status", "replay --jsonl, fold saved"):
                contenders[f"{name} (--before)"] = contenders[name]
                trees[f"{name} (--before)"] = str(Path(args.before).resolve())
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in contenders}
        sizes: dict[str, int] = {}
        digests: dict[str, str] = {}
        names = list(contenders)
        for r in range(args.rounds):
            for name in names if r % 2 == 0 else names[::-1]:
                drop_snapshots(db, case)
                tree = trees.get(name)
                if "fold saved" in name:  # as after any command (not timed)
                    env = {**os.environ, "PYTHONPATH": tree} if tree else None
                    status = [*cli, "status", case, "--db", url]
                    subprocess.run(status, capture_output=True, env=env)
                out = work / f"{names.index(name)}.out"
                samples[name].append(run(contenders[name], out, tree))
                data = out.read_bytes()
                sizes[name] = len(data)
                digests[name] = hashlib.sha256(data).hexdigest()
                print(f"round {r + 1}: {name}: {samples[name][-1]}", file=sys.stderr, flush=True)
    same = digests["replay --json (streamed)"] == digests["replay --json (whole, before)"]
    base = statistics.median(s for s, _, _ in samples["cold status"])
    cpu_base = statistics.median(c for _, _, c in samples["cold status"])
    print(f"{args.events:,} events, {args.rounds} rounds, medians; cwd {ROOT}")
    print("| contender | wall s | ratio | CPU s | CPU ratio | peak RSS MB | output MB |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        wall = statistics.median(s for s, _, _ in samples[name])
        rss = statistics.median(m for _, m, _ in samples[name])
        cpu = statistics.median(c for _, _, c in samples[name])
        print(
            f"| {name} | {wall:.2f} | {wall / base:.2f}x | {cpu:.2f} | {cpu / cpu_base:.2f}x "
            f"| {rss:.0f} | {sizes[name] / 1e6:.1f} |"
        )
    print(f"streamed --json identical to the whole one: {same}")
    if args.before:
        before = digests["replay --jsonl, fold saved (--before)"]
        # identical unless the line shape changed (since 2026-12-03 the lines leave out each
        # step's changes, which the rebuild derives): the sizes say how much it changed
        print(f"--jsonl identical to --before's: {before == digests['replay --jsonl']}")
        print(
            f"--jsonl output: {sizes['replay --jsonl'] / 1e6:.1f} MB here, "
            f"{sizes['replay --jsonl, fold saved (--before)'] / 1e6:.1f} MB --before"
        )
        old = statistics.median(s for s, _, _ in samples["cold status (--before)"])
        ratio = statistics.median(s for s, _, _ in samples["replay --jsonl, fold saved (--before)"])
        print(f"--before: replay --jsonl, fold saved / its cold status: {ratio / old:.2f}x")


if __name__ == "__main__":
    main()
