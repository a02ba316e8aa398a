"""What every transcript reader shares: the steps a transcript reads into (:class:`Command`,
:class:`Prose`), the one error a damaged file is refused with (:class:`TranscriptError`), the
splitting of a terminal stream into commands (:func:`split_stream`) and the arithmetic that
turns a recording's offsets into stored times. Here, apart from the readers, so that each
reader (:mod:`.formats`, :mod:`.asciicast`) imports them from one place and none imports
another.

In a terminal stream, commands start at prompt lines, or, for a session ``casefile record``
ran, at the OSC 133 marks its own shell integration emitted (whose ``D`` mark gives the exit
status). A mark is trusted only when it carries that session's nonce (:func:`mark_parameter`):
a command's output is anything at all (a log file, a remote motd, ``kubectl logs``), so any other
mark is output, and so is the line that carries it, never a prompt (nor a Markdown command
line). A file ingested from elsewhere has no nonce casefile knows, so every mark in it is
output. A truncated or malformed file is refused with :class:`TranscriptError`, naming the line
or offset, never with a traceback.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from casefile.domain.events import format_time
from casefile.errors import CasefileError

__all__ = [
    "MARK_START",
    "Command",
    "Prose",
    "Step",
    "TranscriptError",
    "mark_parameter",
    "out_of_range",
    "span",
    "split_stream",
    "stored_time",
]


class TranscriptError(CasefileError):
    """A transcript that cannot be read: one line naming where."""


@dataclass(frozen=True)
class Command:
    """One command as recorded: the line typed, the raw bytes it printed, where in the file."""

    line: str
    output: bytes
    offset: int
    length: int
    #: when it ran, in the stored form (:func:`~casefile.domain.events.format_time`), where
    #: the recording says
    at: str | None = None
    exit_status: int | None = None


@dataclass(frozen=True)
class Prose:
    """Text between commands (a chat message, a paragraph)."""

    text: str
    offset: int
    length: int


Step = Command | Prose

#: a prompt: ``$ cmd``, or ``user@host:dir$ cmd`` / ``[user@host dir]# cmd`` (a bare ``#`` is
#: not a prompt: nccl-tests and many tools print comment lines that start with it)
_PROMPT = re.compile(
    r"^(?:\([^)]*\)\s*)?(?:(?:[\w.-]+@[\w.-]+(?::\S*)?|\[[^\]]*\])\s?[$#%]|\$)\s(.*)$"
)
_OSC133 = re.compile(rb"\x1b\]133;([A-D])(?:;([^\x07\x1b]*))?(?:\x07|\x1b\\)")
#: how every OSC 133 mark starts: a line holding this anywhere is never read as a prompt unless
#: its marks are trusted ones (a mark cut short is output as much as a whole one)
MARK_START = b"\x1b]133;"


def mark_parameter(nonce: str) -> str:
    """The parameter every mark of one recorded session carries (``OSC 133;B;casefile=NONCE``,
    ``OSC 133;D;STATUS;casefile=NONCE``): the shell integration writes it, the reader trusts
    only the marks that carry it. Terminals ignore a ``key=value`` parameter they do not know."""
    return f"casefile={nonce}"


def _trusted(mark: re.Match[bytes], token: bytes) -> bool:
    """Whether a mark carries the session's parameter (``token``) among its own."""
    return token in (mark.group(2) or b"").split(b";")


def _status(mark: re.Match[bytes]) -> int | None:
    """The exit status a ``D`` mark gives (its first parameter), if it gives one."""
    first = (mark.group(2) or b"").split(b";", 1)[0].strip()
    return int(first) if first.isdigit() else None


def _visible(line: bytes) -> str:
    from casefile.transcripts.screen_text import render

    text = line.decode("utf-8", errors="replace")
    if "\x1b" in text or "\r" in text or "\b" in text:
        text = render(text)
    return text.strip("\r\n")


def _may_prompt(line: bytes) -> bool:
    """Cheap test before rendering: a prompt line holds ``$``, ``#`` or ``%``."""
    return b"$" in line or b"#" in line or b"%" in line


def split_stream(
    data: bytes,
    locate: Callable[[int], tuple[int, str | None]],
    ends_at: int,
    marks: str | None = None,
) -> list[Step]:
    """Commands in a terminal stream. ``locate`` maps a position in ``data`` to (the offset in
    the source file, the time then); ``ends_at`` is the file offset where the stream ends.

    ``marks`` is the nonce of the session ``record`` ran: commands then come from the OSC 133
    marks that carry it and from nothing else (not from prompt-like lines, which any output can
    print). Without it, commands come from prompt lines, and a line carrying any mark is output.
    """
    token = mark_parameter(marks).encode() if marks is not None else None
    starts: list[tuple[int, int, str]] = []  # (line start, output start, command line)
    statuses: dict[int, int] = {}
    #: where each command's output begins (its C mark) and ends (its D mark), where marked:
    #: a continuation line of the command is not output, nor the first line of a 2-line prompt
    output_from: dict[int, int] = {}
    output_to: dict[int, int] = {}
    position = 0
    for raw in data.splitlines(keepends=True):
        end = position + len(raw)
        if token is not None:
            found = _OSC133.finditer(raw) if MARK_START in raw else iter(())
            trusted = [mark for mark in found if _trusted(mark, token)]
            for index, mark in enumerate(trusted):
                kind = mark.group(1)
                if kind == b"B":
                    typed_end = next(
                        (later.start() for later in trusted[index + 1 :] if later.group(1) == b"C"),
                        len(raw),
                    )
                    typed = raw[mark.end() : typed_end]
                    # (the leading space kept: a command typed after one is not recorded)
                    starts.append((position, end, _visible(typed).rstrip()))
                elif kind == b"C" and starts and len(starts) - 1 not in output_from:
                    output_from[len(starts) - 1] = position + mark.end()
                elif kind == b"D" and starts and len(starts) - 1 not in output_to:
                    output_to[len(starts) - 1] = position + mark.start()
                    status = _status(mark)
                    if status is not None:
                        statuses[len(starts) - 1] = status
        elif MARK_START not in raw:
            found_prompt = _PROMPT.match(_visible(raw)) if _may_prompt(raw) else None
            if found_prompt is not None:
                starts.append((position, end, found_prompt.group(1).rstrip()))
        position = end
    steps: list[Step] = []
    for index, (line_start, output_start, line) in enumerate(starts):
        output_end = starts[index + 1][0] if index + 1 < len(starts) else len(data)
        if not line.strip():
            continue
        offset, at = locate(line_start)
        end_offset = locate(output_end)[0] if output_end < len(data) else ends_at
        output = data[output_from.get(index, output_start) : output_to.get(index, output_end)]
        if token is not None:
            # the session's own marks go; any other stays, as the output the command printed
            output = _OSC133.sub(
                lambda mark: b"" if _trusted(mark, token) else mark.group(0), output
            )
        steps.append(Command(line, output, offset, end_offset - offset, at, statuses.get(index)))
    return steps


# --- times ----------------------------------------------------------------------------------


def out_of_range(what: str) -> TranscriptError:
    """``what`` (where, and which time) is past the dates a datetime holds."""
    return TranscriptError(f"{what} falls outside the years 1 to 9999 (UTC): damaged")


def span(seconds: float, where: str) -> timedelta:
    """A recording's offset in seconds (never negative) as a timedelta; an infinite, NaN or
    negative one, or one longer than any date allows, is a damaged file, refused naming where
    (not an ``OverflowError`` traceback)."""
    if not math.isfinite(seconds):
        raise TranscriptError(f"{where}: {seconds!r} is not a number of seconds")
    if seconds < 0:
        raise TranscriptError(f"{where}: a negative time ({seconds!r} seconds)")
    try:
        return timedelta(seconds=seconds)
    except OverflowError:
        raise out_of_range(f"{where}: {seconds!r} seconds") from None


def stored_time(start: datetime, after: timedelta, what: str) -> str:
    """``start`` plus ``after`` as casefile stores a time. A datetime holds the years 1 to 9999,
    and a stored time is UTC: a start time or offset past them (``0001-01-01T00:00:00+14:00``,
    a header timestamp of ``1e300``) is refused, naming ``what`` it was."""
    try:
        return format_time(start + after)
    except OverflowError:
        raise out_of_range(what) from None
