"""What to do next and what mattered: ranked steps, best probes, suggestions, decisive evidence.

The domain ranks and scores (``casefile.domain.beliefs.ranking`` and ``scoring``); these rows
only copy its results into plain values, and group the ranked rule + probe pairs by rule so
that each rule is one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from casefile.domain.beliefs.ranking import EXPERIMENT_PREFIX as EXPERIMENT_PREFIX
from casefile.domain.beliefs.ranking import INTAKE_PREFIX as INTAKE_PREFIX
from casefile.domain.beliefs.ranking import NO_SEPARATION, NextStep, ProbeStep
from casefile.domain.beliefs.step_worth import ranked_bits as ranked_figure


@dataclass(frozen=True, slots=True)
class NextStepRow:
    """One rule + probe pair and the information it is expected to give (bits)."""

    probe: str
    rule: str
    rule_version: int
    question: str
    expected_gain_bits: float
    cost: str
    load: str
    rationale: str
    separates: str = ""
    #: what it tells about the three leading hypotheses (bits): what the order is by, with the
    #: remedy weight and the cost (``ranked_bits``)
    leaders_gain_bits: float = 0.0
    #: above 1 for an A/B that tries the leading hypothesis's remedy (``remedy_weight``)
    remedy_weight: float = 1.0

    @property
    def ranked_bits(self) -> float:
        """What the order is by: the leaders' bits (times the remedy weight) at the step's cost."""
        return ranked_figure(self.leaders_gain_bits, self.remedy_weight, self.cost)

    @classmethod
    def of(cls, step: NextStep) -> NextStepRow:
        return cls(
            step.probe,
            step.rule_id,
            step.rule_version,
            step.question_id,
            step.expected_gain_bits,
            step.cost,
            step.load,
            step.rationale,
            step.separates,
            step.leaders_gain_bits,
            step.remedy_weight,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "probe": self.probe,
            "rule": self.rule,
            "rule_version": self.rule_version,
            "question": self.question,
            "expected_gain_bits": self.expected_gain_bits,
            "cost": self.cost,
            "load": self.load,
            "rationale": self.rationale,
            "separates": self.separates,
            "leaders_gain_bits": self.leaders_gain_bits,
            "remedy_weight": self.remedy_weight,
            "ranked_bits": self.ranked_bits,
        }


@dataclass(frozen=True, slots=True)
class ProbeCost:
    probe: str
    cost: str

    def to_json(self) -> dict[str, Any]:
        return {"probe": self.probe, "cost": self.cost}


@dataclass(frozen=True, slots=True)
class NextStepGroup:
    """One rule, ranked by its best pair, with every probe that can feed it (in rank order)."""

    rule: str
    rule_version: int
    question: str
    expected_gain_bits: float
    load: str
    probes: tuple[ProbeCost, ...]
    separates: str = ""
    #: what its best pair is ordered by (:attr:`NextStepRow.ranked_bits`)
    ranked_bits: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "rule_version": self.rule_version,
            "question": self.question,
            "expected_gain_bits": self.expected_gain_bits,
            "load": self.load,
            "probes": [p.to_json() for p in self.probes],
            "separates": self.separates,
            "ranked_bits": self.ranked_bits,
        }


def group_next_steps(rows: Iterable[NextStepRow]) -> tuple[NextStepGroup, ...]:
    """Rows of one rule together, in the order the ranking first reached each rule."""
    by_rule: dict[tuple[str, str], list[NextStepRow]] = {}
    for row in rows:
        by_rule.setdefault((row.question, row.rule), []).append(row)
    groups = []
    for members in by_rule.values():
        first = members[0]
        groups.append(
            NextStepGroup(
                rule=first.rule,
                rule_version=first.rule_version,
                question=first.question,
                expected_gain_bits=first.expected_gain_bits,
                load=first.load,
                probes=tuple(ProbeCost(r.probe, r.cost) for r in members),
                separates=first.separates,
                ranked_bits=first.ranked_bits,
            )
        )
    return tuple(groups)


@dataclass(frozen=True, slots=True)
class ProbeRow:
    """One probe scored on everything its rules would learn from a single run."""

    probe: str
    question: str
    expected_gain_bits: float
    rules: tuple[str, ...]
    cost: str
    load: str
    separates: str = ""
    #: what it tells about the three leading hypotheses (bits): what the order is by, with the
    #: remedy weight and the cost (``ranked_bits``)
    leaders_gain_bits: float = 0.0
    #: above 1 for an A/B that tries the leading hypothesis's remedy (``remedy_weight``)
    remedy_weight: float = 1.0

    @property
    def ranked_bits(self) -> float:
        """What the order is by: the leaders' bits (times the remedy weight) at the probe's cost."""
        return ranked_figure(self.leaders_gain_bits, self.remedy_weight, self.cost)

    @classmethod
    def of(cls, step: ProbeStep) -> ProbeRow:
        return cls(
            step.probe,
            step.question_id,
            step.expected_gain_bits,
            tuple(step.rules),
            step.cost,
            step.load,
            step.separates,
            step.leaders_gain_bits,
            step.remedy_weight,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "probe": self.probe,
            "question": self.question,
            "expected_gain_bits": self.expected_gain_bits,
            "rules": list(self.rules),
            "cost": self.cost,
            "load": self.load,
            "separates": self.separates,
            "leaders_gain_bits": self.leaders_gain_bits,
            "remedy_weight": self.remedy_weight,
            "ranked_bits": self.ranked_bits,
        }


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The probe that, at a replayed step, would have told the hypotheses apart best."""

    probe: str
    expected_gain_bits: float
    rules: tuple[str, ...]
    load: str

    @classmethod
    def of(cls, step: ProbeRow | ProbeStep) -> Suggestion:
        return cls(step.probe, step.expected_gain_bits, tuple(step.rules), step.load)

    def to_json(self) -> dict[str, Any]:
        return {
            "probe": self.probe,
            "expected_gain_bits": self.expected_gain_bits,
            "rules": list(self.rules),
            "load": self.load,
        }


@dataclass(frozen=True, slots=True)
class DecisiveRow:
    """How far one active piece of evidence moved its question (leave-one-out, bits)."""

    evidence: str
    seq: int
    question: str
    kind: str
    bits: float
    rationale: str
    hash: str  # of the evidence.assessed event

    def to_json(self) -> dict[str, Any]:
        return {
            "evidence": self.evidence,
            "seq": self.seq,
            "question": self.question,
            "kind": self.kind,
            "bits": self.bits,
            "rationale": self.rationale,
            "hash": self.hash,
        }


def separation_line(separates: str) -> str:
    """A step's one line on the two leading hypotheses as a sentence: "separates A against B:
    …", or the ranking's own "does not tell A from B" as it is."""
    return separates if separates.startswith(NO_SEPARATION) else f"separates {separates}"
