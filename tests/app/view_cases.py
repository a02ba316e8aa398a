"""Cases for the view tests: the reference case, and small ones built in a memory store.

:class:`StoreCase` appends through :class:`~casefile.store.memory.MemoryEventStore` (which
validates every payload) the events the application service would write, decided by the same
domain commands; raw outputs go in as artifacts. The views are then built from a fresh fold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import count
from pathlib import Path
from typing import Any

from casefile.app.service import CaseService
from casefile.domain import commands
from casefile.domain.beliefs import Projection, project
from casefile.domain.events import Event, NewEvent
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_CASE = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"


def reference_case() -> tuple[list[Event], dict[str, bytes]]:
    return read_case_dir(REFERENCE_CASE)


def fixed_clock() -> Callable[[], str]:
    """A clock that ticks one microsecond per append, so that built cases are reproducible."""
    ticks = count()
    return lambda: f"2026-01-01T00:00:00.{next(ticks):06d}Z"


class StoreCase:
    """One case in a memory store, with helpers named after what a responder does."""

    def __init__(self, title: str = "Slow decode", case_id: str = "views-1") -> None:
        self.store = MemoryEventStore(clock=fixed_clock())
        self.case_id = case_id
        self.append(commands.open_case(title, "11 tok/s single stream"))

    def append(self, *new: NewEvent) -> list[Event]:
        head, _ = self.store.head(self.case_id)
        return self.store.append(self.case_id, head, list(new))

    @property
    def events(self) -> list[Event]:
        return self.store.load(self.case_id)

    @property
    def projection(self) -> Projection:
        return project(self.events)

    def question(self, qid: str = "q", text: str = "What limits decode?") -> None:
        self.append(commands.propose_question(self.projection, text, qid, 0.1))

    def hypothesis(self, hid: str, under: str, prior: float, text: str | None = None) -> None:
        self.append(
            commands.propose_hypothesis(
                self.projection, text or f"{hid} explains it", under, prior, hid
            )
        )

    def evidence(
        self, likelihoods: Mapping[str, float], kind: str = "measured", **options: Any
    ) -> Event:
        new = commands.assess_evidence(
            self.projection,
            likelihoods,
            rationale=options.pop("rationale", "because"),
            kind=kind,
            reliability=options.pop("reliability", 0.9),
            **options,
        )
        return self.append(new)[0]

    def note(self, text: str) -> Event:
        return self.append(NewEvent("note.added", {"text": text}))[0]

    def act(self, text: str, outcome: str | None = None) -> Event:
        payload = {"text": text, **({"outcome": outcome} if outcome else {})}
        return self.append(NewEvent("action.taken", payload))[0]

    def probe(
        self,
        stdout: bytes,
        *,
        stderr: bytes = b"",
        facts: Sequence[Mapping[str, Any]] = (),
        load: str = "under-load",
        argv: Sequence[str] = ("nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv"),
        parsed: bool = True,
        keep_stdout: bool = True,
    ) -> tuple[Event, Event]:
        """A probe run with its raw output and the observation parsed from it, in one append
        (``keep_stdout=False`` records the digest without storing the bytes)."""
        stdout_digest = self.store.put_artifact(stdout) if keep_stdout else "f" * 64
        stderr_digest = self.store.put_artifact(stderr) if stderr else None
        run_seq = self.store.head(self.case_id)[0] + 1
        conditions = {"load": load, "host": "gpu-box"}
        run: dict[str, Any] = {
            "probe": "nvidia-smi-query",
            "argv": list(argv),
            "host": "gpu-box",
            "source": "local",
            "exit_status": 0,
            "stdout_artifact": stdout_digest,
            "conditions": conditions,
        }
        if stderr_digest:
            run["stderr_artifact"] = stderr_digest
        observation = {
            "probe_run_seq": run_seq,
            "probe": "nvidia-smi-query",
            "facts": [dict(f) for f in facts],
            "parsed": parsed,
            "problems": [] if parsed else ["no header line"],
            "conditions": conditions,
        }
        ran, seen = self.append(
            NewEvent("probe.ran", run), NewEvent("observation.recorded", observation)
        )
        return ran, seen

    def set_aside(
        self, observation_seq: int, rules: Sequence[str], why: str = "taken at idle"
    ) -> None:
        self.append(
            *(
                NewEvent(
                    "reading.set_aside",
                    {
                        "observation_seq": observation_seq,
                        "rule": {"id": rule, "version": 1},
                        "reason": f"{why}; rule {rule} counts only readings taken under load",
                    },
                )
                for rule in rules
            )
        )


def small_case() -> StoreCase:
    """q: pcie (bw, lat under it) and compute; calculated evidence for pcie, then a measurement
    that turns it to compute, a note and an action."""
    case = StoreCase()
    case.question()
    case.hypothesis("pcie", "q", 0.5, "PCIe-bound")
    case.hypothesis("compute", "q", 0.4, "compute-bound")
    case.hypothesis("bw", "pcie", 0.6, "bandwidth saturated")
    case.hypothesis("lat", "pcie", 0.4, "latency without P2P")
    case.evidence({"pcie": 0.8}, kind="calculated", reliability=0.6, evidence_id="calc")
    case.note("the link looks idle under load")
    case.evidence({"bw": 0.02, "lat": 0.3, "compute": 0.9}, evidence_id="pivot")
    case.act("raised the batch size", outcome="throughput doubled")
    return case


def reference_service() -> CaseService:
    """A service over a memory store holding the reference case, its clock fixed."""
    from tests.cli.conftest import builtin_registry

    service = CaseService(MemoryEventStore(clock=fixed_clock()), builtin_registry())
    service.library.import_directory(REFERENCE_CASE)
    return service
