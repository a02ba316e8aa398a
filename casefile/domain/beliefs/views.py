"""Derived views over a projection: next best step and decisive evidence.

Both read only the projection (and, for next steps, the candidate rules offered by installed
playbooks); neither writes anything. They are recomputed whenever they are shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casefile.domain.beliefs.arithmetic import (
    entropy_bits,
    kl_bits_from_scores,
    mutual_information_bits,
    tempered,
)
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.rules import Rule

COST_ORDER = {"instant": 0, "cheap": 1, "moderate": 2, "expensive": 3}


@dataclass(frozen=True)
class Candidate:
    """A probe that some rule can interpret, offered for ranking."""

    probe: str
    rule: Rule
    cost: str = "cheap"


@dataclass(frozen=True)
class NextStep:
    probe: str
    rule_id: str
    rule_version: int
    question_id: str
    expected_gain_bits: float
    cost: str
    load: str
    rationale: str


@dataclass(frozen=True)
class ProbeStep:
    """One probe, scored on everything its rules would learn from a single run."""

    probe: str
    question_id: str
    expected_gain_bits: float
    rules: tuple[str, ...]
    cost: str
    load: str


@dataclass(frozen=True)
class Decisive:
    evidence_id: str
    seq: int
    question_id: str
    kind: str
    bits: float
    rationale: str


def outcome_table(question: QuestionState, keys: Sequence[str], rule: Rule) -> list[list[float]]:
    """P(outcome | leaf) for each outcome of ``rule``, tempered by the rule's reliability."""
    table: list[list[float]] = []
    for outcome in rule.outcome_names:
        other = rule.otherwise[outcome]
        row = []
        for key in keys:
            value = other
            if key != question.catch_all_id:
                for node in question.path(key):
                    if node in rule.likelihoods:
                        value = rule.likelihoods[node][outcome]
                        break
            row.append(tempered(value, other, rule.reliability))
        table.append(row)
    return table


def rank_next_steps(
    projection: Projection, candidates: Sequence[Candidate], question_id: str | None = None
) -> list[NextStep]:
    """Rank probe + rule pairs by expected reduction in the question's entropy (bits).

    The gain is the mutual information between the rule's outcome and the hypothesis, under the
    belief held now: a probe whose outcomes are equally likely under every hypothesis scores 0.
    Ties go to the cheaper probe.
    """
    steps: list[NextStep] = []
    for candidate in candidates:
        rule = candidate.rule
        qid = question_id or rule.question
        question = projection.questions.get(rule.question)
        if question is None or (question_id is not None and rule.question != question_id):
            continue
        keys, probs = question.leaf_distribution
        gain = mutual_information_bits(probs, outcome_table(question, keys, rule))
        steps.append(
            NextStep(
                probe=candidate.probe,
                rule_id=rule.id,
                rule_version=rule.version,
                question_id=qid,
                expected_gain_bits=gain,
                cost=candidate.cost,
                load=rule.load,
                rationale=rule.rationale,
            )
        )
    steps.sort(key=lambda s: (-round(s.expected_gain_bits, 12), COST_ORDER.get(s.cost, 9), s.probe))
    return steps


#: Joint outcome spaces larger than this are not enumerated (the probe is scored on its best
#: single rule instead); the built-in probes stay far below it.
MAX_JOINT_OUTCOMES = 20_000


def rank_probes(projection: Projection, candidates: Sequence[Candidate]) -> list[ProbeStep]:
    """Rank probes by the information all the rules they feed would give together.

    One run of ``nvidia-smi -q`` feeds several rules at once, so its worth is the mutual
    information between the hypothesis and the *joint* outcome of those rules, taking the
    outcomes as independent given the hypothesis — the same assumption under which their
    evidence is multiplied. Never less than its best single rule; ties go to the cheaper probe.
    """
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for candidate in candidates:
        if candidate.rule.question in projection.questions:
            groups.setdefault((candidate.probe, candidate.rule.question), []).append(candidate)
    steps: list[ProbeStep] = []
    for (probe, qid), members in groups.items():
        question = projection.questions[qid]
        keys, probs = question.leaf_distribution
        tables = [outcome_table(question, keys, c.rule) for c in members]
        size = 1
        for table in tables:
            size *= len(table)
        if size <= MAX_JOINT_OUTCOMES:
            rows: list[list[float]] = [[1.0] * len(keys)]
            for table in tables:
                rows = [
                    [a * b for a, b in zip(row, outcome, strict=True)]
                    for row in rows
                    for outcome in table
                ]
            gain = mutual_information_bits(probs, rows)
        else:
            gain = max(mutual_information_bits(probs, table) for table in tables)
        needs_load = any(c.rule.load == "under-load" for c in members)
        steps.append(
            ProbeStep(
                probe=probe,
                question_id=qid,
                expected_gain_bits=gain,
                rules=tuple(c.rule.id for c in members),
                cost=members[0].cost,
                load="under-load" if needs_load else "any",
            )
        )
    steps.sort(key=lambda s: (-round(s.expected_gain_bits, 12), COST_ORDER.get(s.cost, 9), s.probe))
    return steps


def question_entropy(question: QuestionState) -> float:
    return entropy_bits(question.leaf_distribution[1])


def decisive_evidence(projection: Projection) -> list[Decisive]:
    """How much each active piece of evidence moved its question's final distribution.

    Leave-one-out: the KL divergence (bits) between the final distribution and the one the case
    would have reached without that evidence. Largest first.
    """
    out: list[Decisive] = []
    for state in projection.evidence.values():
        if not state.active:
            continue
        question = projection.questions[state.question_id]
        effect = question.effect(state.likelihoods, state.otherwise, state.reliability)
        _, final = question.leaf_scores()
        _, without = question.leaf_scores(without=effect)
        out.append(
            Decisive(
                evidence_id=state.id,
                seq=state.seq,
                question_id=state.question_id,
                kind=state.kind,
                bits=kl_bits_from_scores(final, without),
                rationale=state.rationale,
            )
        )
    out.sort(key=lambda d: (-d.bits, d.seq))
    return out
