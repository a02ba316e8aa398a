"""Questions and their hypotheses: proposed, refined, retired, reinstated, their priors
rebalanced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from casefile.domain.event_types.base import (
    EventType,
    Fields,
    NarrativeContext,
    NarrativeLine,
    Payload,
)


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


def _question(p: Fields) -> str:
    return f"question {p['question_id']}: {p['text']} (catch-all {p.get('catch_all', 0.1):g})"


def _proposed(p: Fields) -> str:
    under = p.get("parent_id") or p["question_id"]
    return f"hypothesis {p['hypothesis_id']} under {under} (prior {p['prior']:g}): {p['text']}"


def _proposed_line(p: Fields, ctx: NarrativeContext) -> NarrativeLine:
    under = p.get("parent_id") or p.get("question_id")
    return NarrativeLine(
        f"proposed {p['hypothesis_id']} under {under} (prior {p['prior']:g}): {p['text']}"
    )


def _rebalanced(p: Fields, said: str = " rebalanced") -> str:
    priors = ", ".join(f"{h}={v:.4g}" for h, v in p["priors"].items())
    forced = " (forced, after evidence)" if p.get("forced") else ""
    why = f": {p['reason']}" if p.get("reason") else ""
    return f"priors of {p['question_id']}{said}{forced} [{priors}]{why}"


def _named(field: str) -> Callable[[Fields], str]:
    """A hypothesis's id and one field of the event (the timeline's words beside the label
    that says what happened to it)."""
    return lambda p: f"{p['hypothesis_id']}: {p[field]}"


QUESTION_PROPOSED = EventType(
    "question.proposed",
    1,
    QuestionProposed,
    label="question",
    summary=_question,
    narrative=lambda p, ctx: NarrativeLine(f"question {p['question_id']}: {p['text']}"),
    folded=True,
    artifact_fields=(),
    redact_fields={"text": "text"},
)

HYPOTHESIS_PROPOSED = EventType(
    "hypothesis.proposed",
    1,
    HypothesisProposed,
    label="hypothesis",
    summary=_proposed,
    narrative=_proposed_line,
    folded=True,
    artifact_fields=(),
    redact_fields={"text": "text", "meaning": "text"},
)

HYPOTHESIS_REFINED = EventType(
    "hypothesis.refined",
    1,
    HypothesisRefined,
    label="refined",
    summary=lambda p: f"hypothesis {p['hypothesis_id']} refined: {p['text']}",
    beside_label=_named("text"),
    narrative=lambda p, ctx: NarrativeLine(f"refined {p['hypothesis_id']}: {p['text']}"),
    folded=True,
    artifact_fields=(),
    redact_fields={"text": "text", "reason": "text"},
)

HYPOTHESIS_RETIRED = EventType(
    "hypothesis.retired",
    1,
    HypothesisRetired,
    label="retired",
    summary=lambda p: f"hypothesis {p['hypothesis_id']} retired: {p['reason']}",
    beside_label=_named("reason"),
    narrative=lambda p, ctx: NarrativeLine(f"retired {p['hypothesis_id']}: {p['reason']}"),
    folded=True,
    artifact_fields=(),
    redact_fields={"reason": "text"},
)

HYPOTHESIS_REINSTATED = EventType(
    "hypothesis.reinstated",
    1,
    HypothesisReinstated,
    label="reinstated",
    summary=lambda p: f"hypothesis {p['hypothesis_id']} reinstated",
    beside_label=lambda p: str(p["hypothesis_id"]),
    narrative=lambda p, ctx: NarrativeLine(f"reinstated {p['hypothesis_id']}"),
    folded=True,
    artifact_fields=(),
    redact_fields={"reason": "text"},
)

PRIORS_REBALANCED = EventType(
    "priors.rebalanced",
    1,
    PriorsRebalanced,
    label="rebalanced",
    summary=_rebalanced,
    beside_label=lambda p: _rebalanced(p, said=""),
    narrative=None,  # a row only where it moved a leader (a pivot)
    folded=True,
    artifact_fields=(),
    redact_fields={"reason": "text"},
)

#: The types of this family, as :data:`~casefile.domain.event_types.EVENT_TYPES` lists them.
TYPES = (
    QUESTION_PROPOSED,
    HYPOTHESIS_PROPOSED,
    HYPOTHESIS_REFINED,
    HYPOTHESIS_RETIRED,
    HYPOTHESIS_REINSTATED,
    PRIORS_REBALANCED,
)
