"""What the case's observations say about intake questions is read once per observation: a
second look at the same fold reads no observation again and says the same, and a new
observation is read on the next look."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from casefile.app import intake
from casefile.app.probing import Pasted, ProbeRequest
from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

ARTIFACTS = Path(__file__).resolve().parents[2] / "casefile/reference/glm5-pcie-pivot/artifacts"
SMI_Q = ARTIFACTS / "c79962d07c6d5e30d3d04e800bdf3e57c485426e497e307f3c79baecbb7e25c2"


def test_a_second_look_reads_no_observation_again(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    original = intake._LazyFacts._facts

    def counting(self: intake._LazyFacts, seq: int) -> list[object]:
        read.append(seq)
        return original(self, seq)  # type: ignore[return-value]

    monkeypatch.setattr(intake._LazyFacts, "_facts", counting)
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case("slow", playbook="gpu-throughput", who=Who("t"))
        smi_q = ProbeRequest(
            "nvidia-smi-q", Pasted(text=SMI_Q.read_text()), argv=("nvidia-smi", "-q")
        )
        list(service.probing.run_probe(case, smi_q, Who("t")))
        first = service.reader.intake(case)
        gpu_class = next(item for item in first if item.id == "gpu-class")
        assert gpu_class.known is not None and gpu_class.known.answer == "datacenter"
        assert read
        read.clear()
        assert service.reader.intake(case) == first
        assert read == []  # nothing read again
        second_look = replace(smi_q, note="a second look")  # the same paste is a repeat
        list(service.probing.run_probe(case, second_look, Who("t")))
        again = service.reader.intake(case)
        assert len(set(read)) == 1  # only the new observation
        known = next(item for item in again if item.id == "gpu-class").known
        assert known is not None and known.observation_seq == max(read)  # the newest says
