"""Small argument converters shared by the commands (each raises a clear ArgumentTypeError)."""

from __future__ import annotations

import argparse
import math
from datetime import UTC, datetime

from casefile.app.who import Who
from casefile.domain.events import format_time
from casefile.domain.ids import actor_problem


def probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    return value


def positive_seconds(text: str) -> float:
    """A duration in seconds: a finite number greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a finite number of seconds above 0")
    return value


def event_seq(text: str) -> int:
    """An event's seq: a whole number from 1 (the first event of every case)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an event seq (1, 2, 3 …)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: event seqs start at 1")
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
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return format_time(parsed)
    except (OverflowError, ValueError):
        # 0001-01-01T00:00:00+14:00 is a valid ISO time whose UTC instant is before year 1.
        raise argparse.ArgumentTypeError(
            f"{text!r} is outside the times casefile can store (years 1 to 9999, in UTC)"
        ) from None


def actor(text: str) -> str:
    """Who did something: non-empty, no control characters, at most 255 characters (the rule
    import enforces too, so every case the commands write can be exported and imported)."""
    problem = actor_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"the actor {problem}")
    return text


def who_and_when() -> argparse.ArgumentParser:
    """The ``--actor`` / ``--at`` options every command that records something takes."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--actor", type=actor, default="user", help="who did this (default: user)")
    parent.add_argument("--at", type=moment, help="when it happened, if not now (ISO 8601)")
    return parent


def who(args: argparse.Namespace) -> Who:
    """The ``--actor`` / ``--at`` of a recording command, as the one value the service takes."""
    return Who(args.actor, args.at)
