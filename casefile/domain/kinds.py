"""The kinds of evidence and how far each is trusted by default.

A module of its own because front ends offer the kinds as choices before anything else is
loaded (``casefile evidence add --kind`` must not pay for the fold to print its help).
"""

from __future__ import annotations

#: How far each kind of evidence is trusted unless the assessor says otherwise. A measurement
#: still gets less than 1: a probe can be misread or taken at the wrong moment.
DEFAULT_RELIABILITY = {"measured": 0.9, "calculated": 0.6, "reported": 0.5, "assumed": 0.3}
KINDS = tuple(DEFAULT_RELIABILITY)
#: How far a person's own account is trusted when it carries what they saw: an answer about
#: their own system, a reading stated with its values, an A/B stated with both runs' figures.
#: The evidence stays ``reported`` (the case holds no run of it), but it is firmer than an
#: outcome told only in words ("fixed by that setting"), which keeps ``reported``'s 0.5, and
#: weaker than a measurement the case holds.
STATED_RELIABILITY = 0.7


def reported_reliability(rule_reliability: float, *, figures: bool) -> float:
    """How far a rule's reading of what a person told counts: never more than the rule's own
    reliability, and at most :data:`STATED_RELIABILITY` when it carries its figures (a reading's
    values, an A/B's two numbers), ``reported``'s default when it is told only in words."""
    ceiling = STATED_RELIABILITY if figures else DEFAULT_RELIABILITY["reported"]
    return min(rule_reliability, ceiling)
