"""The application service applying rules: what is recorded, and what is not."""

from __future__ import annotations

import math

import pytest
from casefile_gpu_playbook import PLAYBOOK_V1 as PLAYBOOK
from casefile_probes import query_gpu, smi_q

from casefile.app.service import CaseService
from casefile.domain.beliefs import project
from casefile.domain.facts import ParseResult
from casefile.errors import DomainError
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.probes.runners.pasted import from_text
from casefile.probes.runners.result import RunResult
from casefile.store.memory import MemoryEventStore

UNDER_LOAD = (
    "index, utilization.gpu [%], utilization.memory [%], power.draw [W], power.limit [W]\n"
    "0, 100 %, 52 %, 328.00 W, 600.00 W\n"
)
QUERY_ARGV = (
    "nvidia-smi",
    "--query-gpu=index,utilization.gpu,utilization.memory,power.draw,power.limit",
    "--format=csv",
)


def service() -> CaseService:
    registry = Registry.of(probes=[query_gpu.PROBE, smi_q.PROBE], playbooks=[PLAYBOOK])
    return CaseService(MemoryEventStore(), registry)


def paste(text: str, argv: tuple[str, ...] = QUERY_ARGV) -> RunResult:
    return from_text(argv, text, host="box", taken_at="2026-01-01T00:00:00Z")


def test_retiring_then_reinstating_does_not_change_what_a_rule_measured() -> None:
    never = service()
    a = never.writer.new_case("a", case_id="a")
    never.writer.open_playbook(a, PLAYBOOK.id)
    never.probing.record_probe(a, query_gpu.PROBE, paste(UNDER_LOAD), load="under-load")

    interrupted = service()
    b = interrupted.writer.new_case("b", case_id="b")
    interrupted.writer.open_playbook(b, PLAYBOOK.id)
    interrupted.writer.retire_hypothesis(b, "compute-launch", "doubt it")
    interrupted.probing.record_probe(b, query_gpu.PROBE, paste(UNDER_LOAD), load="under-load")
    interrupted.writer.reinstate_hypothesis(b, "compute-launch")

    assert (
        never.reader.projection(a).questions["throughput"].confidences
        == interrupted.reader.projection(b).questions["throughput"].confidences
    )


def test_a_failed_run_gets_no_rule_verdicts_and_no_set_aside_records() -> None:
    svc = service()
    case = svc.writer.new_case("c", case_id="c")
    svc.writer.open_playbook(case, PLAYBOOK.id)
    failed = RunResult(
        argv=("nvidia-smi", "-q"),
        host="localhost",
        exit_status=None,
        stdout="",
        stderr="",
        started_at="2026-01-01T00:00:00.000000Z",
        finished_at="2026-01-01T00:00:00.000000Z",
        duration_s=0.0,
        error="command not found: nvidia-smi",
    )
    record = svc.probing.record_probe(case, smi_q.PROBE, failed, load="idle")
    assert not record.parse.parsed
    assert record.evidence_ids == [] and record.set_aside == []
    types = [e.type for e in svc.reader.events(case)]
    assert "reading.set_aside" not in types and "evidence.assessed" not in types
    warnings = project(svc.reader.events(case)).warnings.all()
    assert [w.code for w in warnings] == ["unparsed"]


def test_rules_apply_only_to_questions_opened_from_their_playbook() -> None:
    svc = service()
    case = svc.writer.new_case("c", case_id="c")
    svc.writer.add_question(case, "same id, hand-made", question_id="throughput")
    svc.writer.add_hypothesis(case, "compute-bound", "throughput", 0.5, "compute-launch")
    record = svc.probing.record_probe(case, query_gpu.PROBE, paste(UNDER_LOAD), load="under-load")
    assert record.evidence_ids == [] and record.set_aside == []
    assert svc.reader.status(case).next_steps == ()


def test_a_fact_that_cannot_be_stored_is_dropped_and_the_raw_output_kept() -> None:
    def bad_parser(text: str) -> ParseResult:
        result = ParseResult()
        result.add("utilization.gpu", float("nan"), "gpu0", "%")
        result.add("utilization.gpu", 55.0, "gpu1", "%")
        return result

    probe = Probe(name="nan-probe", summary="test", parse=bad_parser, argv=("x",))
    svc = CaseService(MemoryEventStore(), Registry.of(probes=[probe]))
    case = svc.writer.new_case("c", case_id="c")
    record = svc.probing.record_probe(case, probe, paste("raw text\n", ("x",)))
    assert [f.subject for f in record.parse.facts] == ["gpu1"]
    assert any("cannot be stored" in p for p in record.parse.problems)
    run = svc.reader.events(case)[1]
    assert svc.store.get_artifact(run.payload["stdout_artifact"]) == b"raw text\n"
    assert all(math.isfinite(f["value"]) for f in svc.reader.events(case)[2].payload["facts"])


def test_an_existing_case_id_is_a_clear_error() -> None:
    svc = service()
    svc.writer.new_case("first", case_id="dup")
    with pytest.raises(DomainError, match="already exists"):
        svc.writer.new_case("second", case_id="dup")
    with pytest.raises(DomainError, match="case id"):
        svc.writer.new_case("odd", case_id='a"];evil')
