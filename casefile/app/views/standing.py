"""When a hypothesis low in confidence is "ruled out", and when it is only "unlikely".

A hypothesis is ruled out when evidence drove it below :data:`RULED_OUT_BELOW` from above it:
it held at least the threshold at some step up to now, and holds less now. One that was
never that likely (a small prior no evidence raised) is "unlikely (prior …)": nothing ruled
it out, and saying so would credit evidence with a verdict the prior gave. The TUI board and
the report both read the rule from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: Below this confidence a hypothesis reads as ruled out (or unlikely, never having reached it).
RULED_OUT_BELOW = 0.05

RULED_OUT = "ruled out"
UNLIKELY = "unlikely"


def standing(confidence: float, reached: bool) -> str | None:
    """ "ruled out", "unlikely", or None for a hypothesis at or above the threshold;
    ``reached``: it held at least the threshold at some step before."""
    if confidence >= RULED_OUT_BELOW:
        return None
    return RULED_OUT if reached else UNLIKELY


def unlikely_words(prior: float) -> str:
    """``unlikely (prior 2.7 %)``: the words for a hypothesis no evidence ever supported."""
    return f"{UNLIKELY} (prior {prior * 100:.1f} %)"


#: The event type whose steps weigh evidence: only around these is a peak a verdict's.
EVIDENCE_TYPE = "evidence.assessed"


@dataclass
class Reached:
    """Per hypothesis: the first evidence step at which it held at least the threshold (just
    before the evidence or right after it), and the confidence it held before its first
    evidence (its prior, as the finished tree gave it).

    Only evidence steps count: while hypotheses are proposed one by one, the first ones hold
    a large share for a moment (nothing else is proposed yet), which no evidence gave them.
    Fed in seq order with every step's changed questions (:meth:`see`); the confidences a
    question last held are kept, so an evidence step knows where it started from.
    """

    first_at: dict[str, int] = field(default_factory=dict)
    first_seen: dict[str, float] = field(default_factory=dict)
    last: dict[str, Mapping[str, float]] = field(default_factory=dict)

    def see(
        self, seq: int, event_type: str, question: str, confidences: Mapping[str, float]
    ) -> None:
        """Step ``seq`` (of ``event_type``) left ``question`` with ``confidences``."""
        before = self.last.get(question)
        self.last[question] = confidences
        if event_type != EVIDENCE_TYPE:
            return
        first_at = self.first_at
        first_seen = self.first_seen
        for held in (before or {}, confidences):
            for hid, value in held.items():
                if hid not in first_seen:
                    first_seen[hid] = value
                if value >= RULED_OUT_BELOW and hid not in first_at:
                    first_at[hid] = seq

    def by(self, hypothesis: str, seq: int) -> bool:
        """Whether ``hypothesis`` held at least the threshold at an evidence step up to
        ``seq``."""
        at = self.first_at.get(hypothesis)
        return at is not None and at <= seq

    def prior(self, hypothesis: str) -> float | None:
        """The confidence it held before its first evidence (None: no evidence weighed it)."""
        return self.first_seen.get(hypothesis)
