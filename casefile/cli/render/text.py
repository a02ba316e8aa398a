"""Small formatting helpers the terminal renderers share: percentages, bars, widths, and times
(from :mod:`casefile.app.views.times`, where the TUI reads them too)."""

from __future__ import annotations

# times have one home, shared with the TUI; the renderers import them from here
from casefile.app.views.times import LOCAL as LOCAL
from casefile.app.views.times import Zone as Zone
from casefile.app.views.times import timestamp as timestamp
from casefile.app.views.times import zone_label as zone_label

BAR_WIDTH = 20


def percent(value: float) -> str:
    return f"{value * 100:5.1f}%"


def fixed(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, never as ``-0.00`` (a rounding error below zero)."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


def bar(value: float) -> str:
    filled = round(max(0.0, min(1.0, value)) * BAR_WIDTH)
    return "█" * filled + "·" * (BAR_WIDTH - filled)


def short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def under_load(load: str) -> str:
    return " under load" if load == "under-load" else ""
