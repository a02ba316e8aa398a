"""Several readings of one state of a machine are one witness, not several.

Evidence multiplies as if each reading were independent given the cause. Some rules read the
same physical state through different facts: a GPU at its thermal limit is hot, its
temperature climbs, the driver sets a thermal slowdown reason and its clocks sag, all at once
and all because of the one heat. Counted as independent witnesses, four readings of one hot
GPU multiply into near certainty (a case reached 97 % on one heat-soaked GPU), and a GPU
that runs hot for another reason would be convicted of it four times over.

A rule names the states it reads (``witness = ["gpu-heat"]`` in the playbook). A new reading
counts at ``1 / k`` of its reliability, k - 1 being the readings in force on the same host by
rules that share one of its states (the same rule on earlier runs included): the second at
half, the third at a third. The first reading keeps its full weight, so one paste still speaks
as it did, and more readings still add, but as the sum of 1/k does: slowly, as corroboration
does. The weight is decided when the reading is recorded and written into its evidence, so a
replay gives the same confidences, and the evidence's rationale names the earlier readings and
the state each shares with it.

The readings in force are counted per rule and host in the fold's indexes, updated as evidence
is folded (only new evidence is read; a reading superseded later is taken off its count), so a
reading costs the same on a long case as on a short one.
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

#: the host a told reading has when none was named (``--host`` tells machines apart)
UNNAMED_HOST = "unknown"


@dataclass(frozen=True)
class Earlier:
    """The readings in force of one rule that share a state with a new reading."""

    rule: str
    readings: int
    #: the last of them, to name in the rationale
    last: str
    states: tuple[str, ...]


@dataclass(frozen=True)
class Corroborated:
    """The readings of a shared state a new reading joins, rule by rule, and the host."""

    earlier: tuple[Earlier, ...] = ()
    host: object = None

    @property
    def count(self) -> int:
        return sum(e.readings for e in self.earlier)

    @property
    def share(self) -> float:
        """What the new reading's reliability is multiplied by: ``1 / k``."""
        return 1.0 / (1 + self.count)

    def note(self) -> str:
        """The sentence the evidence's rationale ends with (empty when it counts in full)."""
        if not self.earlier:
            return ""
        named = "; ".join(
            f"{e.rule} ({e.last}{f' and {e.readings - 1} more' if e.readings > 1 else ''}) "
            f"read {' and '.join(e.states)}"
            for e in self.earlier
        )
        where = (
            "on the same unnamed host (--host tells machines apart)"
            if self.host in (None, UNNAMED_HOST)
            else f"on {self.host}"
        )
        return (
            f" Counted at 1/{1 + self.count} of its reliability: {named}, already in force "
            f"{where}; one state read again is one witness."
        )


ALONE = Corroborated()


#: the key of :class:`_InForce` in ``Projection.indexes``
INDEX = "witness-readings"


@dataclass
class _InForce:
    """(rule id, host) → how many of its readings are in force and the last one, over the
    first ``count`` pieces of evidence."""

    count: int = 0
    readings: dict[tuple[str, object], int] = field(default_factory=dict)
    last: dict[tuple[str, object], str] = field(default_factory=dict)


def _in_force(projection: Projection) -> _InForce:
    index: _InForce = projection.indexes.setdefault(INDEX, _InForce())
    evidence = projection.evidence
    new = len(evidence) - index.count
    if new > 0:
        # the newest, back to those already read (a dict iterates in reverse at no cost), in
        # fold order: a reading is counted when folded and taken off when superseded
        for state in reversed(list(islice(reversed(evidence.values()), new))):
            key = _key(projection, state)
            if key is not None:
                index.readings[key] = index.readings.get(key, 0) + 1
                index.last[key] = state.id
            old = state.supersedes
            old_key = _key(projection, evidence[old]) if old in evidence else None
            if old_key is not None:
                index.readings[old_key] -= 1
        index.count = len(evidence)
    return index


def _key(projection: Projection, state: EvidenceState) -> tuple[str, object] | None:
    rule = state.rule
    rule_id = rule.get("id") if rule is not None else None
    if not isinstance(rule_id, str) or state.probe_run_seq is None:
        return None
    run = projection.probe_runs.get(state.probe_run_seq)
    return None if run is None else (rule_id, run.get("host"))


def corroborated(
    projection: Projection, rule: Rule, rules: Sequence[Rule], host: object
) -> Corroborated:
    """The readings in force, on ``host``, of a state ``rule`` reads (its ``witness``), by the
    rules of its playbook (``rules``) that name one of the same states, itself included (the
    same rule on an earlier run read the same heat)."""
    if not rule.witness:
        return ALONE
    index = _in_force(projection)
    earlier = []
    for other in rules:
        states = tuple(s for s in rule.witness if s in other.witness)
        if other.question != rule.question or not states:
            continue
        readings = index.readings.get((other.id, host), 0)
        if readings > 0:
            earlier.append(Earlier(other.id, readings, index.last[(other.id, host)], states))
    return Corroborated(tuple(earlier), host)
