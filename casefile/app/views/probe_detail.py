"""A probe run and the observation made from it, as a detail pane or a report shows them.

The raw output is the evidence behind the evidence: the run's stdout and stderr are decoded
from the artifacts the caller passes in (UTF-8, undecodable bytes replaced), checked against
their digests, and a missing artifact is said to be missing rather than shown as empty. A
stream the runner cut to its head and tail says so, with what it printed and what was kept.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from casefile.domain.beliefs import Projection
from casefile.domain.event_types.stored import StoredObservation, StoredRun, StoredSetAside
from casefile.domain.events import sha256_hex
from casefile.probes.runners.result import Truncation


@dataclass(frozen=True, slots=True)
class RawOutput:
    """One stream of a run's raw output; ``text`` is None when the artifact is missing."""

    stream: str  # "stdout" or "stderr"
    digest: str
    text: str | None
    size: int | None
    missing: bool
    verified: bool | None  # the bytes hash to ``digest``; None when missing

    def to_json(self) -> dict[str, Any]:
        return {
            "stream": self.stream,
            "digest": self.digest,
            "text": self.text,
            "size": self.size,
            "missing": self.missing,
            "verified": self.verified,
        }


def raw_output(stream: str, digest: str | None, artifacts: Mapping[str, bytes]) -> RawOutput | None:
    if digest is None:
        return None
    data = artifacts.get(digest)
    if data is None:
        return RawOutput(stream, digest, None, None, True, None)
    text = data.decode("utf-8", errors="replace")
    return RawOutput(stream, digest, text, len(data), False, sha256_hex(data) == digest)


@dataclass(frozen=True, slots=True)
class ProbeRunDetail:
    seq: int
    hash: str | None  # of the probe.ran event
    probe: str
    argv: tuple[str, ...]
    command: str  # argv as a shell would need it typed (shlex.join)
    host: str
    source: str
    load: str
    conditions: Mapping[str, Any]
    exit_status: int | None
    timed_out: bool
    error: str | None
    started_at: str | None
    finished_at: str | None
    duration_s: float | None
    reconstructed: bool
    note: str | None
    stdout: RawOutput | None
    stderr: RawOutput | None
    observation_seq: int | None  # the observation recorded from this run
    #: each stream the runner cut to its head and tail (empty: the whole output was kept)
    truncated: tuple[Truncation, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "hash": self.hash,
            "probe": self.probe,
            "argv": list(self.argv),
            "command": self.command,
            "host": self.host,
            "source": self.source,
            "load": self.load,
            "conditions": dict(self.conditions),
            "exit_status": self.exit_status,
            "timed_out": self.timed_out,
            "error": self.error,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "duration_s": self.duration_s,
            "reconstructed": self.reconstructed,
            "note": self.note,
            "stdout": None if self.stdout is None else self.stdout.to_json(),
            "stderr": None if self.stderr is None else self.stderr.to_json(),
            "observation_seq": self.observation_seq,
            "truncated": [cut.to_dict() for cut in self.truncated],
        }


def probe_run_detail(
    projection: Projection, seq: int, artifacts: Mapping[str, bytes]
) -> ProbeRunDetail | None:
    """The probe run recorded at ``seq``, or None if ``seq`` is not a probe run."""
    stored = projection.probe_runs.get(seq)
    if stored is None:
        return None
    p = StoredRun(stored)
    argv = p.argv
    return ProbeRunDetail(
        seq=seq,
        hash=projection.probe_run_hashes.get(seq),
        probe=p.probe,
        argv=argv,
        # a stated reading ran nothing: say so where a command would be shown
        command="(stated, not run)" if p.source == "stated" else shlex.join(argv),
        host=p.host,
        source=p.source,
        load=p.load,
        conditions=dict(p.conditions),
        exit_status=p.exit_status,
        timed_out=p.timed_out,
        error=p.error,
        started_at=p.started_at,
        finished_at=p.finished_at,
        duration_s=p.duration_s,
        reconstructed=p.reconstructed,
        note=p.note,
        stdout=raw_output("stdout", p.stdout_artifact, artifacts),
        stderr=raw_output("stderr", p.stderr_artifact, artifacts),
        observation_seq=_observation_of(projection, seq),
        truncated=tuple(
            Truncation(cut.stream, cut.total_bytes, cut.head_bytes, cut.tail_bytes)
            for cut in p.truncated
        ),
    )


def _observation_of(projection: Projection, run_seq: int) -> int | None:
    observations = projection.observations
    following = observations.get(run_seq + 1)  # where the service always puts it
    if following is not None and StoredObservation(following).probe_run_seq == run_seq:
        return run_seq + 1
    return next(
        (s for s, o in observations.items() if StoredObservation(o).probe_run_seq == run_seq),
        None,
    )


@dataclass(frozen=True, slots=True)
class FactRow:
    subject: str
    name: str
    value: float | int | str | bool
    unit: str | None

    def to_json(self) -> dict[str, Any]:
        return {"subject": self.subject, "name": self.name, "value": self.value, "unit": self.unit}


@dataclass(frozen=True, slots=True)
class ObservationDetail:
    seq: int
    probe: str
    probe_run_seq: int
    parsed: bool
    problems: tuple[str, ...]
    load: str
    facts: tuple[FactRow, ...]
    run: ProbeRunDetail | None  # the run it was parsed from, raw output included
    evidence_ids: tuple[str, ...]  # evidence drawn from it
    set_aside_by: tuple[str, ...]  # rules that set it aside

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "probe": self.probe,
            "probe_run_seq": self.probe_run_seq,
            "parsed": self.parsed,
            "problems": list(self.problems),
            "load": self.load,
            "facts": [f.to_json() for f in self.facts],
            "run": None if self.run is None else self.run.to_json(),
            "evidence_ids": list(self.evidence_ids),
            "set_aside_by": list(self.set_aside_by),
        }


def observation_detail(
    projection: Projection, seq: int, artifacts: Mapping[str, bytes]
) -> ObservationDetail | None:
    """The observation recorded at ``seq``, or None if ``seq`` is not an observation."""
    stored = projection.observations.get(seq)
    if stored is None:
        return None
    p = StoredObservation(stored)
    run_seq = p.probe_run_seq
    set_asides = (StoredSetAside(record) for record in projection.set_asides)
    return ObservationDetail(
        seq=seq,
        probe=p.probe,
        probe_run_seq=run_seq,
        parsed=p.parsed,
        problems=p.problems,
        load=p.load,
        facts=tuple(FactRow(f.subject, f.name, f.value, f.unit) for f in p.facts),
        run=probe_run_detail(projection, run_seq, artifacts),
        evidence_ids=tuple(e.id for e in projection.evidence.values() if e.observation_seq == seq),
        set_aside_by=tuple(r.rule.id for r in set_asides if r.observation_seq == seq),
    )
