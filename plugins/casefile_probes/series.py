"""Time series from sampling probes, kept beside the one number a rule reads.

``nvidia-smi dmon`` and ``--query-gpu … -l 1`` print a reading per interval. Rules want one
value per GPU (the mean, kept under the metric's own name so that every rule written for it
still reads it), but a person chasing a slowdown wants the trend: a temperature that climbs,
a clock that falls after a minute under load. So each metric with two or more timed samples
also gets:

- ``<fact>.series`` (str): the samples, as compact JSON (see :func:`encode`), e.g.
  ``{"clock":"measured","start":"2024/01/04 10:29:09.123","t":[0,1.002],"v":[61,63]}``;
- ``<fact>.series.min``, ``.max``, ``.first``, ``.last`` (float, the metric's unit);
- ``<fact>.series.slope`` (unit ``<unit>/s``): the least-squares slope over the sample times,
  so that "temperature rising, clocks falling" is a sign a rule can test;
- the mean stays where it was, under ``<fact>`` itself.

The domain's facts hold a number, a string or a boolean, and nothing else; a series is a
string so that it travels in events unchanged, and it is written deterministically (sorted
keys, no spaces, times rounded to milliseconds, at most :data:`MAX_POINTS` (300) points
evenly thinned, a few KB whatever the run's length, summaries taken over every sample) so
that the same output always gives the same bytes. ``clock`` says where the times came
from: ``measured`` (the tool printed a timestamp per sample) or ``interval`` (sample number
× the interval given on the command line, or the tool's default).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from casefile.domain.facts import ParseResult

__all__ = [
    "MAX_POINTS",
    "Series",
    "add_series_facts",
    "decode",
    "encode",
    "parse_clock_time",
    "parse_timestamp",
    "slope",
]

#: Points kept in a ``.series`` fact; longer runs are thinned evenly (summaries use them all).
MAX_POINTS = 300

Clock = Literal["measured", "interval"]

_NVIDIA_SMI_STAMP = re.compile(
    r"^(?P<year>\d{4})[/-](?P<month>\d{2})[/-](?P<day>\d{2}) "
    r"(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})(?:\.(?P<fraction>\d{1,9}))?$"
)
_TIMESTAMP_FORMATS = (
    "%Y/%m/%d %H:%M:%S.%f",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%Y%m%d %H:%M:%S",
    "%a %b %d %H:%M:%S %Y",
)


@dataclass(frozen=True, slots=True)
class Series:
    """Samples of one metric on one subject: seconds since the first sample, and values."""

    times: tuple[float, ...]
    values: tuple[float, ...]
    clock: Clock = "measured"
    #: the first sample's timestamp as the tool printed it, when it printed one
    start: str | None = None


def _number(value: float) -> int | float:
    """An int when the value is whole (``61`` not ``61.0``): shorter, and reads as printed."""
    if value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _thin(count: int) -> list[int]:
    """Indices of at most MAX_POINTS samples, evenly spread, first and last included."""
    if count <= MAX_POINTS:
        return list(range(count))
    return [round(i * (count - 1) / (MAX_POINTS - 1)) for i in range(MAX_POINTS)]


def encode(series: Series) -> str:
    """The series as compact, deterministic JSON (the value of a ``.series`` fact)."""
    keep = _thin(len(series.values))
    data: dict[str, object] = {
        "clock": series.clock,
        "t": [_number(round(series.times[i], 3)) for i in keep],
        "v": [_number(series.values[i]) for i in keep],
    }
    if series.start is not None:
        data["start"] = series.start
    if len(keep) != len(series.values):
        data["n"] = len(series.values)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def decode(text: str) -> Series | None:
    """A series back from :func:`encode`'s JSON; None for anything else (never raises)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    times, values, clock = data.get("t"), data.get("v"), data.get("clock")
    if not isinstance(times, list) or not isinstance(values, list) or len(times) != len(values):
        return None
    numbers = [*times, *values]
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
        return None
    if clock not in ("measured", "interval"):
        return None
    start = data.get("start")
    return Series(
        times=tuple(float(t) for t in times),
        values=tuple(float(v) for v in values),
        clock="measured" if clock == "measured" else "interval",
        start=start if isinstance(start, str) else None,
    )


def slope(times: tuple[float, ...], values: tuple[float, ...]) -> float | None:
    """Least-squares change per second; None with fewer than two distinct times."""
    count = len(times)
    if count < 2 or count != len(values):
        return None
    if len(set(times)) < 2:
        return None
    if min(values) == max(values):
        return 0.0  # flat, exactly: no float noise from the means
    mean_t = math.fsum(times) / count
    mean_v = math.fsum(values) / count
    offsets = [t - mean_t for t in times]
    spread = math.fsum([d * d for d in offsets])
    if spread <= 0.0:
        return None
    change = math.fsum([d * (v - mean_v) for d, v in zip(offsets, values, strict=True)])
    result = change / spread
    if not math.isfinite(result):
        return None
    # Six significant digits: a trend, not float noise, and the same bytes on every machine.
    return float(f"{result:.6g}")


def add_series_facts(
    result: ParseResult, name: str, subject: str, unit: str | None, series: Series
) -> None:
    """Add ``<name>.series`` and its summaries, when there are at least two samples."""
    if len(series.values) < 2 or len(series.times) != len(series.values):
        return
    if not (all(map(math.isfinite, series.values)) and all(map(math.isfinite, series.times))):
        return
    result.add(f"{name}.series", encode(series), subject, unit)
    # Floats always, like the mean beside them: one type per fact name, whatever was printed.
    result.add(f"{name}.series.min", float(min(series.values)), subject, unit)
    result.add(f"{name}.series.max", float(max(series.values)), subject, unit)
    result.add(f"{name}.series.first", float(series.values[0]), subject, unit)
    result.add(f"{name}.series.last", float(series.values[-1]), subject, unit)
    per_second = f"{unit}/s" if unit else "1/s"
    result.add(f"{name}.series.slope", slope(series.times, series.values), subject, per_second)


def parse_timestamp(text: str) -> datetime | None:
    """A timestamp as nvidia-smi prints it (``2024/01/04 10:29:09.123`` …); None otherwise."""
    cleaned = " ".join(text.split())
    # nvidia-smi's own layout first, without strptime (a looped query has one per row).
    match = _NVIDIA_SMI_STAMP.match(cleaned)
    if match is not None:
        fraction = match.group("fraction") or ""
        try:
            return datetime(
                int(match.group("year")),
                int(match.group("month")),
                int(match.group("day")),
                int(match.group("hour")),
                int(match.group("minute")),
                int(match.group("second")),
                int((fraction + "000000")[:6]),
            )
        except ValueError:
            return None
    for layout in _TIMESTAMP_FORMATS:
        try:
            return datetime.strptime(cleaned, layout)
        except ValueError:
            continue
    return None


def parse_clock_time(text: str) -> float | None:
    """Seconds since midnight from ``HH:MM:SS`` (dmon's ``-o T`` column); None otherwise."""
    parts = text.strip().split(":")
    if len(parts) != 3 or not all(part.isdigit() and len(part) <= 2 for part in parts):
        return None
    hours, minutes, seconds = (int(part) for part in parts)
    if hours > 23 or minutes > 59 or seconds > 60:
        return None
    return float(hours * 3600 + minutes * 60 + seconds)
