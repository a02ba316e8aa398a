"""How an A/B's speedup reads as an experiment rule's outcome, near the noise margin included.

A rule names three outcomes: "faster" and "slower" beyond one noise margin, "same" within it
(see :mod:`casefile.domain.experiments`). Read crisply, a margin is a cliff: a GPU 9.9 % slower
once heat-soaked, against a 10 % margin, would count as strongly for "heat changes nothing"
as an identical run, and 10.1 % as strongly for throttling. A difference that close to the
margin says little either way, so inside the margin the reading is graded: up to a quarter of
the margin it is plain "same" (the wobble every rerun shows); from there to the margin, the
likelihoods move in a straight line from the "same" column to the column on the difference's
side, reaching it at the margin, where the crisp reading takes over. The two readings agree
everywhere except inside the margin, and the graded one has no step anywhere.

The outcome named on the evidence stays "same" (the difference is within the noise); the
rationale says which way it leans and how far, and the likelihoods are the blend.

Beyond the margin, a rule that names which hypotheses give a large effect reads the side in
two tiers, modest and large (see :mod:`casefile.domain.effect_size`): 5× under CUDA graphs says
more for launch overhead than 12 % does.

An outcome stated in words carries no size, so it reads its side's whole column, but for one
word: "fixed" says the change took the trouble away. The cost it removed was the limit, which is
what a large effect says of a rule's side (Amdahl's bound read the other way: what is left after
the change is what the job should take), so "fixed" reads the large tier where the rule names one.
"Better" says only which way.

The ranking of next steps still expects an A/B's three outcomes crisply: what it says a step
will tell is an upper bound where the result lands inside the margin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casefile.domain import effect_size
from casefile.domain.effect_size import LargeEffect
from casefile.domain.rules import Rule

#: Up to this share of the noise margin, a difference is plain "same": a rerun's wobble
PLAIN_SAME_WITHIN = 0.25


@dataclass(frozen=True)
class SpeedupReading:
    """An A/B's outcome under a rule: the outcome named, the likelihoods for the hypotheses
    the rule names and its ``otherwise``, and, inside the margin, the outcome the difference
    leans to with the share of that outcome's column in the blend (0: plain "same")."""

    outcome: str
    likelihoods: dict[str, float]
    otherwise: float
    leans_to: str | None = None
    lean: float = 0.0
    #: the effect's size in words where the rule reads its side in tiers
    size: str | None = None
    #: where it does, how far the effect read as large (0: modest, as any reading inside the
    #: margin is, blended with its side's modest tier; 1: large)
    large_lean: float | None = None

    def said(self) -> str:
        """The reading in words, for the evidence's rationale."""
        if self.size is not None:
            return f"outcome {self.outcome!r}: {self.size}"
        if self.leans_to is None:
            return f"outcome {self.outcome!r}"
        tier = " (its modest tier)" if self.large_lean is not None else ""
        return (
            f"outcome {self.outcome!r}, within the margin but leaning to {self.leans_to!r}: "
            f"read as {1 - self.lean:.0%} 'same' and {self.lean:.0%} {self.leans_to!r}{tier}"
        )


def read_speedup(
    rule: Rule, scaled: float, ratio: float | None = None, large: Sequence[LargeEffect] = ()
) -> SpeedupReading:
    """The reading of a speedup in noise units (``log speedup / log(1 + margin)``) under an
    experiment rule whose outcomes are ``slower``, ``same`` and ``faster``; ``ratio`` is the
    same speedup as a ratio (needed where ``large`` names a side, whose effect it reads in
    tiers). The figure is rounded first, so a difference of exactly the margin (103 against
    100 at 3 %) is the outcome beyond it whatever the floating point says."""
    if large and not _agrees(scaled, ratio):
        raise ValueError(f"the ratio {ratio!r} is not the speedup {scaled!r} noise units say")
    scaled = round(scaled, 9)
    side = "faster" if scaled > 0 else "slower"
    lean = round((abs(scaled) - PLAIN_SAME_WITHIN) / (1.0 - PLAIN_SAME_WITHIN), 6)
    if lean <= 0.0:
        return _column(rule, "same")
    effect = next((e for e in large if e.outcome == side), None)
    # inside the margin an effect is modest whatever the margin: a wide one (a noise of 60 %)
    # must not let a "same" carry the large tier
    size = max(ratio, 1.0 / ratio) if ratio is not None and lean >= 1.0 else 1.0
    column = _side(rule, side, effect, size)
    if lean >= 1.0:
        return column
    return SpeedupReading(
        outcome="same",
        likelihoods={
            h: _blend(row["same"], column.likelihoods[h], lean)
            for h, row in rule.likelihoods.items()
        },
        otherwise=_blend(rule.otherwise["same"], column.otherwise, lean),
        leans_to=side,
        lean=lean,
        large_lean=None if effect is None else 0.0,
    )


#: the stated outcome that says the change took the trouble away (read as a large effect)
REMOVED_THE_TROUBLE = "fixed"


def read_stated(
    rule: Rule, stated: str, outcome: str, large: Sequence[LargeEffect] = ()
) -> SpeedupReading:
    """The reading of an outcome stated in words (``stated``: fixed, better, same, worse) as
    the rule's ``outcome``: its column, in the large tier for "fixed" where the rule reads that
    side in tiers (see the module's docstring)."""
    effect = next((e for e in large if e.outcome == outcome), None)
    if stated != REMOVED_THE_TROUBLE or effect is None:
        return _column(rule, outcome)
    return SpeedupReading(
        outcome=outcome,
        likelihoods={
            h: effect_size.tiered(row[outcome], effect, h, 1.0)
            for h, row in rule.likelihoods.items()
        },
        otherwise=effect_size.tiered(rule.otherwise[outcome], effect, None, 1.0),
        size=(
            f"{REMOVED_THE_TROUBLE!r} reads as a large effect: the change took the trouble "
            f"away, which {effect_size.names_explain(effect)}"
        ),
        large_lean=1.0,
    )


def _agrees(scaled: float, ratio: float | None) -> bool:
    """Whether ``ratio`` is a positive speedup (infinity too: a subnormal figure inverted) on
    the side ``scaled`` says; 1 only where ``scaled`` is none."""
    if ratio is None or not ratio > 0.0:
        return False
    if round(scaled, 9) == 0.0:
        return True
    return (ratio > 1.0) == (scaled > 0)


def _column(rule: Rule, outcome: str) -> SpeedupReading:
    return SpeedupReading(
        outcome=outcome,
        likelihoods={h: row[outcome] for h, row in rule.likelihoods.items()},
        otherwise=rule.otherwise[outcome],
    )


def _side(rule: Rule, side: str, effect: LargeEffect | None, size: float) -> SpeedupReading:
    """A side's column, in the tier its size reads as where the rule names a large effect."""
    if effect is None:
        return _column(rule, side)
    lean = effect_size.large_lean(size)
    return SpeedupReading(
        outcome=side,
        likelihoods={
            h: effect_size.tiered(row[side], effect, h, lean) for h, row in rule.likelihoods.items()
        },
        otherwise=effect_size.tiered(rule.otherwise[side], effect, None, lean),
        size=effect_size.said(effect, size, lean),
        large_lean=lean,
    )


def _blend(same: float, side: float, lean: float) -> float:
    return round((1.0 - lean) * same + lean * side, 9)
