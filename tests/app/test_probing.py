"""Probe requests: where a probe runs, for how long, and what a failure says."""

from __future__ import annotations

import threading
import time

import pytest

from casefile.app.probing import (
    CancelToken,
    Here,
    Local,
    Pasted,
    ProbeRequest,
    Sample,
    Ssh,
    collect,
    failure_reason,
    settled_where,
)
from casefile.app.service import CaseService
from casefile.domain.facts import ParseResult
from casefile.errors import RunnerError, StoreError
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.probes.runners.result import RunResult
from casefile.store.memory import MemoryEventStore


def parse_anything(text: str) -> ParseResult:
    return ParseResult(facts=[], parsed=bool(text), problems=[])


SLOW = Probe(
    name="slow",
    summary="declares a short timeout",
    parse=parse_anything,
    argv=("sleep", "30"),
    timeout_s=0.5,
)
SAMPLER = Probe(
    name="sampler-only",
    summary="an in-process sampler",
    parse=parse_anything,
    where=frozenset({"sampler"}),
    sampler=lambda window: f"sampled {window:g}s\n",
)


def test_the_probes_declared_timeout_is_used_when_the_request_gives_none() -> None:
    started = time.monotonic()
    (result,) = collect(SLOW, ProbeRequest("slow"))
    elapsed = time.monotonic() - started
    assert result.timed_out
    assert elapsed < 10  # 0.5 s declared; 30 s if the declaration were ignored
    assert failure_reason(result) is not None and "timed out" in str(failure_reason(result))


def test_a_timeout_in_the_request_overrides_the_declared_one() -> None:
    probe = Probe(name="p", summary="", parse=parse_anything, argv=("sleep", "2"), timeout_s=0.2)
    (result,) = collect(probe, ProbeRequest("p", timeout_s=20))
    assert not result.timed_out and result.exit_status == 0


def test_a_sampler_only_probe_is_not_sent_over_ssh_or_run_as_a_command() -> None:
    with pytest.raises(RunnerError, match="cannot run ssh"):
        list(collect(SAMPLER, ProbeRequest("sampler-only", Ssh(("box",)), argv=("x",))))
    with pytest.raises(RunnerError, match="cannot run local"):
        list(collect(SAMPLER, ProbeRequest("sampler-only", Local(), argv=("x",))))
    assert settled_where(SAMPLER, Here(), ()) == Sample()
    assert settled_where(SAMPLER, Here(0.5), ("x",)) == Local()
    (sampled,) = collect(SAMPLER, ProbeRequest("sampler-only", Sample(0.25)))
    assert sampled.source == "sampler" and sampled.stdout == "sampled 0.25s\n"
    # what a front end asks for with no host and nothing pasted: the probe's sampler, for the
    # window given, decided in one place for the CLI and the TUI alike
    (here,) = collect(SAMPLER, ProbeRequest("sampler-only", Here(0.25)))
    assert here.source == "sampler" and here.stdout == "sampled 0.25s\n"


def test_pasted_output_needs_the_command_that_printed_it() -> None:
    with pytest.raises(RunnerError, match="which command"):
        list(collect(SAMPLER, ProbeRequest("sampler-only", Pasted(text="x"))))
    (pasted,) = collect(
        SLOW,
        ProbeRequest(
            "slow", Pasted(text="out", host="gpu-1", taken_at="2026-01-01T00:00:00.000000Z")
        ),
    )
    assert (pasted.host, pasted.source, pasted.started_at) == (
        "gpu-1",
        "pasted",
        "2026-01-01T00:00:00.000000Z",
    )


def test_an_unknown_load_condition_is_refused() -> None:
    with pytest.raises(RunnerError, match="load"):
        ProbeRequest("slow", load="busy")


def test_advice_is_keyed_by_the_failure_kind_not_read_from_the_message() -> None:
    result = RunResult(
        argv=("true",),
        host="box",
        exit_status=None,
        stdout="",
        stderr="",
        started_at="2026-01-01T00:00:00.000000Z",
        finished_at="2026-01-01T00:00:00.000000Z",
        duration_s=0.1,
        error="host key for box is not trusted: ssh-ed25519 SHA256:x is not in ~/.ssh/known_hosts",
        error_kind="host_key_unknown",
        source="ssh",
    )
    assert "trust the key" in str(failure_reason(result))


def test_the_service_records_each_run_with_the_reason_it_failed() -> None:
    service = CaseService(MemoryEventStore(), Registry.of(probes=[SLOW]))
    case = service.writer.new_case("t")
    (record,) = service.probing.run_probe(case, ProbeRequest("slow"))
    assert record.result.timed_out and record.failure is not None
    assert record.seqs == (record.probe_run_seq, record.observation_seq)
    ran = service.reader.events(case)[record.probe_run_seq - 1]
    assert ran.type == "probe.ran" and ran.payload["timed_out"] is True


class RefusingArtifacts(MemoryEventStore):
    """A store that cannot keep blobs (a full disk, a blob over the database's limit)."""

    def put_artifact(self, data: bytes) -> str:
        raise StoreError("string or blob too big")


def test_a_run_whose_output_cannot_be_stored_is_recorded_as_a_failed_run() -> None:
    probe = Probe(name="p", summary="", parse=parse_anything, argv=("echo", "hi"))
    service = CaseService(RefusingArtifacts(), Registry.of(probes=[probe]))
    case = service.writer.new_case("t")
    (record,) = service.probing.run_probe(case, ProbeRequest("p"))
    assert record.failure is not None and "could not be stored" in record.failure
    assert record.result.error_kind == "artifact"
    ran = service.reader.events(case)[record.probe_run_seq - 1]
    assert ran.type == "probe.ran"
    assert "string or blob too big" in ran.payload["error"]
    assert "stdout_artifact" not in ran.payload


def test_the_exact_bytes_are_stored_not_the_decoded_text() -> None:
    probe = Probe(name="p", summary="", parse=parse_anything, argv=("printf", "\\377ok"))
    store = MemoryEventStore()
    service = CaseService(store, Registry.of(probes=[probe]))
    case = service.writer.new_case("t")
    (record,) = service.probing.run_probe(case, ProbeRequest("p"))
    assert record.result.stdout == "\ufffdok"
    ran = service.reader.events(case)[record.probe_run_seq - 1]
    assert store.get_artifact(ran.payload["stdout_artifact"]) == b"\xffok"


def test_a_cancelled_request_records_the_run_as_cancelled() -> None:
    probe = Probe(name="p", summary="", parse=parse_anything, argv=("sleep", "30"))
    service = CaseService(MemoryEventStore(), Registry.of(probes=[probe]))
    case = service.writer.new_case("t")
    token = CancelToken()
    cancelled_at: list[float] = []

    def cancel() -> None:
        cancelled_at.append(time.monotonic())
        token.cancel("test")

    threading.Timer(0.2, cancel).start()
    (record,) = service.probing.run_probe(case, ProbeRequest("p"), cancel=token)
    assert time.monotonic() - cancelled_at[0] < 1.0  # a second from the cancel, not the 30 s
    assert record.result.cancelled and record.failure is not None
    assert "cancelled (test)" in record.failure
    ran = service.reader.events(case)[record.probe_run_seq - 1]
    assert "cancelled (test)" in ran.payload["error"]
