"""Details: one event in full (raw output included) and why a hypothesis stands where it does."""

from __future__ import annotations

import math

import pytest

from casefile.app.views import (
    CATCH_ALL_TEXT,
    EventDetail,
    build_event_detail,
    build_hypothesis_detail,
)
from casefile.cli.render import render_event_detail, render_hypothesis_detail
from casefile.domain import commands
from casefile.domain.beliefs import project
from casefile.domain.beliefs.scoring import Contribution, contributions, prior_log_odds_bits
from casefile.domain.events import sha256_hex
from casefile.errors import DomainError
from tests.app.view_cases import StoreCase, reference_case, small_case

CSV = b"utilization.gpu [%], name\n97 %, NVIDIA RTX PRO 6000\n"
FACTS = [{"name": "utilization.gpu", "value": 97, "unit": "%", "subject": "gpu0"}]


def probe_case(*, keep_stdout: bool = True) -> tuple[StoreCase, int, int]:
    case = StoreCase()
    ran, seen = case.probe(
        CSV,
        stderr=b"warning: \xff not UTF-8\n",
        facts=FACTS,
        argv=("nvidia-smi", "--query-gpu=utilization.gpu,name", "--format", "csv, noheader"),
        keep_stdout=keep_stdout,
    )
    return case, ran.seq, seen.seq


def detail_of(case: StoreCase, seq: int) -> EventDetail:
    """The detail of event ``seq`` with every artifact the store holds for the case."""
    events = case.events
    digests = {
        digest
        for event in events
        for key in ("stdout_artifact", "stderr_artifact")
        if (digest := event.payload.get(key))
    }
    stored = {d: case.store.get_artifact(d) for d in digests if d != "f" * 64}
    return build_event_detail(events[seq - 1], project(events), stored)


def test_a_probe_runs_detail_shows_its_command_and_raw_output() -> None:
    case, run_seq, obs_seq = probe_case()
    view = detail_of(case, run_seq)
    run = view.probe_run
    assert run is not None and view.observation is None
    assert run.command == "nvidia-smi --query-gpu=utilization.gpu,name --format 'csv, noheader'"
    assert run.argv[-1] == "csv, noheader" and run.host == "gpu-box" and run.load == "under-load"
    assert run.exit_status == 0 and not run.timed_out and run.error is None
    assert run.observation_seq == obs_seq
    assert run.hash == case.events[run_seq - 1].hash
    assert run.stdout is not None and run.stdout.text == CSV.decode()
    assert run.stdout.digest == sha256_hex(CSV) and run.stdout.verified and not run.stdout.missing
    assert run.stderr is not None and run.stderr.text == "warning: \ufffd not UTF-8\n"
    text = render_event_detail(view)
    assert "  $ nvidia-smi --query-gpu=utilization.gpu,name --format 'csv, noheader'" in text
    assert "    │ 97 %, NVIDIA RTX PRO 6000" in text
    assert f"  stdout ({len(CSV)} bytes, sha256 {sha256_hex(CSV)}):" in text
    data = view.to_json()
    assert data["probe_run"]["stdout"]["text"] == CSV.decode()
    assert data["hash"] == case.events[run_seq - 1].hash
    assert data["prev_hash"] == case.events[run_seq - 2].hash


def test_a_missing_artifact_is_said_to_be_missing() -> None:
    case, run_seq, _ = probe_case(keep_stdout=False)
    run = detail_of(case, run_seq).probe_run
    assert run is not None and run.stdout is not None
    assert run.stdout.missing and run.stdout.text is None and run.stdout.verified is None
    text = render_event_detail(detail_of(case, run_seq))
    assert f"  stdout: artifact {'f' * 64} is missing" in text


def test_an_observations_detail_lists_its_facts_and_the_run_it_came_from() -> None:
    case, run_seq, obs_seq = probe_case()
    case.set_aside(obs_seq, ["sm-busy"])
    observation = detail_of(case, obs_seq).observation
    assert observation is not None and observation.run is not None
    assert observation.probe_run_seq == run_seq and observation.parsed
    assert [f.to_json() for f in observation.facts] == [
        {"subject": "gpu0", "name": "utilization.gpu", "value": 97, "unit": "%"}
    ]
    assert observation.run.stdout is not None and observation.run.stdout.text == CSV.decode()
    assert observation.set_aside_by == ("sm-busy",)
    text = render_event_detail(detail_of(case, obs_seq))
    assert "  gpu0             utilization.gpu                  97 %" in text
    assert "  set aside by: sm-busy" in text and "    │ 97 %, NVIDIA RTX PRO 6000" in text


def test_an_unparsed_observation_says_why() -> None:
    case = StoreCase()
    _, seen = case.probe(b"garbage\n", parsed=False)
    observation = detail_of(case, seen.seq).observation
    assert observation is not None
    assert not observation.parsed and observation.problems == ("no header line",)
    assert "  problem: no header line" in render_event_detail(detail_of(case, seen.seq))


def test_evidence_detail_has_its_likelihood_table_and_what_it_rests_on() -> None:
    events, artifacts = reference_case()
    projection = project(events)
    view = build_event_detail(events[28], projection, artifacts)  # seq 29, rule pcie-link-busy
    evidence = view.evidence
    assert evidence is not None and evidence.evidence_id == "e1"
    assert {r.hypothesis: r.likelihood for r in evidence.likelihoods} == events[28].payload[
        "likelihoods"
    ]
    assert evidence.otherwise == events[28].payload["otherwise"]
    assert (evidence.rule_id, evidence.rule_version, evidence.outcome) == (
        "pcie-link-busy",
        1,
        "idle",
    )
    assert (evidence.observation_seq, evidence.probe_run_seq) == (28, 27)
    assert evidence.artifact == events[26].payload["stdout_artifact"]
    assert evidence.question == "throughput" and evidence.superseded_by is None
    assert view.detail is not None and view.detail.startswith("PCIe throughput as a share")
    text = render_event_detail(view)
    assert "  P(E | pcie-bandwidth    ) = 0.01" in text
    assert f"  rests on: observation 28, probe run 27, raw output {evidence.artifact}" in text


def test_set_aside_detail_names_the_rule_and_why() -> None:
    events, artifacts = reference_case()
    view = build_event_detail(events[40], project(events), artifacts)  # seq 41
    aside = view.set_aside
    assert aside is not None
    assert (aside.observation_seq, aside.rule_id, aside.probe) == (
        40,
        "pcie-link-busy",
        "nvidia-smi-q",
    )
    assert aside.reason.startswith("taken at idle")
    assert "  why: taken at idle" in render_event_detail(view)


def test_note_detail_has_its_text_and_a_private_payload() -> None:
    case = small_case()
    events = case.events
    view = build_event_detail(events[7], project(events), {})
    assert view.text == "the link looks idle under load" and view.type == "note.added"
    view.to_json()["payload"]["text"] = "scribbled"
    assert view.payload["text"] == events[7].payload["text"] == "the link looks idle under load"


def made_up() -> list[Contribution]:
    return [
        Contribution("calc", 7, "q", "calculated", 0.6, 0.8, 0.5, 0.41, "by hand", "h7"),
        Contribution("pivot", 9, "q", "measured", 0.9, 0.02, 0.5, -2.5, "idle link", "h9"),
    ]


def test_hypothesis_detail_lists_what_moved_it_newest_first() -> None:
    projection = small_case().projection
    view = build_hypothesis_detail(
        projection, "bw", contributions=made_up(), prior_log_odds_bits=-1.2
    )
    assert (view.id, view.text, view.question, view.parent) == (
        "bw",
        "bandwidth saturated",
        "q",
        "pcie",
    )
    assert view.confidence == projection.questions["q"].confidences["bw"]
    assert view.prior == 0.6 and view.status == "open"
    assert [c.evidence for c in view.contributions] == ["pivot", "calc"]
    confidence = view.confidence
    assert view.log_odds_bits == pytest.approx(math.log2(confidence / (1 - confidence)))
    data = view.to_json()
    assert data["contributions"][0] == {
        "evidence": "pivot", "seq": 9, "question": "q", "kind": "measured", "reliability": 0.9,
        "likelihood": 0.02, "otherwise": 0.5, "bits": -2.5, "rationale": "idle link", "hash": "h9",
    }  # fmt: skip
    text = render_hypothesis_detail(view)
    assert text.splitlines()[0] == "bw: bandwidth saturated  [q, under pcie]"
    assert (
        "   -2.500  pivot (seq 9, measured, r=0.9, P(E|h)=0.02, otherwise 0.5): idle link" in text
    )


def test_hypothesis_detail_from_the_domains_own_scoring() -> None:
    case = small_case()
    case.append(commands.retire_hypothesis(case.projection, "lat", "P2P works"))
    projection = case.projection
    view = build_hypothesis_detail(
        projection,
        "pcie",
        contributions=contributions(projection, "pcie"),
        prior_log_odds_bits=prior_log_odds_bits(projection, "pcie"),
    )
    assert [c.evidence for c in view.contributions] == ["pivot", "calc"]
    assert [c.hash for c in view.contributions] == [case.events[8].hash, case.events[6].hash]
    assert view.contributions[0].bits < 0 < view.contributions[1].bits  # pivot against, calc for
    retired = build_hypothesis_detail(
        projection,
        "lat",
        contributions=contributions(projection, "lat"),
        prior_log_odds_bits=prior_log_odds_bits(projection, "lat"),
    )
    assert retired.status == "retired" and retired.retired_reason == "P2P works"
    data = retired.to_json()
    assert data["prior_log_odds_bits"] is None and data["log_odds_bits"] is None  # -inf
    assert "log-odds: prior -inf bits, now -inf bits" in render_hypothesis_detail(retired)


def test_hypothesis_detail_of_the_catch_all_and_of_an_unknown_id() -> None:
    projection = small_case().projection
    view = build_hypothesis_detail(
        projection, "q/catch-all", contributions=(), prior_log_odds_bits=0
    )
    assert view.text == CATCH_ALL_TEXT and view.parent is None
    assert view.prior == pytest.approx(0.1) and view.contributions == ()
    with pytest.raises(DomainError, match="no hypothesis 'nope'"):
        build_hypothesis_detail(projection, "nope", contributions=(), prior_log_odds_bits=0)


def test_a_probe_recorded_through_the_service_shows_its_raw_output() -> None:
    from casefile_probes.command import PROBE

    from casefile.app.service import CaseService
    from casefile.plugins import Registry
    from casefile.probes.runners.result import RunResult
    from casefile.store.memory import MemoryEventStore

    store = MemoryEventStore()
    service = CaseService(store, Registry.of(probes=[PROBE]))
    case_id = service.writer.new_case("Probe through the service")
    result = RunResult(
        argv=("printf", "%s\n", "hello world"),
        host="box",
        exit_status=0,
        stdout="hello world\n",
        stderr="",
        started_at="2026-01-01T00:00:00.000000Z",
        finished_at="2026-01-01T00:00:01.000000Z",
        duration_s=1.0,
    )
    record = service.probing.record_probe(case_id, PROBE, result, load="idle")
    events = store.load(case_id)
    run = events[record.probe_run_seq - 1]
    digest = run.payload["stdout_artifact"]
    view = build_event_detail(run, project(events), store.artifact_digests({digest}))
    assert view.probe_run is not None and view.probe_run.stdout is not None
    assert view.probe_run.stdout.text == "hello world\n" and view.probe_run.stdout.verified
    assert view.probe_run.command == "printf '%s\n' 'hello world'"
    assert view.probe_run.observation_seq == record.observation_seq
    assert "    │ hello world" in render_event_detail(view)
