"""Which way is better for an A/B's figures, and what said so.

Throughput is better higher, a duration lower; a rule's metric has its own way, but figures
written in another unit may run the other way, so the unit is asked before the rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from casefile.domain.experiments import NAMED_ID, ExperimentRule
from casefile.domain.units import unit_direction


@dataclass(frozen=True)
class Direction:
    """Which way is better for an experiment's figures, and what said so: ``--direction``
    (stated), the figures' ``unit``, the ``rule`` reading the change, or ``asked`` at the
    terminal."""

    higher_is_better: bool
    source: str

    def describe(self, unit: str | None) -> str:
        way = "higher" if self.higher_is_better else "lower"
        why = {
            "stated": "as stated (--direction)",
            "unit": f"for {unit}",
            "rule": "by the rule",
            "asked": f"for {unit}, as answered" if unit else "as answered",
        }.get(self.source, self.source)
        return f"{way} is better {why}"


def settle_direction(
    stated: bool | None, unit: str | None, rule: ExperimentRule | None
) -> Direction | None:
    """Which way is better, or None when nothing says: ``--direction`` wins, then the unit,
    then (only for figures with no unit at all) the rule's own ``higher_is_better`` (the
    generic table for ``--tests`` has none). A unit that names neither a duration nor a rate
    leaves it open, whatever the rule says: the rule's direction is its metric's, and figures
    in another unit may run the other way."""
    if stated is not None:
        return Direction(stated, "stated")
    by_unit = unit_direction(unit)
    if by_unit is not None:
        return Direction(by_unit, "unit")
    if rule is not None and rule.id != NAMED_ID and not (unit or "").strip():
        return Direction(rule.higher_is_better, "rule")
    return None
