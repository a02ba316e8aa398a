"""Evidence assessed against hypotheses, and readings a rule set aside."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from casefile.domain.event_types.base import (
    EventType,
    Fields,
    NarrativeContext,
    NarrativeLine,
    Payload,
)
from casefile.domain.event_types.hypothesis import Requirement

EvidenceKind = Literal["measured", "calculated", "reported", "assumed"]
IntakeSource = Literal["answered", "environment", "observation"]
#: why an intake answer was withdrawn: what it rested on changed (an implied answer), or an
#: answer given since makes its question moot (scaling, once the job runs on one GPU)
WithdrawnBecause = Literal["premise", "moot", "scope"]


class RuleRef(Payload):
    id: str
    version: int


class IntakeRef(Payload):
    """The intake answer an evidence event came from: which question, what was answered, and
    whether a person answered it or the case's own records did."""

    id: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    source: IntakeSource = "answered"
    basis: str | None = None


class IntakeWithdrawal(Payload):
    """The intake answer (or rule reading) a piece of evidence withdraws, and why: said apart
    from the rationale so that replay, the report and intake can tell a withdrawal from
    evidence that weighs nothing for other reasons, an answer withdrawn as moot can be offered
    again once its question applies again, and a reading withdrawn while an answer ruled its
    rule out can be restored once none does (:mod:`casefile.domain.reading_scope`)."""

    #: the intake question, or for a reading (``because`` scope) the rule
    id: str = Field(min_length=1)
    #: the answer withdrawn, or the reading's outcome
    answer: str = Field(min_length=1)
    because: WithdrawnBecause
    #: what changed: the answer that makes the question moot or rules the rule out
    #: (``gpu-count = one (seq 30)``), or the premise the answer rested on
    reason: str = Field(min_length=1)
    #: for a reading (``because`` scope): what its rule needs the case to state, so that
    #: whether to restore it is decided from the event, whatever the playbook holds now
    requires: list[Requirement] | None = None


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
    #: the intake answer this evidence withdraws (it supersedes it and weighs nothing)
    withdraws: IntakeWithdrawal | None = None


class ReadingSetAside(Payload):
    """An observation a rule could not use, and why (e.g. taken at idle, rule needs load)."""

    observation_seq: int = Field(ge=1)
    rule: RuleRef
    reason: str


def _assessed(p: Fields) -> str:
    rule = p.get("rule")
    sup = f", supersedes {p['supersedes']}" if p.get("supersedes") else ""
    intake = p.get("intake")
    withdrawn = p.get("withdraws")
    if withdrawn:
        return f"{withdrawal_text(withdrawn)} → evidence {p['evidence_id']}{sup}"
    if intake:
        source = intake.get("source", "answered")
        said = "" if source == "answered" else f" (from {intake.get('basis') or source})"
        return (
            f"intake {intake['id']}: {intake['answer']!r}{said} → evidence {p['evidence_id']}, "
            f"{p['kind']}, r={p['reliability']:g}{sup}"
        )
    if rule and p.get("experiment_id"):
        statistic = p.get("statistic")
        ratio = f"{statistic:.2f}×" if isinstance(statistic, float | int) else f"stated {statistic}"
        return (
            f"evidence {p['evidence_id']}: experiment {p['experiment_id']} read by rule "
            f"{rule['id']} v{rule['version']} → {p.get('outcome')!r} ({ratio}), {p['kind']}, "
            f"r={p['reliability']:g}{sup}"
        )
    if rule:
        statistic = p.get("statistic")
        shown = f"{statistic:.3g}" if isinstance(statistic, float) else statistic
        return (
            f"evidence {p['evidence_id']}: rule {rule['id']} v{rule['version']} → "
            f"{p.get('outcome')!r} (statistic {shown}), {p['kind']}, "
            f"r={p['reliability']:g}{sup}"
        )
    named = ", ".join(f"{h}={v:g}" for h, v in p["likelihoods"].items())
    return (
        f"evidence {p['evidence_id']} ({p['kind']}, r={p['reliability']:g}{sup}): "
        f"{p['rationale']} [P(E|h): {named}; otherwise {p.get('otherwise', 0.5):g}]"
    )


def withdrawal_text(withdrawn: Fields) -> str:
    """What a withdrawal withdraws and why, as the log and the report say it: ``intake
    scaling: 'no' withdrawn (does not apply now: gpu-count = one (seq 30))``, ``rule
    nccl-network's reading 'rdma' withdrawn (does not apply now: nodes = single (seq 29))``."""
    because = withdrawn["because"]
    why = "it rested on" if because == "premise" else "does not apply now:"
    if because == "scope":
        what = f"rule {withdrawn['id']}'s reading {withdrawn['answer']!r}"
    else:
        what = f"intake {withdrawn['id']}: {withdrawn['answer']!r}"
    return f"{what} withdrawn ({why} {withdrawn['reason']})"


def _assessed_line(p: Fields, ctx: NarrativeContext) -> NarrativeLine:
    return NarrativeLine(f"{p['evidence_id']} ({p.get('kind', 'measured')}): {ctx.reading(p)}")


def _rationale(p: Fields) -> str | None:
    """A rule's rationale (a person's is the summary itself)."""
    return str(p["rationale"]) if p.get("rule") else None


def _set_aside(p: Fields) -> str:
    return f"set aside reading {p['observation_seq']} for rule {p['rule']['id']}: {p['reason']}"


EVIDENCE_ASSESSED = EventType(
    "evidence.assessed",
    1,
    EvidenceAssessed,
    label="evidence",
    summary=_assessed,
    narrative=_assessed_line,
    folded=True,
    artifact_fields=(),
    redact_fields={
        "rationale": "text",
        "outcome": "text",
        "intake.basis": "text",
        "withdraws.reason": "text",
    },
    detail=_rationale,
)

READING_SET_ASIDE = EventType(
    "reading.set_aside",
    1,
    ReadingSetAside,
    label="set aside",
    summary=_set_aside,
    narrative=None,  # the report's set-aside section
    folded=True,
    artifact_fields=(),
    redact_fields={"reason": "text"},
)

#: The types of this family, as :data:`~casefile.domain.event_types.EVENT_TYPES` lists them.
TYPES = (EVIDENCE_ASSESSED, READING_SET_ASIDE)
