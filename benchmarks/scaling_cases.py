"""The cases of ``bench_scaling.py``: playbook cases of an exact number of events, built
through the service as a user's session would make them (a playbook opened, intake answered,
transcripts of the reference case's outputs ingested, under load and at idle, then notes), and
cached in a SQLite file outside the repository between runs."""

from __future__ import annotations

import os
import shlex
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASEFILE = ROOT / ".venv" / "bin" / "casefile"
REFERENCE_DIR = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"
REFERENCE_ID = "glm5-pcie-pivot"
ARTIFACTS = REFERENCE_DIR / "artifacts"
#: bump when the way cases are built changes: a cached database of another build is not used
BUILD = 1
#: commands per ingested transcript chunk (alternately under load and at idle)
CHUNK = 2_000
ANSWERS = {
    "gpu-count": "several",
    "platform": "vm",
    "nvlink": "no",
    "workload": "inference-small-batch",
}
SAMPLES = (
    (
        ("nvidia-smi", "topo", "-m"),
        "cf361f834325b6ef92ffb30d36a49547b80cd93bbbe629f227589988068776ce",
    ),
    (
        (
            "nvidia-smi",
            "--query-gpu=index,utilization.gpu,utilization.memory,power.draw,power.limit",
            "--format=csv",
        ),
        "2962102382aa9817a0bdccf0054968502bda19f194c362adac480825fc2dcc12",
    ),
    (("nvidia-smi", "-q"), "c79962d07c6d5e30d3d04e800bdf3e57c485426e497e307f3c79baecbb7e25c2"),
)


def transcript(commands: int, chunk: int) -> bytes:
    """A shell log of ``commands`` commands cycling through the reference case's outputs and an
    ``echo``; the host's name carries the chunk's number (ingest refuses a transcript twice)."""
    outputs = [(argv, (ARTIFACTS / digest).read_text()) for argv, digest in SAMPLES]
    outputs.append((("echo", "step"), "step\n"))
    lines = []
    for index in range(commands):
        argv, output = outputs[index % len(outputs)]
        lines.append(f"$ ssh gpu-box-{chunk} {shlex.quote(shlex.join(argv))}\n{output}")
    return "".join(lines).encode()


def build_case(service: Any, case_id: str, total: int) -> dict[str, Any]:
    """A playbook case of exactly ``total`` events (see the module's docstring)."""
    from casefile.app.who import NOW

    service.writer.new_case("bench", case_id=case_id, playbook="gpu-throughput")
    service.writer.answer_intake(case_id, ANSWERS, known=True, who=NOW)
    chunk = 0
    per_command = 4.7  # events per command, refined after the first chunk
    while True:
        seq, _ = service.reader.head(case_id)
        room = total - seq - 50  # a margin for the notes
        # an idle chunk sets readings aside: more events a command than a loaded one
        commands = min(CHUNK, int(room / max(per_command, 6.0)))
        if commands < 8:
            break
        load = "under-load" if chunk % 2 == 0 else "idle"
        proposal = service.probing.propose_ingest(
            transcript(commands, chunk), "shell-log", load=load
        )
        service.probing.ingest(case_id, proposal)
        after, _ = service.reader.head(case_id)
        per_command = max(per_command, (after - seq) / commands * 1.05)
        chunk += 1
    seq, _ = service.reader.head(case_id)
    while seq < total:
        seq = service.writer.note(case_id, f"note {seq}: " + "y" * 200).seq
    return {"events": seq, "chunks": chunk}


def build_database(path: Path, sizes: list[int]) -> dict[str, Any]:
    from casefile.app.service import CaseService
    from casefile.store.sql import SqlEventStore
    from tests.cli.conftest import builtin_registry

    info: dict[str, Any] = {}
    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        for total in sizes:
            start = time.perf_counter()
            info[case_name(total)] = build_case(service, case_name(total), total)
            info[case_name(total)]["build_s"] = time.perf_counter() - start
            print(f"  built {case_name(total)}: {info[case_name(total)]}", file=sys.stderr)
    subprocess.run(
        [str(CASEFILE), "import", "--db", url_of(path), str(REFERENCE_DIR)],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=path.parent,
    )
    for case in [REFERENCE_ID, *(case_name(n) for n in sizes)]:  # save each case's fold
        subprocess.run(
            [str(CASEFILE), "status", "--db", url_of(path), case],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=path.parent,
        )
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return info


def case_name(total: int) -> str:
    return f"playbook-{total}"


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


def cached_database(cache: Path, sizes: list[int], rebuild: bool) -> Path:
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"cases-b{BUILD}-{'-'.join(map(str, sizes))}.db"
    if path.exists() and not rebuild:
        return path
    building = cache / f"building-{os.getpid()}.db"
    for old in [*cache.glob(path.name + "*"), *cache.glob(building.name + "*")]:
        old.unlink()
    print(f"building {path} …", file=sys.stderr, flush=True)
    build_database(building, sizes)
    for suffix in ("-wal", "-shm"):
        Path(str(building) + suffix).unlink(missing_ok=True)
    building.rename(path)
    return path
