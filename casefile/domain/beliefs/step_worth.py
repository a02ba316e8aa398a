"""What a ranked step is worth in the order of next steps, beyond the bits it is expected to
tell: its cost, and for an A/B that tries the leading hypothesis's remedy, the leader's lead.

The ranking (:mod:`casefile.domain.beliefs.ranking`) computes the information; this module
turns it into the sort key and the figure the front ends show as "ranked", so that both read
one definition.
"""

from __future__ import annotations

from collections.abc import Sequence

from casefile.domain.rules import Rule

COST_ORDER = {"instant": 0, "cheap": 1, "moderate": 2, "expensive": 3, "intrusive": 4}
#: What a step's information is worth at its cost, for ordering only (the bits shown are the
#: bits expected): a query beats a ten-minute benchmark unless the benchmark is expected to
#: tell noticeably more, and a benchmark beats a reboot into firmware settings the same way.
COST_WEIGHT = {"instant": 1.0, "cheap": 0.95, "moderate": 0.85, "expensive": 0.7, "intrusive": 0.45}


def ordering(
    gain: float, cost: str, name: str, leaders: float | None = None
) -> tuple[float, float, int, str]:
    """The sort key of a ranked step: what it tells about the leaders, weighted by cost, then
    what it tells about the whole question, then cheaper, then name."""
    focus = gain if leaders is None else leaders
    return (
        -round(cost_weighted(focus, cost), 12),
        -round(cost_weighted(gain, cost), 12),
        COST_ORDER.get(cost, 9),
        name,
    )


def cost_weighted(bits: float, cost: str) -> float:
    """``bits`` at a step's cost (:data:`COST_WEIGHT`): with the leaders' bits, the figure
    next steps are ordered by, which the front ends show."""
    return bits * COST_WEIGHT.get(cost, 0.5)


#: The most an A/B that tests the leading hypothesis by its remedy is weighted (see
#: :func:`remedy_weight`): however far the leader stands ahead, looking first still wins when
#: it tells more than twice as much about the leaders
REMEDY_WEIGHT_MAX = 2.0
#: the outcome of an A/B that says its change helped
HELPED = "faster"


def remedy_note(separates: str, leader: str, weight: float) -> str:
    """A step's one line on the leaders, with why an A/B weighted as a remedy comes where it
    does (``…; tries data-loading's remedy, weighed ×1.9``)."""
    if weight <= 1.0:
        return separates
    return f"{separates}; tries {leader}'s remedy, weighed ×{weight:.1f}"


def remedy_weight(probs: Sequence[float], rule: Rule, table: Sequence[Sequence[float]]) -> float:
    """What an A/B that tests the leading hypothesis by its remedy is worth beyond what it
    tells: the ratio of the leader's probability to the runner-up's, at most
    :data:`REMEDY_WEIGHT_MAX`; 1 for any other step.

    A troubleshooter tries the likeliest fault's repair first when it costs about as much as
    looking: if the leader is right, the change that tests it is also the fix, and the case
    ends there. So an A/B whose "faster" is at least as likely under the leading leaf as under
    any other has its information about the leaders counted that many times over. A leader
    barely ahead gains almost nothing, and a step that only observes still comes first when
    it tells markedly more (the log that may say the job ran on the CPU)."""
    if HELPED not in rule.outcome_names or len(probs) < 2:
        return 1.0
    first, second = sorted(range(len(probs)), key=lambda k: (-probs[k], k))[:2]
    helped = table[rule.outcome_names.index(HELPED)]
    if not probs[second] > 0.0 or helped[first] < max(helped):
        return 1.0
    return min(REMEDY_WEIGHT_MAX, max(1.0, probs[first] / probs[second]))
