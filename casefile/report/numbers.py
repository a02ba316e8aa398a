"""How numbers read in every format (fixed precision: the same report, the same bytes)."""

from __future__ import annotations

from casefile.report.model import Likelihood, Ref


def pct(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 100:.1f} %"


def bits(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    text = f"{value:+.2f}" if signed else f"{value:.2f}"
    return text.replace("-0.00", "0.00").replace("+0.00", "0.00") + " bits"


def events(count: int) -> str:
    """A count of events as a sentence says it: "1 event", "6 events"."""
    return f"{count} event" if count == 1 else f"{count} events"


def prob(value: float) -> str:
    return f"{value:g}"


def likelihoods(rows: tuple[Likelihood, ...], otherwise: float) -> str:
    named = ", ".join(f"{row.hypothesis}={prob(row.value)}" for row in rows)
    return f"{named}; otherwise {prob(otherwise)}" if named else f"otherwise {prob(otherwise)}"


def ref_label(ref: Ref | None) -> str:
    return "—" if ref is None else ref.label
