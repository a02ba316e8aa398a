"""``replay --jsonl`` and the streamed ``replay --json`` on a long case, against cold ``status``.

Each contender is a fresh CLI process on one SQLite file (a 100,000-event case from
``commands_harness.sealed_case``, the synthetic reference-case mix), its snapshots dropped before
every run (so each folds the whole case, as a cold ``status`` does); "fold saved" runs after an
untimed ``status`` has saved the case's fold, as any command leaves it. Wall time and peak RSS
(``/usr/bin/time``) per run, rounds alternating, medians reported. The ``replay --json`` the CLI
printed before (the whole view built, then its text) is measured too, through
``CaseService.reader.replay(...).to_json_text()`` in a process of its own, and its text
compared with the streamed one.

Run: ``.venv/bin/python benchmarks/bench_replay_stream.py [--events N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import hashlib
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


def run(argv: list[str], out: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one process, its stdout into ``out``."""
    stats = out.with_suffix(".time")
    start = time.perf_counter()
    with out.open("wb") as sink:
        subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", str(stats), *argv], stdout=sink, check=True
        )
    seconds = time.perf_counter() - start
    return seconds, int(stats.read_text().split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
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
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
        sizes: dict[str, int] = {}
        digests: dict[str, str] = {}
        names = list(contenders)
        for r in range(args.rounds):
            for name in names if r % 2 == 0 else names[::-1]:
                drop_snapshots(db, case)
                if name.endswith("fold saved"):  # as after any command (not timed)
                    subprocess.run([*cli, "status", case, "--db", url], capture_output=True)
                out = work / f"{names.index(name)}.out"
                samples[name].append(run(contenders[name], out))
                data = out.read_bytes()
                sizes[name] = len(data)
                digests[name] = hashlib.sha256(data).hexdigest()
                print(f"round {r + 1}: {name}: {samples[name][-1]}", file=sys.stderr, flush=True)
    same = digests["replay --json (streamed)"] == digests["replay --json (whole, before)"]
    base = statistics.median(s for s, _ in samples["cold status"])
    print(f"{args.events:,} events, {args.rounds} rounds, medians; cwd {ROOT}")
    print("| contender | wall s | ratio to cold status | peak RSS MB | output MB |")
    print("|---|---|---|---|---|")
    for name in names:
        wall = statistics.median(s for s, _ in samples[name])
        rss = statistics.median(m for _, m in samples[name])
        print(f"| {name} | {wall:.2f} | {wall / base:.2f}x | {rss:.0f} | {sizes[name] / 1e6:.1f} |")
    print(f"streamed --json identical to the whole one: {same}")


if __name__ == "__main__":
    main()
