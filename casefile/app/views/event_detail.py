"""Everything about one event, for the TUI's detail pane and the report's appendix.

The envelope (seq, times, actor, hash chain) and payload of any event, plus what the event
means in the case: a probe run's command and raw output, an observation's facts and the run
they came from, the likelihood table behind a piece of evidence and what it rests on, the rule
and reason that set a reading aside.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from casefile.app.views.names import names_table
from casefile.app.views.probe_detail import (
    ObservationDetail,
    ProbeRunDetail,
    observation_detail,
    probe_run_detail,
)
from casefile.app.views.summaries import detail, own_text, summarise
from casefile.domain.beliefs import Projection
from casefile.domain.event_types.evidence import EvidenceAssessed, ReadingSetAside
from casefile.domain.event_types.stored import StoredObservation, StoredRun
from casefile.domain.events import Event


@dataclass(frozen=True, slots=True)
class LikelihoodRow:
    hypothesis: str
    text: str
    likelihood: float  # P(E | h) as recorded, before tempering by reliability

    def to_json(self) -> dict[str, Any]:
        return {"hypothesis": self.hypothesis, "text": self.text, "likelihood": self.likelihood}


@dataclass(frozen=True, slots=True)
class EvidenceDetail:
    evidence_id: str
    question: str | None
    likelihoods: tuple[LikelihoodRow, ...]
    otherwise: float  # P(E | any hypothesis not named)
    kind: str
    reliability: float
    rule_id: str | None
    rule_version: int | None
    rationale: str
    outcome: str | None
    statistic: float | str | None
    supersedes: str | None
    superseded_by: str | None
    observation_seq: int | None
    probe_run_seq: int | None
    artifact: str | None  # digest of the raw output it rests on

    def to_json(self) -> dict[str, Any]:
        return {
            "evidence": self.evidence_id,
            "question": self.question,
            "likelihoods": [row.to_json() for row in self.likelihoods],
            "otherwise": self.otherwise,
            "kind": self.kind,
            "reliability": self.reliability,
            "rule": self.rule_id,
            "rule_version": self.rule_version,
            "rationale": self.rationale,
            "outcome": self.outcome,
            "statistic": self.statistic,
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "observation_seq": self.observation_seq,
            "probe_run_seq": self.probe_run_seq,
            "artifact": self.artifact,
        }


@dataclass(frozen=True, slots=True)
class SetAsideDetail:
    observation_seq: int
    probe: str | None
    rule_id: str
    rule_version: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "observation_seq": self.observation_seq,
            "probe": self.probe,
            "rule": self.rule_id,
            "rule_version": self.rule_version,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class EventDetail:
    seq: int
    type: str
    version: int
    actor: str
    recorded_at: str
    occurred_at: str | None
    when: str
    hash: str
    prev_hash: str
    summary: str
    detail: str | None  # a rule's rationale or a probe's note
    text: str | None  # a note's or an action's own words
    outcome: str | None  # an action's outcome
    payload: Mapping[str, Any]  # a private deep copy of the stored payload
    probe_run: ProbeRunDetail | None
    observation: ObservationDetail | None
    evidence: EvidenceDetail | None
    set_aside: SetAsideDetail | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "type": self.type,
            "version": self.version,
            "actor": self.actor,
            "recorded_at": self.recorded_at,
            "occurred_at": self.occurred_at,
            "when": self.when,
            "hash": self.hash,
            "prev_hash": self.prev_hash,
            "summary": self.summary,
            "detail": self.detail,
            "text": self.text,
            "outcome": self.outcome,
            "payload": copy.deepcopy(dict(self.payload)),
            "probe_run": None if self.probe_run is None else self.probe_run.to_json(),
            "observation": None if self.observation is None else self.observation.to_json(),
            "evidence": None if self.evidence is None else self.evidence.to_json(),
            "set_aside": None if self.set_aside is None else self.set_aside.to_json(),
        }


def build_event_detail(
    event: Event, projection: Projection, artifacts: Mapping[str, bytes]
) -> EventDetail:
    """The detail of ``event``; ``projection`` is the case folded at least up to it, and
    ``artifacts`` the raw outputs the caller could read (digest → bytes; any may be absent)."""
    is_run = event.type == "probe.ran"
    is_observation = event.type == "observation.recorded"
    text, outcome = own_text(event)
    return EventDetail(
        seq=event.seq,
        type=event.type,
        version=event.version,
        actor=event.actor,
        recorded_at=event.recorded_at,
        occurred_at=event.occurred_at,
        when=event.when,
        hash=event.hash,
        prev_hash=event.prev_hash,
        summary=summarise(event),
        detail=detail(event),
        text=text,
        outcome=outcome,
        payload=copy.deepcopy(event.payload),
        probe_run=probe_run_detail(projection, event.seq, artifacts) if is_run else None,
        observation=(
            observation_detail(projection, event.seq, artifacts) if is_observation else None
        ),
        evidence=_evidence(event, projection) if event.type == "evidence.assessed" else None,
        set_aside=_set_aside(event, projection) if event.type == "reading.set_aside" else None,
    )


def _evidence(event: Event, projection: Projection) -> EvidenceDetail:
    p = EvidenceAssessed.of(event.payload)
    state = projection.evidence.get(p.evidence_id)
    names = names_table(projection)
    rule = p.rule
    observation_seq = p.observation_seq
    run_seq = p.probe_run_seq
    if run_seq is None and observation_seq is not None:
        observation = projection.observations.get(observation_seq)
        if observation is not None:
            run_seq = StoredObservation(observation).probe_run_seq
    run = projection.probe_runs.get(run_seq) if run_seq is not None else None
    return EvidenceDetail(
        evidence_id=p.evidence_id,
        question=p.question_id or (state.question_id if state else None),
        likelihoods=tuple(
            LikelihoodRow(hid, names.get(hid, hid), value) for hid, value in p.likelihoods.items()
        ),
        otherwise=p.otherwise,
        kind=p.kind,
        reliability=p.reliability,
        rule_id=None if rule is None else rule.id,
        rule_version=None if rule is None else rule.version,
        rationale=p.rationale,
        outcome=p.outcome,
        statistic=p.statistic,
        supersedes=p.supersedes,
        superseded_by=state.superseded_by if state else None,
        observation_seq=observation_seq,
        probe_run_seq=run_seq,
        artifact=None if run is None else StoredRun(run).stdout_artifact,
    )


def _set_aside(event: Event, projection: Projection) -> SetAsideDetail:
    p = ReadingSetAside.of(event.payload)
    observation = projection.observations.get(p.observation_seq)
    return SetAsideDetail(
        observation_seq=p.observation_seq,
        probe=None if observation is None else StoredObservation(observation).probe,
        rule_id=p.rule.id,
        rule_version=p.rule.version,
        reason=p.reason,
    )
