"""Which way is better for an A/B's figures, and what said so.

Throughput is better higher, a duration lower; a rule's metric has its own way, but figures
written in another unit may run the other way, so the unit is asked before the rule, and a
metric the rule does not measure (``--metric step_time``) is read by its name, never by the
rule's way.
"""

from __future__ import annotations

from dataclasses import dataclass

from casefile.domain.experiments import NAMED_ID, ExperimentRule
from casefile.domain.units import name_direction, unit_direction


@dataclass(frozen=True)
class Direction:
    """Which way is better for an experiment's figures, and what said so: ``--direction``
    (stated), the figures' ``unit``, the ``metric``'s name (``name`` holds it), the ``rule``
    reading the change, or ``asked`` at the terminal."""

    higher_is_better: bool
    source: str
    name: str | None = None

    def describe(self, unit: str | None) -> str:
        way = "higher" if self.higher_is_better else "lower"
        why = {
            "stated": "as stated (--direction)",
            "unit": f"for {unit}",
            "metric": f"for {self.name}, as its name says",
            "rule": "by the rule",
            "asked": f"for {unit}, as answered" if unit else "as answered",
        }.get(self.source, self.source)
        return f"{way} is better {why}"


def settle_direction(
    stated: bool | None,
    unit: str | None,
    rule: ExperimentRule | None,
    metric: str | None = None,
) -> Direction | None:
    """Which way is better, or None when nothing says: ``--direction`` wins, then the unit;
    for figures with no unit at all, the rule's own ``higher_is_better`` where they are of a
    metric it measures (the generic table for ``--tests`` has none), else what the metric's
    name says (``step_time`` is a duration, ``tokens_per_s`` a rate).

    A unit that names neither a duration nor a rate leaves it open, whatever the rule or the
    name says: the rule's direction is its metric's, and figures in another unit may run the
    other way. So does a metric the rule does not measure whose name says neither (a person's
    ``--metric score``): the rule's way is its own metric's, not a stranger's. ``metric``
    None is a figure of the rule's own."""
    if stated is not None:
        return Direction(stated, "stated")
    by_unit = unit_direction(unit)
    if by_unit is not None:
        return Direction(by_unit, "unit")
    if (unit or "").strip():
        return None
    if rule is not None and rule.id != NAMED_ID and (metric is None or metric in rule.metric):
        return Direction(rule.higher_is_better, "rule")
    by_name = name_direction(metric)
    return None if by_name is None else Direction(by_name, "metric", metric)
