"""How large an A/B's effect was: a change that halves the time says more than one past the noise.

A rule names three outcomes, and "faster" covers 12 % and 5×. Those are different results.
Amdahl's law bounds what a change can do: one that removes a single cost speeds a run up by
at most 1 / (1 - that cost's share of the time). So a gain of 2× or more says the cost the
change removes took at least half the time. CUDA graphs remove launch overhead; five times
the throughput under them means launches were most of the step. Under the hypotheses that
blame the cost a change removes, such gains are common. Under the others, the change was not
aimed at the limit, and it seldom halves the time.

A rule lists the hypotheses that can give its large effect: ``large_gain`` for a large
"faster" (its named hypotheses only: a larger batch raises throughput many times over for
launch-bound and memory-bound decode alike, so ``batch-size`` lists none), ``large_loss`` for
a large "slower" (a heat-soaked run at half the speed of a cold one). A side with such a list
is read in two tiers. Of what makes the side's outcome, a share goes to the large tier:
:data:`NAMED_SHARE` for a listed hypothesis, :data:`OTHER_SHARE` for the rest and
``otherwise``. The modest tier keeps the remainder. Each hypothesis's row still sums to one
over the four outcomes, and a side whose outcome nobody names large reads as before.

Between :data:`LARGE_FROM` and :data:`LARGE_AT` the reading moves in a straight line (on the
log of the ratio) from the modest tier to the large one, so there is no cliff at 2×. An
outcome stated in words carries no size and reads the whole column ("better"), except
"fixed", which says the change took the trouble away and reads the large tier (see
:mod:`casefile.domain.experiment_outcome`); the ranking of next steps, which expects the
three outcomes, reads the whole column. What a step will tell is
then a lower bound where the result lands in a tier.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from casefile.errors import RuleError

#: a ratio from which an effect starts to read as large (a third of the time removed)
LARGE_FROM = 1.5
#: a ratio at and beyond which an effect reads as large (half the time removed)
LARGE_AT = 2.0
#: of the runs a listed hypothesis moves the side's way, the share that move 2× or more: the
#: change removes the very cost it blames, which was the limit
NAMED_SHARE = 0.5
#: of the runs any other hypothesis (or ``otherwise``) moves the side's way, the share that
#: move 2× or more: the change was not aimed at the limit
OTHER_SHARE = 0.1
#: the TOML key that lists a side's hypotheses, by the side it reads
KEYS = {"faster": "large_gain", "slower": "large_loss"}


@dataclass(frozen=True)
class LargeEffect:
    """The hypotheses that can give a large effect on one side of a rule's A/B."""

    outcome: str
    hypotheses: tuple[str, ...]

    def share(self, hypothesis: str | None) -> float:
        """The share of the side's likelihood that goes to the large tier (None: ``otherwise``)."""
        return NAMED_SHARE if hypothesis in self.hypotheses else OTHER_SHARE


def large_effects_from(
    data: Mapping[str, object], rows: Collection[str], label: str
) -> tuple[LargeEffect, ...]:
    """The ``large_gain`` and ``large_loss`` lists of an experiment rule, checked: each names
    hypotheses the rule's likelihood table has a row for (a large effect is a share of that
    row's column; a hypothesis without a row reads ``otherwise``, which no list can name)."""
    effects = []
    for outcome, key in KEYS.items():
        raw = data.get(key)
        if raw is None:
            continue
        if not isinstance(raw, list) or not raw or not all(isinstance(h, str) for h in raw):
            raise RuleError(f"{label}: '{key}' must list the hypotheses that can give it")
        missing = sorted(set(raw) - set(rows))
        if missing:
            raise RuleError(f"{label}: '{key}' names {missing}, which its likelihoods do not")
        effects.append(LargeEffect(outcome, tuple(raw)))
    return tuple(effects)


def large_lean(size: float) -> float:
    """How far a ratio (1 or more, on the side it moved) reads as large: 0 below
    :data:`LARGE_FROM`, 1 from :data:`LARGE_AT`, a straight line on its log between."""
    if not size > LARGE_FROM:
        return 0.0
    lean = math.log(size / LARGE_FROM) / math.log(LARGE_AT / LARGE_FROM)
    return round(min(lean, 1.0), 6)


def tiered(value: float, effect: LargeEffect, hypothesis: str | None, lean: float) -> float:
    """One side likelihood read in tiers: the modest tier blended with the large one by
    ``lean`` (see :func:`large_lean`)."""
    share = effect.share(hypothesis)
    return round(value * ((1.0 - lean) * (1.0 - share) + lean * share), 9)


def names_explain(effect: LargeEffect) -> str:
    """The hypotheses that give a side's large effect, with their verb ("p2p-lost, library-path
    explain")."""
    verb = "explains" if len(effect.hypotheses) == 1 else "explain"
    return f"{', '.join(effect.hypotheses)} {verb}"


def said(effect: LargeEffect, size: float, lean: float) -> str:
    """The tier in words, for the evidence's rationale."""
    figure = f"{size:.3g}×"
    if lean <= 0.0:
        return f"{figure} is a modest effect ({LARGE_FROM:g}× or less)"
    if lean >= 1.0:
        return f"{figure} is a large effect ({LARGE_AT:g}× or more, which {names_explain(effect)})"
    return (
        f"{figure} is read {share_words(lean)} as a large effect ({LARGE_AT:g}× or more, which "
        f"{names_explain(effect)})"
    )


def share_words(lean: float) -> str:
    """A lean strictly between 0 and 1 as a percentage that never says 0 % or 100 %."""
    if lean < 0.005:
        return "under 1%"
    if lean >= 0.995:
        return "over 99%"
    return f"{lean:.0%}"


def in_words(effects: Sequence[LargeEffect]) -> str:
    """A rule's large effects as a reader sees them in its listing ("" where it names none)."""
    words = {
        "faster": ("a gain", "half the time removed"),
        "slower": ("a loss", "the time doubled"),
    }
    return "; ".join(
        f"{words[e.outcome][0]} of {LARGE_AT:g}× or more ({words[e.outcome][1]}) counts far "
        f"more for {', '.join(e.hypotheses)} than for the rest; one of {LARGE_FROM:g}× or less "
        f"about half as much as {words[e.outcome][0]} of no stated size"
        for e in effects
    )
