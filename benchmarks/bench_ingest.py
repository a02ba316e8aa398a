"""Benchmark ``casefile ingest`` of a 10,000-command transcript against the floor under it.

The transcript is a shell log of 10,000 commands cycling through the reference case's outputs
(``nvidia-smi topo -m``, the ``--query-gpu`` CSV, ``nvidia-smi -q``, over ``ssh``) and a plain
``echo``. Two ways of recording it, each into a fresh case opened from the GPU playbook (so the
rules run) in one SQLite file, in one process:

ingest    ``service.probing.propose_ingest`` (read, render, match, scrub) then
          ``service.probing.ingest`` (store outputs, parse, judge, one append);
floor     the same outputs, already split and matched, parsed with the probes' parsers and
          recorded as ``probe --paste`` records one (output stored, parsed, rules applied),
          all in one append.

Target: ingest at most 2× the floor (medians of ``--rounds``, alternating). Prints a table,
then one JSON line. Run: ``.venv/bin/python benchmarks/bench_ingest.py [--commands 10000]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ARTIFACTS = REPO / "casefile" / "reference" / "glm5-pcie-pivot" / "artifacts"
TARGET = 2.0

SAMPLES = (
    (
        "nvidia-smi-topo",
        ("nvidia-smi", "topo", "-m"),
        "cf361f834325b6ef92ffb30d36a49547b80cd93bbbe629f227589988068776ce",
    ),
    (
        "nvidia-smi-query",
        (
            "nvidia-smi",
            "--query-gpu=index,utilization.gpu,utilization.memory,power.draw,power.limit",
            "--format=csv",
        ),
        "2962102382aa9817a0bdccf0054968502bda19f194c362adac480825fc2dcc12",
    ),
    (
        "nvidia-smi-q",
        ("nvidia-smi", "-q"),
        "c79962d07c6d5e30d3d04e800bdf3e57c485426e497e307f3c79baecbb7e25c2",
    ),
)


def transcript(commands: int) -> tuple[bytes, list[tuple[str, tuple[str, ...], str]]]:
    """The shell log, and each command's (probe, argv, output) as the floor gets them."""
    import shlex

    outputs = [(p, a, (ARTIFACTS / d).read_text()) for p, a, d in SAMPLES]
    outputs.append(("command", ("echo", "step"), "step\n"))
    lines: list[str] = []
    expected = []
    for index in range(commands):
        probe, argv, output = outputs[index % len(outputs)]
        lines.append(f"$ ssh gpu-box {shlex.quote(shlex.join(argv))}\n{output}")
        expected.append((probe, argv, output))
    return "".join(lines).encode(), expected


def _service(db: Path, case: str):  # type: ignore[no-untyped-def]
    from casefile.app.service import CaseService
    from casefile.store.sql import SqlEventStore
    from tests.cli.conftest import builtin_registry

    service = CaseService(SqlEventStore(f"sqlite:///{db}"), builtin_registry())
    service.writer.new_case("bench", case_id=case, playbook="gpu-throughput")
    return service


def run_ingest(db: Path, case: str, data: bytes) -> tuple[float, int]:
    service = _service(db, case)
    started = time.perf_counter()
    proposal = service.probing.propose_ingest(data, "shell-log", load="under-load")
    runs = service.probing.ingest(case, proposal)
    elapsed = time.perf_counter() - started
    service.close()
    return elapsed, len(runs)


def run_floor(db: Path, case: str, expected: list[tuple[str, tuple[str, ...], str]]) -> float:
    from casefile.app.recording import decide_run, parse_run, rules_for, store_output
    from casefile.domain.events import utc_now
    from casefile.probes.runners.pasted import from_text

    service = _service(db, case)
    started = time.perf_counter()
    rules = {name: rules_for(service.registry, name) for name, _, _ in expected[:4]}
    now = utc_now()
    collected = []
    for name, argv, output in expected:
        probe = service.registry.probe(name)
        result = from_text(argv, output, host="gpu-box", taken_at=now)
        stored = store_output(service.store.put_artifact, result)
        collected.append(
            parse_run(
                probe,
                stored.result,
                stdout_digest=stored.stdout_digest,
                stderr_digest=stored.stderr_digest,
                load="under-load",
                reconstructed=False,
                note=None,
                rules=rules[name],
            )
        )

    def decide(draft):  # type: ignore[no-untyped-def]
        for one in collected:
            decide_run(draft, one)

    service.sessions.execute(case, decide, service_who())
    elapsed = time.perf_counter() - started
    service.close()
    return elapsed


def service_who():  # type: ignore[no-untyped-def]
    from casefile.app.who import NOW

    return NOW


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data, expected = transcript(args.commands)
    ingest_times: list[float] = []
    floor_times: list[float] = []
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            # a fresh file per side, and the order alternating round by round
            if round_ % 2:
                elapsed, runs = run_ingest(Path(tmp) / f"i{round_}.db", "ingest", data)
                ingest_times.append(elapsed)
            floor_times.append(run_floor(Path(tmp) / f"f{round_}.db", "floor", expected))
            if not round_ % 2:
                elapsed, runs = run_ingest(Path(tmp) / f"i{round_}.db", "ingest", data)
                ingest_times.append(elapsed)
    assert runs == args.commands, runs
    ingest, floor = statistics.median(ingest_times), statistics.median(floor_times)
    ratio = ingest / floor
    print(f"transcript: {args.commands} commands, {len(data) / 1e6:.1f} MB")
    print(f"{'figure':<10} {'median':>9}")
    print(f"{'ingest':<10} {ingest:>8.2f}s")
    print(f"{'floor':<10} {floor:>8.2f}s")
    print(f"ratio {ratio:.2f}× (target ≤ {TARGET}×)")
    print(
        json.dumps(
            {
                "commands": args.commands,
                "bytes": len(data),
                "ingest_s": round(ingest, 3),
                "floor_s": round(floor, 3),
                "ratio": round(ratio, 3),
                "target": TARGET,
                "ok": ratio <= TARGET,
            }
        )
    )


if __name__ == "__main__":
    main()
