"""Times as a person reads them, in one format for every front end: the CLI's lines and the
TUI's panes show a stored time (``2026-03-02T09:03:15.000000Z``) the same way, in the same
zone (the machine's, ``TZ``), always with the zone said (``2026-03-02 10:03 +01:00``)."""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime, timedelta, tzinfo
from functools import cache

#: A zone to show times in: a tzinfo, or None for the machine's local zone (``TZ``), which
#: the CLI uses. The renderers default to UTC, so a golden or a report renders the same bytes
#: on every machine.
Zone = tzinfo | None
#: the machine's local zone, as the CLI shows times to the person at it
LOCAL: Zone = None


def _local(moment: datetime, seconds: bool) -> str | None:
    """``moment`` in the machine's zone through ``time.localtime`` (twice as fast as
    ``astimezone()``, which builds a tzinfo per call); None where the C library cannot."""
    try:
        local = time.localtime(math.floor(moment.timestamp()))
    except (OverflowError, OSError, ValueError):
        return None
    if local.tm_year < 1000:  # strftime pads no year below 1000: datetime's way
        return None
    shown = time.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M", local)
    return f"{shown} {_gmtoff_label(local.tm_gmtoff)}"


@cache
def _gmtoff_label(seconds: int) -> str:
    return _offset_label(timedelta(seconds=seconds))


@cache
def _offset_label(offset: timedelta | None) -> str:
    if not offset:
        return "UTC"
    sign = "-" if offset < timedelta(0) else "+"
    minutes, second = divmod(int(abs(offset).total_seconds()), 60)
    hour, minute = divmod(minutes, 60)
    return f"{sign}{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "")


def zone_label(moment: datetime) -> str:
    """``UTC`` for a zero offset, else the offset as ``+01:00``: abbreviations such as ``IST``
    name several zones, an offset only one instant."""
    return _offset_label(moment.utcoffset())


#: casefile's stored form (``2026-03-02T09:03:15.000000Z``), which UTC shows by slicing
_STORED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


def timestamp(when: str, zone: Zone = UTC, *, seconds: bool = False) -> str:
    """A stored time (``2026-03-02T09:03:15.000000Z``) as ``2026-03-02 10:03 +01:00`` in
    ``zone``, always with the zone shown; a time that cannot be read is shown as it is."""
    width = 19 if seconds else 16
    if zone is UTC and _STORED.fullmatch(when):  # the common case, without a datetime
        return f"{when[:10]} {when[11:width]} UTC"
    try:
        moment = datetime.fromisoformat(when)
    except (TypeError, ValueError):
        return when
    if moment.tzinfo is None:  # not casefile's stored form; it is UTC all the same
        moment = moment.replace(tzinfo=UTC)
    if zone is LOCAL:
        local = _local(moment, seconds)
        if local is not None:
            return local
    try:
        moment = moment.astimezone(zone)
    except (OverflowError, OSError, ValueError):  # year 1 shown west of Greenwich: stay UTC
        moment = moment.astimezone(UTC)
    # formatted by hand: strftime's %Y does not pad year 1 to four digits, and this is the
    # inner loop of a 100,000-event log
    shown = (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}"
    )
    if seconds:
        shown += f":{moment.second:02d}"
    return f"{shown} {_offset_label(moment.utcoffset())}"


#: what :func:`timestamp` gives: year, month-day and time, zone
_SHOWN = re.compile(r"(-?\d{4,})-(\d\d-\d\d \d\d:\d\d(?::\d\d)?) (\S+)")


def timestamp_parts(when: str, zone: Zone = UTC) -> tuple[str, str, str]:
    """:func:`timestamp` cut into its year, the rest (``03-02 10:03``) and the zone; a time
    that cannot be read is its own rest, with no year or zone."""
    shown = timestamp(when, zone)
    parts = _SHOWN.fullmatch(shown)
    if parts is None:
        return "", shown, ""
    year, rest, label = parts.groups()
    return year, rest, label


def compact_timestamp(when: str, newest: str, zone: Zone = UTC) -> str:
    """A stored time as a column of times shows it once the zone is said above it
    (``03-02 10:03``): the year only where it is not ``newest``'s, the zone only where it is
    not ``newest``'s (a change of offset in between, daylight saving)."""
    year, rest, label = timestamp_parts(when, zone)
    if not year:  # not a time: shown as it is
        return rest
    newest_year, _, newest_label = timestamp_parts(newest, zone)
    shown = rest if year == newest_year else f"{year}-{rest}"
    return shown if label == newest_label else f"{shown} {label}"
