"""Output recorded under ``command``, or under a probe that cannot read it, is read by every
probe that recognises it: their facts join the observation, their rules judge it, and the run
keeps the probe it was recorded under."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from casefile_gpu_playbook import PLAYBOOK_V1 as PLAYBOOK
from casefile_probes import command, dmon, lspci, nccl, nccl_debug, smi_table

from casefile.app.service import CaseService
from casefile.domain.beliefs import project
from casefile.domain.catalogue import ObservationRecorded
from casefile.domain.facts import ParseResult
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.probes.runners.pasted import from_text
from casefile.probes.runners.result import RunResult
from casefile.store.memory import MemoryEventStore

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: an RTX 4090's LnkCap/LnkSta pair, its link trained at 2.5GT/s (a real paste)
DOWNGRADED = (GOLDEN / "lspci-fragment" / "003.txt").read_text(encoding="utf-8")
LSPCI_RULES = {rule.id for rule in PLAYBOOK.rules_for_probe("lspci")}
BUILT_IN = [command.PROBE, dmon.PROBE, lspci.PROBE, nccl.PROBE, nccl_debug.PROBE, smi_table.PROBE]


def service(*extra: Probe) -> CaseService:
    registry = Registry.of(probes=[*BUILT_IN, *extra], playbooks=[PLAYBOOK])
    return CaseService(MemoryEventStore(), registry)


def opened(svc: CaseService, case_id: str = "c") -> str:
    case = svc.writer.new_case("slow link", case_id=case_id)
    svc.writer.open_playbook(case, PLAYBOOK.id)
    return case


def paste(text: str, argv: tuple[str, ...] = ("./check_links.sh",)) -> RunResult:
    return from_text(argv, text, host="box", taken_at="2026-01-01T00:00:00Z")


def payloads(svc: CaseService, case: str, kind: str) -> list[dict[str, Any]]:
    return [dict(e.payload) for e in svc.reader.events(case) if e.type == kind]


def test_a_paste_under_command_is_read_by_the_probe_that_recognises_it() -> None:
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste(DOWNGRADED))
    assert record.read_as == ("lspci",)
    assert record.parse.parsed and record.failure is None
    assert record.parse.values("pcie.link.downgraded") == {"unknown1": True}
    (ran,) = payloads(svc, case, "probe.ran")
    assert ran["probe"] == "command" and ran["note"] == "read as lspci"
    (observation,) = payloads(svc, case, "observation.recorded")
    assert observation["probe"] == "command" and observation["read_as"] == ["lspci"]
    ObservationRecorded.model_validate(observation)
    # lspci's rules judged it, exactly as when it is pasted under lspci
    evidence = payloads(svc, case, "evidence.assessed")
    assert evidence and all(e["rule"]["id"] in LSPCI_RULES for e in evidence)

    direct = service()
    other = opened(direct, "d")
    as_lspci = direct.probing.record_probe(other, lspci.PROBE, paste(DOWNGRADED, ("lspci", "-vv")))
    assert as_lspci.read_as == ()
    assert "read_as" not in payloads(direct, other, "observation.recorded")[0]
    same = payloads(direct, other, "evidence.assessed")
    assert [(e["rule"], e["likelihoods"]) for e in same] == [
        (e["rule"], e["likelihoods"]) for e in evidence
    ]
    assert (
        svc.reader.projection(case).questions["throughput"].confidences
        == direct.reader.projection(other).questions["throughput"].confidences
    )


def test_a_paste_its_probe_cannot_read_is_read_by_the_one_that_can() -> None:
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, smi_table.PROBE, paste(DOWNGRADED, ("nvidia-smi",)))
    assert record.read_as == ("lspci",) and record.parse.parsed
    # why nvidia-smi could not read it stays said
    assert any("nvidia-smi table" in problem for problem in record.parse.problems)
    (ran,) = payloads(svc, case, "probe.ran")
    assert ran["probe"] == "nvidia-smi"


def test_a_paste_its_own_probe_reads_is_offered_to_nobody() -> None:
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(
        case, lspci.PROBE, paste(DOWNGRADED, ("lspci",)), note="riser"
    )
    assert record.read_as == ()
    (ran,) = payloads(svc, case, "probe.ran")
    assert ran["note"] == "riser"


def test_the_users_note_is_kept_beside_what_read_it() -> None:
    svc = service()
    case = opened(svc)
    svc.probing.record_probe(case, command.PROBE, paste(DOWNGRADED), note="after the riser swap")
    (ran,) = payloads(svc, case, "probe.ran")
    assert ran["note"] == "after the riser swap (read as lspci)"


def test_output_nobody_recognises_is_a_plain_command_run() -> None:
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste("all good\n"))
    assert record.read_as == ()
    (ran,) = payloads(svc, case, "probe.ran")
    (observation,) = payloads(svc, case, "observation.recorded")
    assert "note" not in ran and "read_as" not in observation


def _marked(name: str, mark: str, *, covers: tuple[str, ...] = (), parses: bool = True) -> Probe:
    def parse(text: str) -> ParseResult:
        if not parses:
            return ParseResult.unparsed("cannot read it after all")
        result = ParseResult()
        result.add(f"{name}.seen", True)
        return result

    return Probe(
        name=name,
        summary=name,
        parse=parse,
        recognises=lambda text: mark in text,
        covers=covers,
    )


def _broken(text: str) -> bool:
    raise RuntimeError("a recogniser's bug")


def test_every_recognising_probe_reads_in_name_order_and_a_coverer_reads_for_the_covered() -> None:
    probes = [
        _marked("zeta-tool", "MARK"),
        _marked("alpha-tool", "MARK"),
        _marked("beta-tool", "MARK", covers=("gamma-tool",)),
        _marked("gamma-tool", "MARK"),
        _marked("delta-tool", "MARK", parses=False),
        _marked("other-tool", "ELSEWHERE"),
        Probe(name="broken-tool", summary="b", parse=lambda t: ParseResult(), recognises=_broken),
    ]
    svc = service(*probes)
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste("MARK 1\n"))
    assert record.read_as == ("alpha-tool", "beta-tool", "zeta-tool")
    seen = {fact.name for fact in record.parse.facts}
    assert {"alpha-tool.seen", "beta-tool.seen", "zeta-tool.seen"} <= seen
    assert "gamma-tool.seen" not in seen and "delta-tool.seen" not in seen
    (observation,) = payloads(svc, case, "observation.recorded")
    assert observation["read_as"] == ["alpha-tool", "beta-tool", "zeta-tool"]


def test_a_paste_nccl_tests_and_nccl_debug_both_know_is_read_once_by_nccl_tests() -> None:
    log = (GOLDEN / "nccl" / "issues" / "003.txt").read_text(encoding="utf-8")
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste(log, ("mpirun", "./run.sh")))
    assert record.read_as == ("nccl-tests",)


def test_a_quoted_paste_under_command_is_read_as_the_plain_one() -> None:
    quoted = "".join("> " + line for line in DOWNGRADED.splitlines(True))
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste(quoted))
    assert record.read_as == ("lspci",)
    assert record.parse.values("pcie.link.downgraded") == {"unknown1": True}


def test_a_run_on_another_setup_is_read_but_judged_by_no_rule() -> None:
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste(DOWNGRADED), setup="old riser")
    assert record.read_as == ("lspci",) and record.evidence_ids == []


def test_rules_off_means_off_for_the_readers_too() -> None:
    svc = service()
    case = opened(svc)
    record = svc.probing.record_probe(case, command.PROBE, paste(DOWNGRADED), apply_rules=False)
    assert record.read_as == ("lspci",) and record.evidence_ids == []


def test_an_observation_recorded_before_read_as_existed_still_replays() -> None:
    svc = service()
    case = opened(svc)
    svc.probing.record_probe(case, command.PROBE, paste(DOWNGRADED))
    events = list(svc.reader.events(case))
    old = [
        replace(e, payload={k: v for k, v in e.payload.items() if k != "read_as"})
        if e.type == "observation.recorded"
        else e
        for e in events
    ]
    for event in old:
        if event.type == "observation.recorded":
            assert ObservationRecorded.model_validate(event.payload).read_as is None
    assert project(old).questions["throughput"].confidences == (
        project(events).questions["throughput"].confidences
    )


def test_a_command_no_probe_pattern_matched_is_offered_when_ingested() -> None:
    transcript = f"[bash] ./check_links.sh\n```\n{DOWNGRADED}```\n".encode()
    svc = service()
    case = opened(svc)
    proposal = svc.probing.propose_ingest(transcript, "markdown")
    (run,) = svc.probing.ingest(case, proposal)
    assert run.probe == "command" and run.read_as == ("lspci",) and run.parsed
    (observation,) = payloads(svc, case, "observation.recorded")
    assert observation["read_as"] == ["lspci"]
    assert payloads(svc, case, "evidence.assessed")
