"""Text for numbers: confidence bars, fixed-scale sparklines, trend arrows, time stamps.

Pure functions, so they are tested on their text. Every meaning drawn in colour also has a
glyph or a word here (the TUI stays readable with ``NO_COLOR`` and in a 16-colour terminal).
"""

from __future__ import annotations

from collections.abc import Sequence

from casefile.app.views.times import LOCAL, compact_timestamp, timestamp, timestamp_parts

#: One glyph per eighth, from empty to full.
SPARK = " ▁▂▃▄▅▆▇█"
#: A change smaller than this reads as "steady".
STEADY = 0.005


def sparkline(values: Sequence[float], width: int | None = None) -> str:
    """Confidences on a fixed 0–1 scale: 5 % → 6 % stays a small step, not a full swing
    (Textual's own ``Sparkline`` rescales each series to its min and max)."""
    chosen = list(values) if width is None else list(values)[-width:]
    text = "".join(SPARK[_eighths(v)] for v in chosen)
    # padding is a dot: a point of (near) zero is a blank, and the two must not look alike
    return text if width is None else text.rjust(width, "·")


def _eighths(value: float) -> int:
    """0–8; anything above zero draws at least the lowest glyph (1 % is not nothing)."""
    eighths = max(0, min(8, round(value * 8)))
    return 1 if eighths == 0 and value > 0.001 else eighths


def bar(value: float, width: int = 10) -> str:
    """A confidence as a bar of ``width`` cells, in eighths."""
    eighths = max(0, min(width * 8, round(value * width * 8)))
    full, part = divmod(eighths, 8)
    text = "█" * full + (SPARK[part] if part else "")
    return text.ljust(width, "·")


def trend(change: float) -> str:
    if change > STEADY:
        return "↑"
    if change < -STEADY:
        return "↓"
    return "→"


def percent(value: float) -> str:
    return f"{value * 100:5.1f}%"


def short_time(when: str) -> str:
    """A stored time as the CLI's lines show it, in the machine's zone and saying which
    (``2026-03-02 10:51 +01:00``): one format for both front ends."""
    return timestamp(when, LOCAL)


def compact_time(when: str, newest: str) -> str:
    """A time in a column whose zone is said once, above it (``03-02 10:51``; the year or the
    zone only where they differ from ``newest``'s)."""
    return compact_timestamp(when, newest, LOCAL)


def zone_said(when: str) -> str:
    """The zone ``when`` is shown in (``UTC``, ``+01:00``): a column's header says it once."""
    return timestamp_parts(when, LOCAL)[2]


def long_time(when: str) -> str:
    """The same with seconds (``2026-03-02 10:51:00 +01:00``), as the CLI's detail shows it."""
    return timestamp(when, LOCAL, seconds=True)
