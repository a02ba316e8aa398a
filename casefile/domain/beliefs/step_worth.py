"""What a ranked step is worth in the order of next steps, beyond the bits it is expected to
tell: its cost, and for an A/B that tries the leading hypothesis's remedy, the leader's lead.

The ranking (:mod:`casefile.domain.beliefs.ranking`) computes the information; this module
turns it into the sort key and the figure the front ends show as "ranked", so that both read
one definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casefile.domain.experiments import OUTCOMES
from casefile.domain.rules import Rule

COST_ORDER = {"instant": 0, "cheap": 1, "moderate": 2, "expensive": 3, "intrusive": 4}
#: What a step's information is worth at its cost, for ordering only (the bits shown are the
#: bits expected): a query beats a ten-minute benchmark unless the benchmark is expected to
#: tell noticeably more, and a benchmark beats a reboot into firmware settings the same way.
COST_WEIGHT = {"instant": 1.0, "cheap": 0.95, "moderate": 0.85, "expensive": 0.7, "intrusive": 0.45}


def ordering(
    gain: float, cost: str, name: str, leaders: float | None = None, weight: float = 1.0
) -> tuple[float, float, int, str]:
    """The sort key of a ranked step: its :func:`ranked_bits` (what it tells about the leaders,
    times its remedy weight, at its cost), then what it tells about the whole question, then
    cheaper, then name."""
    focus = gain if leaders is None else leaders
    return (
        -round(ranked_bits(focus, weight, cost), 12),
        -round(cost_weighted(gain, cost), 12),
        COST_ORDER.get(cost, 9),
        name,
    )


def cost_weighted(bits: float, cost: str) -> float:
    """``bits`` at a step's cost (:data:`COST_WEIGHT`); see :func:`ranked_bits` for the
    figure next steps are ordered by."""
    return bits * COST_WEIGHT.get(cost, 0.5)


#: The most an A/B that tries the leading hypothesis's remedy is weighted (see
#: :func:`remedy`): at equal cost, a step that only looks still comes first when it tells more
#: than twice as much about the leaders (an instant look against a moderate A/B: about 1.7x)
REMEDY_WEIGHT_MAX = 2.0
#: the outcome of an A/B that says its change helped
HELPED = OUTCOMES[0]
#: likelihoods closer than this are the same (a tempered ``otherwise`` is not bit-exact)
TIE = 1e-9
#: below this a weight is not worth a word on the step's line (it moves nothing visible)
NOTED_FROM = 1.05


@dataclass(frozen=True)
class Remedy:
    """An A/B's standing as the leading hypothesis's remedy: how much its information about
    the leaders is weighted (1: not weighted), and the leaf whose remedy it is."""

    weight: float = 1.0
    leader: int | None = None


NOT_A_REMEDY = Remedy()


def remedy(probs: Sequence[float], rule: Rule, table: Sequence[Sequence[float]]) -> Remedy:
    """Whether an A/B tries the leading hypothesis's remedy, and how far the leader stands
    ahead: its probability over the runner-up's, at most :data:`REMEDY_WEIGHT_MAX`.

    A troubleshooter tries the likeliest fault's repair first when it costs about as much as
    looking: if the leader is right, the change that tests it is also the fix, and the case
    ends there. An A/B is the leader's remedy when its "faster" is likelier under the leading
    leaf than under the runner-up and under every leaf the rule does not name (its
    ``otherwise``), and no less likely than under any other leaf: a rule that gives the leader
    only its ``otherwise`` row (a heat-soak A/B for a data loader), or the runner-up as much
    (one change for two causes of one class), or a catch-all that leads, is not weighted. A
    leader barely ahead gains almost nothing."""
    if HELPED not in rule.outcome_names or len(probs) < 2:
        return NOT_A_REMEDY
    first, second = sorted(range(len(probs)), key=lambda k: (-probs[k], k))[:2]
    helped = table[rule.outcome_names.index(HELPED)]
    if not probs[second] > 0.0:
        return NOT_A_REMEDY
    leader = helped[first]
    above = max(helped[second], rule.otherwise[HELPED]) + TIE
    if leader < max(helped) or leader < above:
        return NOT_A_REMEDY
    return Remedy(min(REMEDY_WEIGHT_MAX, probs[first] / probs[second]), first)


def remedy_note(separates: str, leader: str, weight: float) -> str:
    """A step's one line on the leaders, with why an A/B weighted as the leader's remedy
    comes where it does (``…; tries data-loading's remedy, weighted ×1.94``)."""
    if weight < NOTED_FROM:
        return separates
    return f"{separates}; tries {leader}'s remedy, weighted ×{weight:.2f}"


def ranked_bits(leaders_bits: float, weight: float, cost: str) -> float:
    """The figure next steps are ordered by, which the front ends show as "ranked": what a step
    tells about the leaders, times its remedy weight, at its cost."""
    return cost_weighted(leaders_bits * weight, cost)
