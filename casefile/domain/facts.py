"""Facts: named values with a unit and a subject, parsed from a probe's raw output.

Names follow nvidia-smi's own ``--query-gpu`` fields where one exists
(``pcie.link.gen.current``, ``utilization.gpu``, ``power.draw`` …). Subjects name a GPU
(``gpu0``), a pair (``gpu0-gpu1``), a PCI address (``0000:01:00.0``) or the host (``host``).
A value that the tool reports as ``[N/A]`` or ``[Not Supported]`` is absent: no fact is made,
rather than a zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FactValue = float | int | str | bool

#: the scale a probe gives a share on (``Probe.fractions`` and ``Probe.percentages``), where a
#: value a person states or a pattern pulls out of text could be on the other
Scale = Literal["fraction", "percentage"]
#: each scale's range, as messages name it ("… is no fraction from 0 to 1")
SCALE_RANGES: dict[Scale, str] = {
    "fraction": "fraction from 0 to 1",
    "percentage": "percentage from 0 to 100",
}


def is_percentage(value: FactValue, signed: bool = False) -> bool:
    """Whether a value can be a percentage a probe gives (0 to 100), and is not a fraction
    written for one. Without its sign, a value strictly between 0 and 1 ("0.9" for 90 %) is
    taken for a fraction, which a rule would read as a GPU idle below 1 %; ``signed`` (written
    "0.33 %") says it is a percentage, as an idle GPU's mean utilisation can be."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return 0 <= value <= 100 and (signed or value == 0 or value >= 1)


def is_fraction(value: FactValue) -> bool:
    """Whether a value can be a share from 0 to 1, as a probe's ``fractions`` are given: 32
    (a percentage written as a number) would pass every band a rule draws for fractions."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return 0.0 <= value <= 1.0


def fits_scale(value: FactValue, unit: str | None, scale: Scale) -> bool:
    """Whether ``value``, written with ``unit``, is on ``scale``: a fraction has no unit (a
    share written "32 %" is a percentage); a percentage has none or "%", and only with its
    sign may it fall strictly between 0 and 1. The one check behind ``--stated`` and
    ``--fact``, so a share is held to its scale however it comes in."""
    if scale == "fraction":
        return unit is None and is_fraction(value)
    return unit in (None, "%") and is_percentage(value, signed=unit == "%")


@dataclass(frozen=True, slots=True)
class Fact:
    name: str
    value: FactValue
    subject: str = "host"
    unit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "unit": self.unit, "subject": self.subject}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fact:
        return cls(
            name=data["name"],
            value=data["value"],
            subject=data.get("subject", "host"),
            unit=data.get("unit"),
        )


@dataclass(slots=True)
class ParseResult:
    """What a parser could read from raw output, and what it could not.

    ``parsed`` is False when nothing useful came out (an error message instead of output,
    a different command's output, an empty paste); ``problems`` says why, one reason a line.
    A parser never raises on bad input: it returns a result with problems instead.
    """

    facts: list[Fact] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parsed: bool = True

    @classmethod
    def unparsed(cls, reason: str) -> ParseResult:
        return cls(facts=[], problems=[reason], parsed=False)

    def add(
        self, name: str, value: FactValue | None, subject: str = "host", unit: str | None = None
    ) -> None:
        """Add a fact; a ``None`` value (N/A, not supported) is skipped, never stored as zero."""
        if value is not None:
            self.facts.append(Fact(name=name, value=value, subject=subject, unit=unit))

    def values(self, name: str) -> dict[str, FactValue]:
        """All values of one fact name, by subject (handy in tests and rules)."""
        return {fact.subject: fact.value for fact in self.facts if fact.name == name}
