"""Small argument converters shared by the commands (each raises a clear ArgumentTypeError)."""

from __future__ import annotations

import argparse
from datetime import datetime

from casefile.domain.events import format_time


def probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    return value


def likelihood(text: str) -> tuple[str, float]:
    """``HID=P`` → (HID, P)."""
    hid, sep, value = text.partition("=")
    if not sep or not hid:
        raise argparse.ArgumentTypeError(f"{text!r}: expected HYPOTHESIS=PROBABILITY")
    return hid, probability(value)


def key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE")
    return key, value


def moment(text: str) -> str:
    """An ISO 8601 time (a bare one is taken as UTC) in casefile's stored form."""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        from datetime import UTC

        parsed = parsed.replace(tzinfo=UTC)
    return format_time(parsed)
