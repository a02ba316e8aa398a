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

The ranking of next steps still expects an A/B's three outcomes crisply: what it says a step
will tell is an upper bound where the result lands inside the margin.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    def said(self) -> str:
        """The reading in words, for the evidence's rationale."""
        if self.leans_to is None:
            return f"outcome {self.outcome!r}"
        return (
            f"outcome {self.outcome!r}, within the margin but leaning to {self.leans_to!r}: "
            f"read as {1 - self.lean:.0%} 'same' and {self.lean:.0%} {self.leans_to!r}"
        )


def read_speedup(rule: Rule, scaled: float) -> SpeedupReading:
    """The reading of a speedup in noise units (``log speedup / log(1 + margin)``) under an
    experiment rule whose outcomes are ``slower``, ``same`` and ``faster``. The figure is
    rounded first, so a difference of exactly the margin (103 against 100 at 3 %) is the
    outcome beyond it whatever the floating point says."""
    scaled = round(scaled, 9)
    side = "faster" if scaled > 0 else "slower"
    lean = round((abs(scaled) - PLAIN_SAME_WITHIN) / (1.0 - PLAIN_SAME_WITHIN), 6)
    if lean >= 1.0:
        return _column(rule, side)
    if lean <= 0.0:
        return _column(rule, "same")
    return SpeedupReading(
        outcome="same",
        likelihoods={
            h: _blend(row["same"], row[side], lean) for h, row in rule.likelihoods.items()
        },
        otherwise=_blend(rule.otherwise["same"], rule.otherwise[side], lean),
        leans_to=side,
        lean=lean,
    )


def _column(rule: Rule, outcome: str) -> SpeedupReading:
    return SpeedupReading(
        outcome=outcome,
        likelihoods={h: row[outcome] for h, row in rule.likelihoods.items()},
        otherwise=rule.otherwise[outcome],
    )


def _blend(same: float, side: float, lean: float) -> float:
    return round((1.0 - lean) * same + lean * side, 9)
