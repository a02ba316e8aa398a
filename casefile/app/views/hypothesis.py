"""Why a hypothesis's confidence is what it is: its prior and every piece of evidence that
moved it, with how far (bits of log-odds), newest first.

The contributions (leave-one-out shifts) and the prior log-odds are computed by the domain
(:mod:`casefile.domain.beliefs.scoring`); this view copies them beside the hypothesis's own
rows and never recomputes them. Log-odds are ±infinity for a hypothesis at 0 or 1 (a retired
one, say); ``to_json`` writes those as ``null``, since JSON has no infinity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from casefile.app.views.names import CATCH_ALL_MEANING, CATCH_ALL_TEXT
from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.question import CATCH_ALL, QuestionState
from casefile.domain.beliefs.scoring import Contribution
from casefile.errors import DomainError, did_you_mean


@dataclass(frozen=True, slots=True)
class ContributionRow:
    evidence: str
    seq: int
    question: str
    kind: str
    reliability: float
    likelihood: float
    otherwise: float
    bits: float
    rationale: str
    hash: str

    @classmethod
    def of(cls, c: Contribution) -> ContributionRow:
        return cls(
            c.evidence_id,
            c.seq,
            c.question_id,
            c.kind,
            c.reliability,
            c.likelihood,
            c.otherwise,
            c.bits,
            c.rationale,
            c.hash,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "evidence": self.evidence,
            "seq": self.seq,
            "question": self.question,
            "kind": self.kind,
            "reliability": self.reliability,
            "likelihood": self.likelihood,
            "otherwise": self.otherwise,
            "bits": self.bits,
            "rationale": self.rationale,
            "hash": self.hash,
        }


@dataclass(frozen=True, slots=True)
class HypothesisDetail:
    id: str
    text: str
    question: str
    parent: str | None
    children: tuple[str, ...]
    prior: float  # absolute for a top-level hypothesis, a share of the parent's otherwise
    confidence: float
    status: str  # "open", "retired" or "does not apply"
    retired_reason: str | None
    meaning: str | None
    prior_log_odds_bits: float  # log2(prior / (1 - prior)) on the tree of the moment
    log_odds_bits: float  # the same of the confidence now
    contributions: tuple[ContributionRow, ...]  # newest first
    #: with "does not apply": the answer in force that rules it out, and its seq
    does_not_apply: str | None = None

    @property
    def status_reason(self) -> str | None:
        """Why it has its status: the retirement's reason, or the answer it does not apply under."""
        return self.retired_reason or self.does_not_apply

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "question": self.question,
            "parent": self.parent,
            "children": list(self.children),
            "prior": self.prior,
            "confidence": self.confidence,
            "status": self.status,
            "retired_reason": self.retired_reason,
            **({"does_not_apply": self.does_not_apply} if self.does_not_apply else {}),
            "meaning": self.meaning,
            "prior_log_odds_bits": _finite(self.prior_log_odds_bits),
            "log_odds_bits": _finite(self.log_odds_bits),
            "contributions": [c.to_json() for c in self.contributions],
        }


def build_hypothesis_detail(
    projection: Projection,
    hypothesis_id: str,
    *,
    contributions: Iterable[Contribution],
    prior_log_odds_bits: float,
    confidence: float | None = None,
    children: tuple[str, ...] | None = None,
    does_not_apply: str | Literal["now"] | None = "now",
) -> HypothesisDetail:
    """The detail of one hypothesis (or of a question's ``<q>/catch-all``); ``confidence`` and
    ``children`` and ``does_not_apply`` (why it did not apply, or None): as they were at an
    earlier step (default: now)."""
    question = _question_of(projection, hypothesis_id)
    rows = tuple(sorted((ContributionRow.of(c) for c in contributions), key=lambda r: -r.seq))
    node = question.nodes.get(hypothesis_id)
    if does_not_apply == "now":
        reason = None if node is None else question.inapplicable_reason(hypothesis_id)
    else:
        reason = does_not_apply
    if confidence is None:
        confidence = question.confidences.get(hypothesis_id, 0.0)
    return HypothesisDetail(
        id=hypothesis_id,
        text=CATCH_ALL_TEXT if node is None else node.text,
        question=question.id,
        parent=None if node is None else node.parent_id,
        children=(() if node is None else tuple(node.children)) if children is None else children,
        prior=question.catch_all_prior() if node is None else node.prior,
        confidence=confidence,
        status=(
            "retired"
            if node is not None and node.retired
            else "does not apply"
            if reason is not None
            else "open"
        ),
        retired_reason=None if node is None else node.retired_reason,
        does_not_apply=reason,
        meaning=CATCH_ALL_MEANING if node is None else node.meaning,
        prior_log_odds_bits=prior_log_odds_bits,
        log_odds_bits=log_odds_bits(confidence),
        contributions=rows,
    )


def log_odds_bits(probability: float) -> float:
    """log2(p / (1 - p)), ±infinity at 0 and 1."""
    if probability <= 0.0:
        return -math.inf
    if probability >= 1.0:
        return math.inf
    return math.log2(probability) - math.log2(1.0 - probability)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _question_of(projection: Projection, hypothesis_id: str) -> QuestionState:
    """The question holding ``hypothesis_id``; a catch-all (no node) is named by its id."""
    qid = projection.hypothesis_question.get(hypothesis_id)
    if qid is None and hypothesis_id.endswith("/" + CATCH_ALL):
        qid = hypothesis_id.rsplit("/", 1)[0]
    question = projection.questions.get(qid) if qid is not None else None
    if question is None:
        known = ", ".join(sorted(projection.hypothesis_question)) or "none"
        hint = did_you_mean(hypothesis_id, projection.hypothesis_question)
        raise DomainError(
            f"no hypothesis {hypothesis_id!r}{hint} in this case (hypotheses: {known})"
        )
    return question
