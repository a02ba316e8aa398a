"""Times as a report prints them: in UTC, or in the zone the case declares, never the machine's.

A case declares its zone with an ``environment`` entry named ``timezone`` (or ``tz``) holding
an IANA name (``Europe/Berlin``). The machine's own zone (``TZ``, ``/etc/localtime``) is never
consulted, so the same case gives the same bytes anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from casefile.domain.environment import value as environment_value

ZONE_KEYS = ("timezone", "tz")


def case_zone(environment: Mapping[str, str]) -> tuple[tzinfo, str]:
    """The zone a case declares (and its name), else UTC; an unknown name falls back to UTC."""
    for key in ZONE_KEYS:
        name = environment_value(environment, key)
        if name:
            try:
                return ZoneInfo(str(name)), str(name)
            except (ZoneInfoNotFoundError, ValueError):
                break
    return UTC, "UTC"


def parse(stamp: str) -> datetime | None:
    """An event's time (``2026-03-02T09:51:00.000000Z``) as an aware datetime; None if bad."""
    try:
        value = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def show(stamp: str | None, zone: tzinfo) -> str:
    """``2026-03-02 09:51:00`` in ``zone`` (the zone's name is printed once, in the summary)."""
    if not stamp:
        return ""
    if zone is UTC and len(stamp) == 27 and stamp[10] == "T" and stamp[-1] == "Z":
        return f"{stamp[:10]} {stamp[11:19]}"  # casefile's own UTC stamps: no parsing
    value = parse(stamp)
    if value is None:
        return stamp
    return value.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")


def seconds_between(first: str, last: str) -> float | None:
    a, b = parse(first), parse(last)
    if a is None or b is None:
        return None
    return (b - a).total_seconds()


def duration(seconds: float | None) -> str:
    """``1 h 21 min``, ``3 min 5 s``, ``0 s``; ``unknown`` when a time could not be read."""
    if seconds is None:
        return "unknown"
    sign = "−" if seconds < 0 else ""
    total = round(abs(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if days:
        parts.append(f"{days} d")
    if hours:
        parts.append(f"{hours} h")
    if minutes:
        parts.append(f"{minutes} min")
    if secs and not days and not hours:
        parts.append(f"{secs} s")
    return sign + (" ".join(parts) if parts else "0 s")
