"""The typed event catalogue: every event type casefile writes, with its schema.

Each type has a stable name (``hypothesis.proposed``), never a Python import path, and a
schema version. Payloads are validated when an event is appended or imported; an invalid one
is refused with a message naming the field. Applying an event in a projection only reads
these stored values: no logic that could change later runs again on replay.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from casefile.domain.upcasters import upcast
from casefile.errors import InvalidEvent

EvidenceKind = Literal["measured", "calculated", "reported", "assumed"]
LoadState = Literal["idle", "under-load", "unknown"]


class Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CaseOpened(Payload):
    title: str = Field(min_length=1)
    symptom: str | None = None
    environment: dict[str, str] = Field(default_factory=dict)


class TranscriptRef(Payload):
    """Where in an ingested transcript (the event's ``transcript_artifact``) an event came
    from; absent, with that field, on events that did not come from one, so their payloads hash
    as they always did."""

    offset: int = Field(ge=0)
    length: int = Field(ge=0)
    format: str = Field(min_length=1)
    #: the pipeline stages that filtered the command's output (``grep -i pcie | head -80``)
    filter: str | None = None
    #: the kinds of secret scrubbed before sealing (``Authorization header`` …)
    scrubbed: list[str] | None = Field(default=None, min_length=1)


class NoteAdded(Payload):
    text: str = Field(min_length=1)
    transcript_artifact: str | None = None
    transcript: TranscriptRef | None = None


class QuestionProposed(Payload):
    question_id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    catch_all: float = Field(default=0.1, gt=0.0, lt=1.0)
    playbook: str | None = None


class Requirement(Payload):
    """What a hypothesis needs the case to state: the intake question's answer among these."""

    intake: str = Field(min_length=1)
    answers: list[str] = Field(min_length=1)


class HypothesisProposed(Payload):
    hypothesis_id: str = Field(min_length=1)
    question_id: str = Field(min_length=1)
    parent_id: str | None = None
    text: str = Field(min_length=1)
    prior: float = Field(gt=0.0, le=1.0)
    meaning: str | None = None
    #: structure before statistics: answers that contradict one leave it without mass
    requires: list[Requirement] | None = None


class HypothesisRefined(Payload):
    hypothesis_id: str
    text: str = Field(min_length=1)
    reason: str | None = None


class HypothesisRetired(Payload):
    hypothesis_id: str
    reason: str = Field(min_length=1)


class HypothesisReinstated(Payload):
    hypothesis_id: str
    reason: str | None = None


class PriorsRebalanced(Payload):
    """New priors for hypotheses of one question (absolute at the top, shares below), so that
    another hypothesis fits or a prior is corrected; ``forced`` when evidence had arrived."""

    question_id: str = Field(min_length=1)
    priors: dict[str, Annotated[float, Field(gt=0.0, le=1.0)]] = Field(min_length=1)
    reason: str | None = None
    forced: bool = False


class Conditions(Payload):
    load: LoadState = "unknown"
    host: str | None = None
    detail: str | None = None
    #: set when the run was taken on another setup than the one under investigation (the old
    #: version, the fixed machine, an experiment's variant): it is kept to compare, and the rules
    #: do not read it as the case's state. Absent otherwise, so earlier runs hash as they did.
    setup: str | None = Field(default=None, min_length=1, max_length=200)


class StreamTruncation(Payload):
    """One output stream the runner cut to its head and tail: it printed ``total_bytes``, and the
    artifact holds exactly the first ``head_bytes`` followed by the last ``tail_bytes``."""

    stream: Literal["stdout", "stderr"]
    total_bytes: int = Field(ge=0)
    head_bytes: int = Field(ge=0)
    tail_bytes: int = Field(ge=0)

    @model_validator(mode="after")
    def _kept_within_printed(self) -> StreamTruncation:
        if self.head_bytes + self.tail_bytes > self.total_bytes:
            raise ValueError("head_bytes + tail_bytes exceed total_bytes")
        return self


class ProbeRan(Payload):
    """A probe ran (or its output was pasted); raw output lives in artifacts.

    ``truncated`` names each stream that printed more than the runner keeps; it is absent (not
    written at all) when the whole output was kept, so runs recorded before it existed, and
    every run that printed little, hash as they always did.
    """

    probe: str
    argv: list[str]
    host: str
    source: Literal["local", "ssh", "pasted", "sampler"]
    exit_status: int | None = None
    timed_out: bool = False
    started_at: str | None = None
    finished_at: str | None = None
    duration_s: float | None = None
    stdout_artifact: str | None = None
    stderr_artifact: str | None = None
    error: str | None = None
    #: the runner's tag for ``error`` (``not_found``, ``dns``, ``host_key_unknown`` …)
    error_kind: str | None = None
    conditions: Conditions = Field(default_factory=Conditions)
    reconstructed: bool = False
    note: str | None = None
    truncated: list[StreamTruncation] | None = Field(default=None, min_length=1)
    #: the ingested transcript this run was read from, and where in it (``casefile ingest``)
    transcript_artifact: str | None = None
    transcript: TranscriptRef | None = None


class FactRecord(Payload):
    name: str
    value: float | int | str | bool
    unit: str | None = None
    subject: str = "host"


class ObservationRecorded(Payload):
    """Facts parsed from one probe run, under the conditions it was taken."""

    probe_run_seq: int = Field(ge=1)
    probe: str
    facts: list[FactRecord]
    parsed: bool = True
    problems: list[str] = Field(default_factory=list)
    conditions: Conditions = Field(default_factory=Conditions)
    #: the probes, other than ``probe``, whose parsers read the output (a paste recorded under
    #: ``command``, say, that a profiler's parser recognised); their facts are among ``facts``.
    #: Absent when none did, so observations recorded before it existed hash as they did.
    read_as: list[str] | None = Field(default=None, min_length=1)


class RuleRef(Payload):
    id: str
    version: int


class IntakeRef(Payload):
    """The intake answer an evidence event came from: which question, what was answered, and
    whether a person answered it or the case's own records did."""

    id: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    source: Literal["answered", "environment", "observation"] = "answered"
    basis: str | None = None


class ExperimentRecorded(Payload):
    """Two runs of one benchmark that differ in one stated change, and what each measured; or
    (``stated``) the outcome a person gives in words, with no figures at all.

    ``speedup`` is how much better the variant did (above 1 is better, whichever way the
    metric runs), stored so that replay never recomputes it. It is absent, with
    ``higher_is_better``, when nothing said which way is better (a unit that is neither a
    duration nor a rate): the figures are kept and no rule reads them."""

    experiment_id: str = Field(min_length=1)
    change: str = Field(min_length=1)
    #: the two probe runs compared; absent on a reported experiment (figures a person gives)
    baseline_seq: int | None = Field(default=None, ge=1)
    variant_seq: int | None = Field(default=None, ge=1)
    #: the benchmark; required with figures, optional with a stated outcome
    probe: str | None = Field(default=None, min_length=1)
    metric: str | None = Field(default=None, min_length=1)
    baseline_value: float | None = Field(default=None, gt=0.0)
    variant_value: float | None = Field(default=None, gt=0.0)
    speedup: float | None = Field(default=None, gt=0.0)
    #: every experiment written before directions could stay unsaid states it
    higher_is_better: bool | None = None
    unit: str | None = None
    note: str | None = None
    #: true for figures stated rather than measured here ("27 GB/s before, 48 after")
    reported: bool | None = None
    #: the outcome in words ("fixed by that setting", "no slowdown since"), with no figures
    stated: Literal["fixed", "better", "same", "worse"] | None = None
    #: the hypotheses the person named it a test of (``--tests``): read by the generic table
    tests: list[Annotated[str, Field(min_length=1)]] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _runs_or_reported(self) -> ExperimentRecorded:
        if (self.speedup is None) != (self.higher_is_better is None):
            raise ValueError("a speedup needs the direction it was taken in, and only then")
        figures = (self.metric, self.baseline_value, self.variant_value, self.speedup)
        if self.stated is not None:
            if not self.reported or any(f is not None for f in figures):
                raise ValueError("an outcome stated in words is reported, with no figures")
        elif self.probe is None or any(f is None for f in figures[:3]):
            raise ValueError("an experiment needs its probe, metric and both figures")
        if self.reported:
            if self.baseline_seq is not None or self.variant_seq is not None:
                raise ValueError("a reported experiment names no runs")
        elif self.baseline_seq is None or self.variant_seq is None:
            raise ValueError("an experiment needs its baseline_seq and variant_seq")
        return self


class EvidenceAssessed(Payload):
    """How likely an observation is under each hypothesis; stores the numbers it applied."""

    evidence_id: str = Field(min_length=1)
    question_id: str | None = None
    likelihoods: dict[str, Annotated[float, Field(gt=0.0, le=1.0)]] = Field(min_length=1)
    otherwise: float = Field(default=0.5, gt=0.0, le=1.0)
    kind: EvidenceKind = "measured"
    reliability: float = Field(ge=0.0, le=1.0)
    rationale: str = Field(min_length=1)
    probe_run_seq: int | None = None
    observation_seq: int | None = None
    rule: RuleRef | None = None
    outcome: str | None = None
    statistic: float | str | None = None
    supersedes: str | None = None
    #: the intake answer this evidence is (``casefile intake``); absent otherwise
    intake: IntakeRef | None = None
    #: the experiment this evidence reads (``casefile experiment``); absent otherwise
    experiment_id: str | None = None


class ReadingSetAside(Payload):
    """An observation a rule could not use, and why (e.g. taken at idle, rule needs load)."""

    observation_seq: int = Field(ge=1)
    rule: RuleRef
    reason: str


class ActionTaken(Payload):
    text: str = Field(min_length=1)
    outcome: str | None = None


class CaseConcluded(Payload):
    summary: str = Field(min_length=1)
    root_cause: str | None = None
    recommendations: list[str] = Field(default_factory=list)
    lessons: list[str] = Field(default_factory=list)


CATALOGUE: dict[str, tuple[int, type[Payload]]] = {
    "case.opened": (1, CaseOpened),
    "note.added": (1, NoteAdded),
    "question.proposed": (1, QuestionProposed),
    "hypothesis.proposed": (1, HypothesisProposed),
    "hypothesis.refined": (1, HypothesisRefined),
    "hypothesis.retired": (1, HypothesisRetired),
    "hypothesis.reinstated": (1, HypothesisReinstated),
    "priors.rebalanced": (1, PriorsRebalanced),
    "probe.ran": (1, ProbeRan),
    "observation.recorded": (1, ObservationRecorded),
    "evidence.assessed": (1, EvidenceAssessed),
    "reading.set_aside": (1, ReadingSetAside),
    "action.taken": (1, ActionTaken),
    "case.concluded": (1, CaseConcluded),
    "experiment.recorded": (1, ExperimentRecorded),
}


#: Each event type's current version: what the fold reads every stored event as.
CURRENT_VERSIONS: dict[str, int] = {name: version for name, (version, _) in CATALOGUE.items()}


def validate_payload(event_type: str, version: int, payload: Any) -> dict[str, Any]:
    """Validate a payload and return it in normal form (defaults filled in, JSON-ready).

    A payload of an older version is validated as it reads today (through the upcasters of
    :mod:`casefile.domain.upcasters`) and returned as written: normal form is defined for the
    current version only, and its hash covers it as written. A newer version is refused.
    Raises :class:`InvalidEvent` naming the event type and the first offending field.
    """
    entry = CATALOGUE.get(event_type)
    if entry is None:
        known = ", ".join(sorted(CATALOGUE))
        raise InvalidEvent(f"unknown event type {event_type!r} (known: {known})")
    current_version, model = entry
    if not isinstance(payload, dict):
        raise InvalidEvent(f"{event_type}: payload must be a JSON object")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidEvent(f"{event_type}: version {version!r} is not a number")
    if version != current_version:
        validate_payload(
            event_type, current_version, upcast(event_type, version, current_version, payload)
        )
        return payload
    try:
        parsed = model.model_validate(payload)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "payload"
        raise InvalidEvent(f"{event_type}: field {where!r}: {first['msg']}") from None
    return parsed.model_dump(mode="json", exclude_none=True)


def parse_payload(event_type: str, payload: dict[str, Any]) -> Payload:
    """The typed view of a stored payload (for code that prefers attributes to keys)."""
    _, model = CATALOGUE[event_type]
    return model.model_validate(payload)
