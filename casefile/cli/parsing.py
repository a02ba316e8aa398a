"""Small argument converters shared by the commands (each raises a clear ArgumentTypeError),
the check that every argument is UTF-8 text, and reading a file argument (or ``-``, stdin)
without blocking on a FIFO or reading a device forever."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from casefile.app.files import INPUT_LIMIT as _INPUT_LIMIT
from casefile.app.files import read_regular_file
from casefile.app.who import Who
from casefile.cli.terminal import say
from casefile.domain.events import format_time
from casefile.domain.ids import actor_problem
from casefile.errors import CasefileError


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


#: how far ahead of this machine's clock a time given may be (another machine's clock, a
#: time copied from a log there): more is refused as a time that has not happened yet
CLOCK_SKEW = timedelta(minutes=5)


class Moment(str):
    """A time given on the command line, in casefile's stored form (UTC); ``assumed_local``
    is set when it was written without a zone and so was read as local time (the CLI echoes
    it back with the zone it took)."""

    assumed_local: bool = False
    #: the words given, as typed
    given: str = ""


def moment(text: str) -> str:
    """An ISO 8601 time in casefile's stored form. One written without a zone is local time
    (``TZ``, else the system's zone); one more than :data:`CLOCK_SKEW` in the future is
    refused."""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time") from None
    local = parsed.tzinfo is None
    try:
        if local:
            parsed = parsed.astimezone()  # a naive time is the machine's local time
        stored = Moment(format_time(parsed))
    except (OverflowError, OSError, ValueError):
        # 0001-01-01T00:00:00+14:00 is a valid ISO time whose UTC instant is before year 1.
        raise argparse.ArgumentTypeError(
            f"{text!r} is outside the times casefile can store (years 1 to 9999, in UTC)"
        ) from None
    now = datetime.now(UTC)
    if parsed - now > CLOCK_SKEW:
        raise argparse.ArgumentTypeError(
            f"{text!r} is in the future (it is now {now.strftime('%Y-%m-%d %H:%M')} UTC; "
            f"casefile allows {CLOCK_SKEW.seconds // 60} minutes of clock skew)"
        )
    stored.assumed_local, stored.given = local, text
    return stored


def assumed_local_times(args: argparse.Namespace) -> list[tuple[str, Moment]]:
    """The options given a time without a zone (``--at 2026-03-02T10:00``), by flag, for the
    CLI to tell the user which instant it took each to be. Every time in ``args`` becomes a
    plain ``str`` on the way, so nothing past the command line ever holds a :class:`Moment`."""
    found = []
    for dest, value in sorted(vars(args).items()):
        if isinstance(value, Moment):
            if value.assumed_local:
                found.append((f"--{dest.replace('_', '-')}", value))
            setattr(args, dest, str(value))
    return found


def actor(text: str) -> str:
    """Who did something: non-empty, no control characters, at most 255 characters (the rule
    import enforces too, so every case the commands write can be exported and imported)."""
    problem = actor_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"the actor {problem}")
    return text


def head_reference(text: str) -> str:
    """A case's head as ``verify`` prints it: ``SEQ@HASH``, a seq from 1 and the full SHA-256
    hex digest (upper case is taken as lower)."""
    seq, sep, digest = text.strip().partition("@")
    digest = digest.lower()
    if (
        not sep
        or not seq.isascii()
        or not seq.isdigit()
        or seq.startswith("0")
        or len(seq) > 19
        or not _HEX_DIGEST.fullmatch(digest)
    ):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a head: give SEQ@HASH as `casefile verify` prints it "
            "(a seq from 1, @, the 64-character hash)"
        )
    return f"{int(seq)}@{digest}"


def undecodable(value: object) -> int | None:
    """The first byte of a string that is not UTF-8, or ``None`` if it is (or is no string).

    On POSIX an argument's bytes that are not UTF-8 reach Python as lone surrogates
    (``\\udcff`` for byte 0xff); such a string cannot be hashed, stored or printed as text, and
    would fail deep inside a write, after a probe had run.
    """
    if not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(value[error.start])
        return code - 0xDC00 if 0xDC80 <= code <= 0xDCFF else code
    return None


def refuse_undecodable(args: argparse.Namespace, only: Sequence[str] | None = None) -> None:
    """A usage error (exit 2, one line, before anything is opened, run or appended) if any
    argument (or only those named by dest in ``only``) is text that is not UTF-8."""
    for dest, value in sorted(vars(args).items()):
        if only is not None and dest not in only:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            if isinstance(item, tuple):  # --env KEY=VALUE pairs
                bad = next((b for b in map(undecodable, item) if b is not None), None)
            else:
                bad = undecodable(item)
            if bad is not None:
                what = _ARGUMENT_NAMES.get(dest, f"the {dest.replace('_', ' ')} given")
                say(
                    f"casefile: error: {what} is not valid UTF-8 (byte 0x{bad:02x}); "
                    "casefile records arguments as UTF-8 text",
                    file=sys.stderr,
                )
                raise SystemExit(2)


def refuse_undecodable_db(args: argparse.Namespace) -> None:
    """:func:`refuse_undecodable` for ``--db`` alone (for commands whose other arguments are
    only paths, which may be any bytes)."""
    refuse_undecodable(args, only=("db",))


#: The most bytes ``--paste`` or ``parse`` reads: a larger file or stdin is refused, instead of
#: being read until memory runs out.
INPUT_LIMIT = _INPUT_LIMIT

NOTE_LIMIT = 1024 * 1024
"""The most bytes ``note -`` takes from stdin."""


def read_input(name: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file ``name``, or of stdin for ``-``, at most ``limit`` of them
    (default :data:`INPUT_LIMIT`).

    Anything else is refused before a byte is read: a FIFO (which would wait for a writer,
    forever), a device such as ``/dev/zero`` (which never ends) or a directory. A file is opened
    without blocking and checked on the opened descriptor, so a name swapped in between cannot
    slip past. Raises :class:`CasefileError` with one line.
    """
    if limit is None:
        limit = INPUT_LIMIT
    if name == "-":
        binary = getattr(sys.stdin, "buffer", None)
        data: bytes | str = (binary or sys.stdin).read(limit + 1)
        raw = data.encode("utf-8", errors="surrogateescape") if isinstance(data, str) else data
        if len(raw) > limit:
            raise CasefileError(f"stdin: more than {limit} bytes; not read")
        return raw
    return read_regular_file(name, limit, hint=" (give a file, or - for stdin)")


def text_argument(text: str, limit: int = NOTE_LIMIT) -> str:
    """A text argument as given, or for ``-`` the UTF-8 text on stdin (one trailing newline
    dropped, as a shell's ``$(…)`` would)."""
    if text != "-":
        return text
    data = read_input("-", limit)
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CasefileError(f"stdin is not valid UTF-8 (byte {error.start + 1})") from None
    return decoded[:-1] if decoded.endswith("\n") else decoded


_ARGUMENT_NAMES = {
    "argv": "the command after --",
    "host": "a --host",
    "db": "--db",
    "env": "an --env",
    "recommend": "a --recommend",
    "lesson": "a --lesson",
}

_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")


def who_and_when() -> argparse.ArgumentParser:
    """The ``--actor`` / ``--at`` options every command that records something takes.

    Its defaults include the check that every argument is UTF-8 (a parent's defaults reach
    each command made with it), run before the command opens anything.
    """
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--actor",
        type=actor,
        help="who did this (default: $CASEFILE_ACTOR, else the config file's, else your login)",
    )
    parent.add_argument(
        "--at",
        type=moment,
        help="when it happened, if not now (ISO 8601; without a zone: local time; at most "
        f"{CLOCK_SKEW.seconds // 60} minutes ahead of this clock)",
    )
    parent.set_defaults(validate=refuse_undecodable)
    return parent


def who(args: argparse.Namespace) -> Who:
    """The ``--actor`` / ``--at`` of a recording command, as the one value the service takes.

    Checks again that every argument is UTF-8: a command that sets a ``validate`` of its own
    replaces the one :func:`who_and_when` gives, and must still never record (or run) one.
    """
    refuse_undecodable(args)
    if args.actor is None:  # no --actor: CASEFILE_ACTOR, the config file, the login name
        from casefile.cli.config import default_actor

        return Who(default_actor(), args.at)
    return Who(args.actor, args.at)
