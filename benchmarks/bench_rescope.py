"""Rescoping readings when an answer changes what their rules apply to, on cases of 2,000 and
20,000 events.

A case shaped like ``bench_scaling.py``'s (gpu-throughput@3, the job said to use several GPUs,
``nvidia-smi`` transcripts ingested under load and at idle, and after each ten A/Bs that hide
all GPUs but one, ``CUDA_VISIBLE_DEVICES=0``) is told the job uses one GPU: every reading of a
rule that needs several GPUs (``topology-p2p-path``) is withdrawn, one event each, and every
A/B, read as fewer GPUs while the job used several, is read again as the device it sees
(``casefile.app.experiment_rereading``). Measured in-process through the service, each round
on a fresh copy of the database:

rescope   ``intake gpu-count=one`` on the 20,000-event case vs on the 2,000-event case.
          Nothing may grow faster than the case: target at most 12× (ten times the events,
          ten times the readings withdrawn, and a margin for the store).
unrelated ``intake degrades-over-time=no`` (a question no rule requires: no scan) on the same
          two cases, the same ratio, for scale.

Medians of ``--rounds`` (default 5), the sizes' order alternating. Run:
``.venv/bin/python benchmarks/bench_rescope.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scaling_cases import transcript  # noqa: E402

SIZES = (2_000, 20_000)
TARGET = 12.0
ANSWERS = {"gpu-count": "several", "platform": "vm", "nvlink": "no", "workload": "training"}


def build(path: Path, total: int) -> int:
    """A case of about ``total`` events; returns the readings a one-GPU answer withdraws."""
    from casefile.app.service import CaseService
    from casefile.app.who import NOW
    from casefile.store.sql import SqlEventStore
    from tests.cli.conftest import builtin_registry

    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        service.writer.new_case("bench", case_id="c", playbook="gpu-throughput@3")
        service.writer.answer_intake("c", ANSWERS, known=True, who=NOW)
        chunk = 0
        while service.reader.head("c")[0] < total:
            load = "under-load" if chunk % 2 == 0 else "idle"
            proposal = service.probing.propose_ingest(
                transcript(400, chunk), "shell-log", load=load
            )
            service.probing.ingest("c", proposal)
            # ten A/Bs a chunk, read by fewer-gpus while the job is said to use several GPUs
            for n in range(10):
                service.writer.record_reported_experiment(
                    "c", "CUDA_VISIBLE_DEVICES=0", None, 10.0, 30.0 + chunk + n / 10, unit="tok/s"
                )
            chunk += 1
    return 0


def timed(db: Path, answer: dict[str, str]) -> tuple[float, int, int]:
    from casefile.app.service import CaseService
    from casefile.app.who import NOW
    from casefile.store.sql import SqlEventStore
    from tests.cli.conftest import builtin_registry

    with CaseService(SqlEventStore(f"sqlite:///{db}"), builtin_registry()) as service:
        service.reader.status("c")  # the fold warm, as a session holds it
        start = time.perf_counter()
        outcome = service.writer.answer_intake("c", answer, known=False, who=NOW)
        took = time.perf_counter() - start
    return took, len(outcome.readings), len(outcome.experiments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="casefile-bench-rescope-"))
    try:
        pristine = {}
        for size in SIZES:
            pristine[size] = work / f"case-{size}.db"
            start = time.perf_counter()
            build(pristine[size], size)
            print(f"built {size:,} events in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        figures = {"rescope": {"gpu-count": "one"}, "unrelated": {"degrades-over-time": "no"}}
        results: dict[str, dict[int, list[float]]] = {f: {s: [] for s in SIZES} for f in figures}
        withdrawn: dict[int, int] = {}
        reread_ab: dict[int, int] = {}
        for round_ in range(args.rounds):
            order = SIZES if round_ % 2 == 0 else tuple(reversed(SIZES))
            for name, answer in figures.items():
                for size in order:
                    db = work / f"round-{size}.db"
                    shutil.copyfile(pristine[size], db)
                    took, readings, reread = timed(db, answer)
                    results[name][size].append(took)
                    if name == "rescope":
                        withdrawn[size] = readings
                        reread_ab[size] = reread
        small, big = SIZES
        for name in figures:
            a = statistics.median(results[name][small])
            b = statistics.median(results[name][big])
            print(
                f"{name:<10} {small:,} events {a * 1000:8.1f} ms   {big:,} events "
                f"{b * 1000:8.1f} ms   ratio {b / a:5.2f}×"
                + (f" (target ≤ {TARGET:g}×)" if name == "rescope" else "")
            )
        print(f"readings withdrawn: {withdrawn[small]:,} and {withdrawn[big]:,}")
        print(f"A/Bs read again: {reread_ab[small]:,} and {reread_ab[big]:,}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
