"""Cases for the report tests: the reference case, and built ones that plant data everywhere.

Each built case goes through the application service (the events it writes are the ones a
responder's commands would), into a memory store, with fixed times so that it is reproducible.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from casefile_probes.command import make_command_probe

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.probes.runners.result import RunResult
from casefile.store.memory import MemoryEventStore
from tests.app.view_cases import fixed_clock
from tests.cli.conftest import builtin_registry

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "cases"
REFERENCE = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"
REFERENCE_ID = "glm5-pcie-pivot"


def case_dirs() -> list[Path]:
    """Every case directory shipped: the bundled reference case and any in ``cases/``."""
    shipped = [p for p in CASES.iterdir() if (p / "events.jsonl").is_file()]
    return sorted([REFERENCE, *shipped])


def service_with(directory: Path) -> tuple[CaseService, str]:
    service = CaseService(MemoryEventStore(clock=fixed_clock()), builtin_registry())
    imported = service.library.import_directory(directory)
    return service, imported.case_id


@dataclass(frozen=True)
class Planted:
    """A built case and the strings planted in it."""

    service: CaseService
    case_id: str
    secrets: tuple[str, ...]


def _at(minute: int) -> str:
    return f"2026-05-04T10:{minute:02d}:00.000000Z"


def build_case(
    texts: Sequence[str],
    *,
    actor: str,
    host: str,
    argv: Sequence[str],
    environment: Mapping[str, str] | None = None,
) -> Planted:
    """A case with ``texts[i % len(texts)]`` woven into every text field a case has: title,
    symptom, environment, notes, actions and outcomes, question and hypotheses (text and
    meaning), evidence rationale, retirement reason, probe host, argv, note, raw output and
    fact subjects, an unparsed output, recommendations, lessons and the conclusion; and
    ``environment``'s entries beside the built-in ones."""
    t = [texts[i % len(texts)] for i in range(40)]
    service = CaseService(MemoryEventStore(clock=fixed_clock()), builtin_registry())

    def who(minute: int) -> Who:
        return Who(actor, _at(minute))

    cid = service.writer.new_case(
        f"Slow decode {t[0]}",
        symptom=f"11 tok/s on {t[1]}",
        environment={"host": host, "site": t[2], "notes": t[3], **(environment or {})},
        case_id="planted",
        who=who(0),
    )
    service.writer.note(cid, f"first look at {t[4]}", who=who(1))
    service.writer.add_question(cid, f"What limits {t[5]}?", "q", who=who(2))
    service.writer.add_hypothesis(cid, f"link on {t[6]}", "q", 0.4, "link", f"means {t[7]}", who(3))
    service.writer.add_hypothesis(cid, f"compute {t[8]}", "q", 0.3, "compute", None, who(3))
    service.writer.add_hypothesis(cid, "narrow", "link", 0.5, "narrow", f"lanes {t[9]}", who(3))
    service.writer.add_hypothesis(cid, "slow", "link", 0.5, "slow", None, who(3))
    service.writer.add_hypothesis(cid, f"thermal {t[10]}", "q", 0.1, "thermal", None, who(3))
    service.writer.assess(cid, {"link": 0.8}, f"calculated from {t[11]}", who(4), kind="calculated")
    probe = make_command_probe(
        "host-load", ("uptime",), {r"(?P<subject>\S+) load=(?P<load_avg>[0-9.]+)": None}
    )
    stdout = "\n".join(
        [f"{t[12]} load=0.50", f"{t[13]} load=1.50", f"see {t[14]} and {t[15]}", "done"]
    )
    result = RunResult(
        argv=tuple(argv),
        host=host,
        exit_status=0,
        stdout=stdout + "\n",
        stderr="",
        started_at=_at(5),
        finished_at=_at(5),
        duration_s=0.5,
        source="ssh",
    )
    record = service.probing.record_probe(
        cid, probe, result, load="under-load", note=f"ran on {t[16]}", who=Who(actor, _at(5))
    )
    service.writer.assess(
        cid,
        {"link": 0.05, "narrow": 0.05, "compute": 0.9},
        f"measured on {t[17]}: the link is idle",
        who(6),
        kind="measured",
        probe_run_seq=record.probe_run_seq,
        observation_seq=record.observation_seq,
    )
    garbled = RunResult(
        argv=("nvidia-smi", "--query-gpu=index", f"--id={t[18]}"),
        host=host,
        exit_status=0,
        stdout=f"garbled output from {t[19]}\n",
        stderr="",
        started_at=_at(7),
        finished_at=_at(7),
        duration_s=0.1,
        source="ssh",
    )
    query = service.probing.probe("nvidia-smi-query")
    service.probing.record_probe(cid, query, garbled, load="idle", who=Who(actor, _at(7)))
    service.writer.act(cid, f"restarted {t[20]}", f"came back on {t[21]}", who(8))
    service.writer.retire_hypothesis(cid, "thermal", f"fans fine on {t[22]}", who(9))
    service.writer.refine_hypothesis(cid, "compute", f"compute-bound on {t[23]}", None, who(10))
    service.writer.conclude(
        cid,
        f"compute-bound on {t[24]}",
        "compute",
        [f"batch more on {t[25]}"],
        [f"measure {t[26]} first"],
        who(11),
    )
    return Planted(service, cid, tuple(texts))


def truncated(directory: Path, events: int, into: Path) -> Path:
    """The case directory's first ``events`` events, as a case directory of its own."""
    into.mkdir()
    lines = (directory / "events.jsonl").read_text().splitlines(keepends=True)[:events]
    (into / "events.jsonl").write_text("".join(lines))
    last = json.loads(lines[-1])
    (into / "events.head").write_text(f"{events}@{last['hash']}\n")
    if (directory / "artifacts").is_dir():
        shutil.copytree(directory / "artifacts", into / "artifacts")
    return into
