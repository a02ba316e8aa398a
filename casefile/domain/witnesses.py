"""Several readings of one state of a machine are one witness, not several.

Evidence multiplies as if each reading were independent given the cause. Some rules read the
same physical state through different facts: a GPU at its thermal limit is hot, its
temperature climbs, the driver sets a thermal slowdown reason and its clocks sag, all at once
and all because of the one heat. Counted as independent witnesses, four readings of one hot
GPU multiply into near certainty (a case reached 97 % on one heat-soaked GPU), and a GPU
that runs hot for another reason would be convicted of it four times over.

A rule names the states it reads (``witness = ["gpu-heat"]`` in the playbook). A new reading
counts at ``1 / k`` of its reliability, k - 1 being the rules sharing one of its states that
have already read the same host (the same rule on an earlier run included; each rule counted
once, by its last reading): the second rule's reading at half, the third's at a third, and a
rule read again beside all the others at no less than 1 / (rules of the state). The first
reading keeps its full weight, so one paste still speaks as it did, and more readings still
add, but slowly, as corroboration does. The weight is decided when the reading is recorded and
written into its evidence, so a replay gives the same confidences, and the evidence's
rationale names the earlier readings.

What counts as "in force" is each rule's last active reading on each host, kept in the
fold's indexes and updated as evidence is folded (only new evidence is read), so a reading
costs the same on a long case as on a short one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from casefile.domain.beliefs.evidence import EvidenceState
    from casefile.domain.beliefs.projection import Projection
    from casefile.domain.rules import Rule


@dataclass(frozen=True)
class Corroborated:
    """The readings of a shared state a new reading joins: each ``(rule id, evidence id)``."""

    earlier: tuple[tuple[str, str], ...] = ()

    @property
    def share(self) -> float:
        """What the new reading's reliability is multiplied by: ``1 / k``."""
        return 1.0 / (1 + len(self.earlier))

    def note(self, states: Sequence[str]) -> str:
        """The sentence the evidence's rationale ends with (empty when it counts in full)."""
        if not self.earlier:
            return ""
        named = ", ".join(f"{rule} ({evidence})" for rule, evidence in self.earlier)
        return (
            f" Counted at 1/{1 + len(self.earlier)} of its reliability: {named} already "
            f"read {' and '.join(states)} on this host, and one state read twice is one "
            "witness."
        )


ALONE = Corroborated()


#: the key of :class:`_InForce` in ``Projection.indexes``
INDEX = "witness-readings"


@dataclass
class _InForce:
    """(rule id, host) → the last active evidence of the rule on the host, over the first
    ``count`` pieces of evidence."""

    count: int = 0
    last: dict[tuple[str, object], str] = field(default_factory=dict)


def _in_force(projection: Projection) -> dict[tuple[str, object], str]:
    index: _InForce = projection.indexes.setdefault(INDEX, _InForce())
    evidence = projection.evidence
    new = len(evidence) - index.count
    if new > 0:
        # the newest, back to those already read (a dict iterates in reverse at no cost)
        for state in reversed(list(islice(reversed(evidence.values()), new))):
            key = _key(projection, state)
            if key is not None and state.active:
                index.last[key] = state.id
        index.count = len(evidence)
    stale = [key for key, eid in index.last.items() if not evidence[eid].active]
    for key in stale:  # superseded since (a rule read again): its newest active, if any
        del index.last[key]
        for state in evidence.values():
            if state.active and _key(projection, state) == key:
                index.last[key] = state.id
    return index.last


def _key(projection: Projection, state: EvidenceState) -> tuple[str, object] | None:
    rule = state.rule
    rule_id = rule.get("id") if rule is not None else None
    if not isinstance(rule_id, str) or state.probe_run_seq is None:
        return None
    run = projection.probe_runs.get(state.probe_run_seq)
    return None if run is None else (rule_id, run.get("host"))


def corroborated(
    projection: Projection,
    rule: Rule,
    rules: Sequence[Rule],
    host: object,
    observation_seq: int,
) -> Corroborated:
    """The readings in force, on ``host``, of a state ``rule`` reads (its ``witness``), by the
    rules of its playbook (``rules``) that name one of the same states, itself included (the
    same rule on an earlier run read the same heat); not the reading this one supersedes
    (the same rule on the same observation, read again)."""
    if not rule.witness:
        return ALONE
    shared = set(rule.witness)
    in_force = _in_force(projection)
    earlier: list[tuple[str, str]] = []
    for other in rules:
        if other.question != rule.question or not shared.intersection(other.witness):
            continue
        found = in_force.get((other.id, host))
        if found is None:
            continue
        if other.id == rule.id and projection.evidence[found].observation_seq == observation_seq:
            continue  # the reading this one supersedes
        earlier.append((other.id, found))
    return Corroborated(tuple(earlier))
