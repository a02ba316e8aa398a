"""The case at one step: what the front ends rank and read there, in one place.

The TUI's frame (next steps at the step on screen), the replay (the probe it would have
suggested where a leader had never been measured) and the report (the next step after each
pivot, the evidence that decided the case, what each piece did to a hypothesis, the probe that
tells a root cause from its alternative) all ask what the case offered right after some event.
:class:`CaseSteps` answers every one of them from one fold and the candidates its playbooks
offer, on the belief captured at that step (never a refold), as frozen view rows; nothing else
in the application ranks probes at a step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casefile.app.views.hypothesis import ContributionRow
from casefile.app.views.steps import DecisiveRow, ProbeRow

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.ranking import Candidate


@dataclass(frozen=True, slots=True)
class StepsAt:
    """What the case offered right after event ``seq``: its probes, best first."""

    seq: int
    probes: tuple[ProbeRow, ...]

    def best(self, question: str | None = None) -> ProbeRow | None:
        """The probe ranked first (on ``question``, if one is named)."""
        return next((p for p in self.probes if question is None or p.question == question), None)


@dataclass(frozen=True, slots=True)
class Separation:
    """The probe and rule expected to tell two hypotheses of a question apart best: the
    mutual information (bits) between the rule's outcome and which of the two holds."""

    probe: str
    rule: str
    gain_bits: float


class CaseSteps:
    """One fold and every step its playbooks offer (``candidates.offers``), read at any step
    it holds: an A/B or an intake question is offered at a step until its rule was read by
    then, so a past step offers what was still open there, not what the case did later."""

    def __init__(self, projection: Projection, offered: Sequence[Candidate]) -> None:
        self.projection = projection
        self.offered = offered

    def offered_at(self, seq: int | None = None) -> list[Candidate]:
        """The steps still open right after ``seq`` (``None``: now)."""
        from casefile.domain.beliefs.rules_read import rules_read_at

        read = rules_read_at(self.projection, seq)
        return [c for c in self.offered if c.offered_after(read)]

    def steps_at(self, seq: int | None = None) -> StepsAt:
        """The probes ranked on the belief held right after ``seq`` (``None``: now)."""
        from casefile.domain.beliefs.ranking import rank_probes

        projection = self.projection
        ranked = rank_probes(projection, self.offered_at(seq), seq=seq)
        at = projection.last_seq if seq is None else seq
        return StepsAt(at, tuple(ProbeRow.of(p) for p in ranked))

    def suggestions(self, upto: int | None = None, limit: int = 20) -> dict[int, ProbeRow]:
        """The best probe at each step (up to ``upto``, at most ``limit`` of them) that raised
        a "never measured" warning: what the tool would have suggested at that moment."""
        out: dict[int, ProbeRow] = {}
        for step in self.projection.trajectory:
            if len(out) >= limit or (upto is not None and step.seq > upto):
                break
            if any(w.code == "never-measured" for w in step.raised):
                best = self.steps_at(step.seq).best()
                if best is not None:
                    out[step.seq] = best
        return out

    def decisive(self, seq: int | None = None, limit: int | None = None) -> tuple[DecisiveRow, ...]:
        """How far each active piece of evidence moved its question at ``seq`` (leave-one-out,
        bits), largest first; ``limit``: only the first so many."""
        from casefile.domain.beliefs.scoring import decisive_ranking

        ranked = decisive_ranking(self.projection, seq)
        return tuple(
            DecisiveRow(e.id, e.seq, e.question_id, e.kind, bits, e.rationale, e.hash)
            for bits, e in (ranked if limit is None else ranked[:limit])
        )

    def contributions(
        self, hypothesis_id: str, seq: int | None = None
    ) -> tuple[ContributionRow, ...]:
        """Each active evidence of the hypothesis's question and the shift (bits) it causes in
        that hypothesis's log-odds at ``seq`` (``None``: now), newest first."""
        from casefile.domain.beliefs.scoring import contributions

        found = contributions(self.projection, hypothesis_id, seq)
        return tuple(ContributionRow.of(c) for c in found)

    def separating(self, question: str, first: str, second: str) -> Separation | None:
        """Of the pairs offered on ``question``, the one whose outcome is expected to tell
        ``first`` from ``second`` best now (their subtrees' mass renormalised to one; ties go
        to the cheaper probe, then by name); ``None`` when nothing is offered or either holds
        no mass."""
        from casefile.domain.beliefs.arithmetic import mutual_information_bits
        from casefile.domain.beliefs.ranking import beliefs_at, outcome_table
        from casefile.domain.beliefs.step_worth import COST_ORDER

        belief = beliefs_at(self.projection)[question]
        structure = belief.structure
        try:
            inside = structure.leaves_under(first), structure.leaves_under(second)
        except KeyError:
            return None
        probs = belief.probs
        mass = [sum(probs[k] for k in leaves) for leaves in inside]
        if min(mass) <= 0.0:
            return None
        prior = [m / sum(mass) for m in mass]
        best: tuple[Any, ...] | None = None
        for candidate in self.offered_at():
            if candidate.rule.question != question:
                continue
            table = outcome_table(structure, belief.keys, candidate.rule)
            rows = [
                [
                    sum(probs[k] * row[k] for k in leaves) / m
                    for leaves, m in zip(inside, mass, strict=True)
                ]
                for row in table
            ]
            gain = mutual_information_bits(prior, rows)
            cost = candidate.cost_under(structure.answers)
            key = (-round(gain, 12), COST_ORDER.get(cost, 9), candidate.probe)
            if best is None or key < best[0]:
                best = (key, candidate.probe, candidate.rule.id, gain)
        if best is None:
            return None
        return Separation(best[1], best[2], best[3])
