"""The report as plain data: what each section claims, and the events each claim rests on.

Every claim carries :class:`Ref` values (``seq@hash``) rather than text that merely mentions an
event, so the renderers write the same notation everywhere and ``report verify`` can check
each one against the case. The model is built once (``build``), redacted as a whole
(``redact``) and then rendered per format; nothing in it refers back into the fold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from casefile.report.postmortem_model import Lesson, Moment, Postmortem

#: How many hex digits of an event's hash a reference shows (the notation used everywhere).
HASH_DIGITS = 12


@dataclass(frozen=True, slots=True)
class Ref:
    """One event a claim rests on: its seq and its full hash (shown shortened)."""

    seq: int
    hash: str

    @property
    def label(self) -> str:
        return f"{self.seq}@{self.hash[:HASH_DIGITS]}"

    @property
    def anchor(self) -> str:
        """The id of the event's row in the HTML timeline (links point at it)."""
        return f"ev-{self.seq}"


@dataclass(frozen=True, slots=True)
class Share:
    """A hypothesis and its confidence at some moment."""

    hypothesis: str
    text: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Support:
    """A piece of evidence and how far it moved a hypothesis (log-odds shift, bits)."""

    evidence: str
    ref: Ref
    bits: float
    reading: str


@dataclass(frozen=True, slots=True)
class RootCause:
    hypothesis: str
    text: str
    question: str
    confidence: float
    concluded: bool  # named by the conclusion (else: the leader when the report was made)
    rests_on: tuple[Support, ...]
    #: the strongest other top-level hypothesis and its confidence
    runner_up: str | None = None
    runner_up_confidence: float = 0.0
    #: measured evidence is among what supports it
    measured: bool = True
    #: "probable, unconfirmed": the runner-up is within a factor of two, or no measured
    #: evidence supports it
    unconfirmed: bool = False


@dataclass(frozen=True, slots=True)
class Participant:
    actor: str
    events: int


@dataclass(frozen=True, slots=True)
class Summary:
    case_id: str
    title: str
    symptom: str | None
    environment: tuple[tuple[str, str], ...]
    outcome: str | None
    outcome_ref: Ref | None
    root_causes: tuple[RootCause, ...]  # one per question
    started: str
    ended: str
    duration: str
    first: Ref
    last: Ref
    participants: tuple[Participant, ...]
    zone: str


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """One x position of the trajectory chart: an evidence event or a pivot."""

    ref: Ref
    when: str
    pivot: bool


@dataclass(frozen=True, slots=True)
class Series:
    hypothesis: str
    text: str
    child: bool  # one of the final leader's children (else top-level or the catch-all)
    values: tuple[float, ...]  # aligned with the chart's points


@dataclass(frozen=True, slots=True)
class PivotNumbers:
    """The numbers at one pivot, for the table beside the chart."""

    ref: Ref
    when: str
    values: tuple[float, ...]  # aligned with the chart's series


@dataclass(frozen=True, slots=True)
class Chart:
    question: str
    question_text: str
    points: tuple[ChartPoint, ...]
    series: tuple[Series, ...]
    pivots: tuple[PivotNumbers, ...]
    thinned: int  # evidence steps left off the chart to keep it small


@dataclass(frozen=True, slots=True)
class TimelineRow:
    ref: Ref
    kind: str  # note, probe, evidence, action, pivot, conclusion, hypothesis
    when: str
    recorded: str | None  # the recorded time, where it differs from the event time
    actor: str
    text: str
    host: str | None
    conditions: str | None
    facts: str | None
    #: the event time as stored (ISO 8601, UTC), for exports another tool reads
    at: str = ""


@dataclass(frozen=True, slots=True)
class FactRow:
    """One fact an observation recorded, for the facts export."""

    ref: Ref  # the observation
    at: str  # the observation's event time (ISO 8601, UTC)
    probe: str
    host: str | None
    conditions: str | None
    name: str
    subject: str
    value: str
    unit: str | None


@dataclass(frozen=True, slots=True)
class Pivot:
    ref: Ref
    question: str
    parent: str | None  # None: the question's top level; else the node whose children pivoted
    before: str
    after: str
    reading: str
    reading_ref: Ref | None  # the observation the evidence read, where there is one
    surprise_bits: float | None
    belief_before: tuple[Share, ...]
    belief_after: tuple[Share, ...]
    depth: int = 0  # of the hypotheses whose leader changed: 0 top level, 1 their children, …


@dataclass(frozen=True, slots=True)
class RuledOut:
    hypothesis: str
    text: str
    confidence: float
    retired: bool
    reason: str
    ref: Ref | None  # the evidence (or retirement) that ruled it out
    bits: float | None
    #: "ruled out" (evidence drove it below the threshold, or it was retired or does not
    #: apply) or "unlikely" (a small prior no evidence raised: nothing ruled it out)
    standing: str = "ruled out"


@dataclass(frozen=True, slots=True)
class Alternative:
    question: str
    hypothesis: str
    text: str
    confidence: float
    against: str  # the root cause (or leader) it is the alternative to
    probe: str | None
    rule: str | None
    gain_bits: float | None


@dataclass(frozen=True, slots=True)
class Likelihood:
    hypothesis: str
    value: float


@dataclass(frozen=True, slots=True)
class EvidenceRow:
    evidence: str
    ref: Ref
    question: str
    kind: str
    reliability: float
    rule: str | None
    rule_version: int | None
    outcome: str | None
    statistic: str | None
    likelihoods: tuple[Likelihood, ...]
    otherwise: float
    artifact: str | None
    conditions: str | None
    bits: float | None  # None: superseded, counts for nothing now
    rationale: str
    #: the intake answer or rule reading it withdraws and why (``intake scaling: 'no'
    #: withdrawn (does not apply now: …)``): a withdrawal weighs nothing itself, yet undoes
    #: evidence that weighed, so it is no evidence that "moved nothing"
    withdraws: str | None = None


@dataclass(frozen=True, slots=True)
class Excerpt:
    """The first lines of the raw output a piece of evidence rests on."""

    ref: Ref
    probe: str
    command: str
    host: str
    artifact: str
    lines: tuple[str, ...]
    more: int  # lines left out


@dataclass(frozen=True, slots=True)
class SetAside:
    ref: Ref
    observation: Ref | None
    probe: str | None
    rule: str
    rule_version: int
    conditions: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class Unparsed:
    ref: Ref
    probe: str
    problems: str
    artifact: str | None


@dataclass(frozen=True, slots=True)
class UnmeasuredSpan:
    """A stretch in which the leader rested on no measurement."""

    question: str
    leader: str
    start: Ref
    end: Ref | None  # None: still unmeasured at the end of the report
    events: int
    duration: str


@dataclass(frozen=True, slots=True)
class PivotAdvice:
    """The next step the tool suggested at a pivot, and whether it was taken: a later run of
    that probe under the load the suggestion needs (``otherwise``: a run under other load)."""

    pivot: Ref
    question: str
    probe: str | None
    load: str | None  # "under-load" or "any"
    gain_bits: float | None
    taken: Ref | None
    otherwise: Ref | None = None


@dataclass(frozen=True, slots=True)
class Health:
    unmeasured: tuple[UnmeasuredSpan, ...]
    first_measurement: Ref | None
    first_pivot_after: Ref | None
    measurement_to_pivot: str | None
    advice: tuple[PivotAdvice, ...]


@dataclass(frozen=True, slots=True)
class Action:
    ref: Ref
    text: str
    outcome: str | None


@dataclass(frozen=True, slots=True)
class Closing:
    actions: tuple[Action, ...]
    recommendations: tuple[str, ...]
    lessons: tuple[str, ...]
    conclusion: Ref | None


@dataclass(frozen=True, slots=True)
class Integrity:
    head: Ref
    events: int
    upto: int | None
    casefile_version: str
    verify_command: str


@dataclass(frozen=True, slots=True)
class Report:
    summary: Summary
    charts: tuple[Chart, ...]
    timeline: tuple[TimelineRow, ...]
    pivots: tuple[Pivot, ...]
    ruled_out: tuple[RuledOut, ...]
    alternatives: tuple[Alternative, ...]
    evidence: tuple[EvidenceRow, ...]
    excerpts: tuple[Excerpt, ...]
    set_aside: tuple[SetAside, ...]
    unparsed: tuple[Unparsed, ...]
    health: Health
    closing: Closing
    integrity: Integrity
    #: the postmortem's own sections, key moments and what the case teaches (None: a model
    #: made without them)
    postmortem: Postmortem | None = None
    moments: tuple[Moment, ...] = ()
    lessons: tuple[Lesson, ...] = ()
    #: every fact every observation recorded (the facts export; the documents leave it out);
    #: None: a model built without them (``ReportOptions(facts=False)``)
    facts: tuple[FactRow, ...] | None = ()
    redacted: bool = False
