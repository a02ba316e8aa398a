"""Readers for recorded terminal sessions: each gives the commands (with their raw output, the
offset and length in the source file they came from, and when they ran where the recording
says) and the prose in between.

- ``typescript``: what ``script(1)`` wrote, optionally with its timing file (``-t``/``-T``);
- ``asciicast``: an asciinema v2 or v3 cast (a JSON header, then one JSON event per line);
- ``shell-log``: plain text with prompts (``$ cmd``, ``user@host:~$ cmd``);
- ``markdown``: a chat or Markdown transcript where commands are ``[bash] CMD`` lines or fenced
  shell blocks, each followed by its output.

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

import bisect
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from casefile.app.transcripts import FORMATS
from casefile.domain.events import format_time
from casefile.errors import CasefileError

__all__ = [
    "FORMATS",
    "Command",
    "Prose",
    "Step",
    "TranscriptError",
    "as_kept",
    "detect",
    "mark_parameter",
    "read",
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
_MARK_START = b"\x1b]133;"


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


_ESC = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]")


def _visible(line: bytes) -> str:
    from casefile.app.transcripts.screen_text import render

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
            found = _OSC133.finditer(raw) if _MARK_START in raw else iter(())
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
        elif _MARK_START not in raw:
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


def _out_of_range(what: str) -> TranscriptError:
    """``what`` (where, and which time) is past the dates a datetime holds."""
    return TranscriptError(f"{what} falls outside the years 1 to 9999 (UTC): damaged")


def _span(seconds: float, where: str) -> timedelta:
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
        raise _out_of_range(f"{where}: {seconds!r} seconds") from None


def _stored_time(start: datetime, after: timedelta, what: str) -> str:
    """``start`` plus ``after`` as casefile stores a time. A datetime holds the years 1 to 9999,
    and a stored time is UTC: a start time or offset past them (``0001-01-01T00:00:00+14:00``,
    a header timestamp of ``1e300``) is refused, naming ``what`` it was."""
    try:
        return format_time(start + after)
    except OverflowError:
        raise _out_of_range(what) from None


# --- typescript ------------------------------------------------------------------------------

_HEADER = re.compile(rb"^Script started on (\S+(?: \S+)?)")


def _header_time(header: bytes) -> datetime | None:
    words = header.decode("utf-8", errors="replace").split(" [", 1)[0].strip()
    for candidate in (words, words.replace(" ", "T")):
        try:
            moment = datetime.fromisoformat(candidate)
        except ValueError:
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return None


def _timing(timing: bytes, size: int) -> tuple[list[int], list[float]]:
    """(stream position, seconds since start) after each chunk of a ``script`` timing file
    (``DELAY BYTES`` or the advanced ``O DELAY BYTES``); input chunks are skipped."""
    positions: list[int] = []
    seconds: list[float] = []
    position, elapsed = 0, 0.0
    for number, line in enumerate(timing.decode("utf-8", errors="replace").splitlines(), 1):
        words = line.split()
        if not words:
            continue
        if words[0] in ("I", "S", "H"):
            continue
        if words[0] == "O":
            words = words[1:]
        try:
            delay, count = float(words[0]), int(words[1])
        except (ValueError, IndexError):
            raise TranscriptError(
                f"timing file line {number}: {line.strip()[:40]!r} is not 'DELAY BYTES'"
            ) from None
        if delay < 0 or count < 0:
            raise TranscriptError(f"timing file line {number}: a negative delay or count")
        if not math.isfinite(elapsed + delay):  # inf, nan, or a sum past the largest float
            raise TranscriptError(f"timing file line {number}: {delay!r} is not a delay")
        positions.append(position)
        seconds.append(elapsed + delay)
        position += count
        elapsed += delay
        if position > size:
            raise TranscriptError(
                f"timing file line {number}: runs past the typescript's end ({size} bytes of "
                "output): the typescript is truncated or not this timing file's"
            )
    return positions, seconds


def read_typescript(
    data: bytes, timing: bytes | None = None, marks: str | None = None
) -> list[Step]:
    lines = data.split(b"\n", 1)
    header = _HEADER.match(lines[0])
    body_start = len(lines[0]) + 1 if header else 0
    body = data[body_start:]
    footer = body.rfind(b"\nScript done on ")
    if header and footer < 0:
        raise TranscriptError(
            f"typescript: truncated: no 'Script done' line after offset {len(data)}"
        )
    if footer >= 0:
        body = body[: footer + 1]
    started = _header_time(header.group(1)) if header else None
    if timing is not None:
        positions, seconds = _timing(timing, len(body) + 1)
    else:
        positions, seconds = [], []
    offsets = [timedelta(0)]
    if started is not None:
        # every time a run can be given lies between these two (delays are never negative)
        _stored_time(started, timedelta(0), "typescript line 1: its start time")
        if seconds:
            offsets = [_span(second, "timing file") for second in seconds]
            _stored_time(started, offsets[-1], "timing file: the start time plus its delays")

    def locate(position: int) -> tuple[int, str | None]:
        if started is None:
            return body_start + position, None
        index = max(0, bisect.bisect_right(positions, position) - 1) if positions else 0
        return body_start + position, _stored_time(started, offsets[index], "a run's time")

    return split_stream(body, locate, body_start + len(body), marks)


# --- asciicast ------------------------------------------------------------------------------

#: the versions read: v2 (times since the start) and v3, asciinema 3.0's default (each time
#: the interval since the event before)
_CAST_VERSIONS = (2, 3)


@dataclass(frozen=True)
class _CastEvent:
    """One event line of a cast, checked: where it is, when (since the start), what."""

    number: int
    offset: int
    raw: bytes
    #: the time as the line gives it (v2: since the start; v3: since the event before)
    given: int | float
    after: timedelta
    code: str
    data: str


def _not_a_json_number(constant: str) -> float:
    raise ValueError(f"{constant} is not a number JSON allows")


def _cast_json(raw: bytes, where: str) -> object:
    try:
        return json.loads(raw, parse_constant=_not_a_json_number)
    except RecursionError:
        raise TranscriptError(f"{where}: nested deeper than JSON is read: damaged") from None
    except ValueError as error:  # (JSONDecodeError and UnicodeDecodeError are ValueErrors)
        raise TranscriptError(f"{where}: not JSON ({error}): truncated or damaged") from None


def _cast_start(data: bytes) -> tuple[int, datetime | None, int]:
    """(version, start time or None, offset of the line after it) from a cast's header line."""
    first = data.split(b"\n", 1)[0]
    value = _cast_json(first, "cast line 1 (offset 0)")
    if not isinstance(value, dict) or value.get("version") not in _CAST_VERSIONS:
        raise TranscriptError(
            "cast line 1: not an asciinema header (a JSON object with version 2 or 3)"
        )
    stamp = value.get("timestamp")
    started: datetime | None = None
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        try:
            started = datetime.fromtimestamp(stamp, UTC)
        except (OverflowError, OSError, ValueError):
            raise _out_of_range(f"cast line 1: the timestamp {stamp!r}") from None
    return int(value["version"]), started, len(first) + 1


def _cast_events(data: bytes) -> Iterator[_CastEvent]:
    """Every event of a cast, in order, each checked: a line that is not JSON or not an event,
    a time that is not a number of seconds, or one before the event before (v2) is refused
    naming its line. v3's comment lines (``#``) are skipped; so is a blank line."""
    if not data.strip():
        raise TranscriptError("cast: empty file")
    version, _, offset = _cast_start(data)
    previous: float | None = None
    after = timedelta(0)
    for number, raw in enumerate(data[offset:].splitlines(keepends=True), 2):
        line_offset = offset
        offset += len(raw)
        stripped = raw.strip()
        if not stripped or (version == 3 and stripped.startswith(b"#")):
            continue
        where = f"cast line {number} (offset {line_offset})"
        value = _cast_json(raw, where)
        if (
            not isinstance(value, list)
            or len(value) < 3
            or not isinstance(value[0], int | float)
            or isinstance(value[0], bool)
            or not isinstance(value[1], str)
            or not isinstance(value[2], str)
        ):
            name = "interval" if version == 3 else "time"
            raise TranscriptError(f"{where}: not an event [{name}, code, data]")
        try:
            time = float(value[0])
        except OverflowError:  # an integer of hundreds of digits (JSON's are unbounded)
            time = math.inf  # refused just below, as no number of seconds
        if version == 2:
            if value[1] == "o" and previous is not None and time < previous:
                raise TranscriptError(f"cast line {number}: time goes backwards ({value[0]})")
            previous = time if value[1] == "o" else previous
            after = _span(time, where)
        else:
            try:
                after = after + _span(time, where)
            except OverflowError:
                raise _out_of_range(f"{where}: the sum of the intervals") from None
        yield _CastEvent(number, line_offset, raw, value[0], after, value[1], value[2])


def read_asciicast(data: bytes, marks: str | None = None) -> list[Step]:
    """The commands an asciinema cast's output shows (``o`` events; typed input, markers,
    resizes and exit events, and any code a later asciinema adds, are not output)."""
    _, started, _ = _cast_start(data)
    stream = bytearray()
    positions: list[int] = []  # stream position where each output event starts
    offsets: list[int] = []  # its line's offset in the file
    afters: list[timedelta] = []
    last = 1
    for event in _cast_events(data):
        if event.code != "o":
            continue
        positions.append(len(stream))
        offsets.append(event.offset)
        afters.append(event.after)
        last = event.number
        stream += event.data.encode("utf-8", errors="surrogatepass")
    if started is not None and afters:
        # the latest output time: every other lies between it and the start
        _stored_time(started, afters[-1], f"cast line {last}: the start plus its time")

    def locate(position: int) -> tuple[int, str | None]:
        if not positions:
            return 0, None
        index = max(0, bisect.bisect_right(positions, position) - 1)
        at = _stored_time(started, afters[index], "a run's time") if started else None
        return offsets[index], at

    return split_stream(bytes(stream), locate, len(data), marks)


def _without_typed_input(data: bytes) -> bytes:
    """A cast with its typed input (``i`` events: a password typed at a prompt that does not
    echo) blanked in place, each line kept at its length so every offset stays true: casefile
    reads output only, and keeps no input."""
    kept = bytearray(data)
    for event in _cast_events(data):
        if event.code != "i":
            continue
        body = event.raw.rstrip(b"\r\n")
        blank = json.dumps([event.given, "i", ""], separators=(",", ":")).encode()
        if len(blank) <= len(body):
            blank = blank[:-2] + b" " * (len(body) - len(blank)) + b'"]'
        else:
            blank = b" " * len(body)  # a blank line, which a reader skips
        kept[event.offset : event.offset + len(body)] = blank
    return bytes(kept)


def as_kept(data: bytes, fmt: str) -> bytes:
    """The source file as casefile keeps it (the transcript artifact): an asciicast without its
    typed input; any other format as it is (a typescript holds output only)."""
    return _without_typed_input(data) if fmt == "asciicast" else data


# --- shell log ------------------------------------------------------------------------------


def read_shell_log(data: bytes, marks: str | None = None) -> list[Step]:
    return split_stream(data, lambda position: (position, None), len(data), marks)


# --- markdown / chat ------------------------------------------------------------------------

_TAG = re.compile(r"^\[([A-Za-z][\w -]*)\]\s?")
_BASH = re.compile(r"\[(?:bash|sh|shell|zsh)\]\s*")
_AT = re.compile(r"^\[at (\S+)\]\s*$")
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
_SHELL_LANGS = frozenset({"bash", "sh", "shell", "zsh", "console", "terminal", "shell-session"})


@dataclass
class _Pending:
    line: str
    offset: int
    at: str | None
    output: bytearray
    end: int
    has_output: bool = False


def read_markdown(data: bytes) -> list[Step]:
    text_lines = data.splitlines(keepends=True)
    steps: list[Step] = []
    prose: list[tuple[str, int, int]] = []
    pending: _Pending | None = None
    at: str | None = None
    offset = 0

    def flush_prose() -> None:
        if prose:
            text = "\n".join(line for line, _, _ in prose).strip()
            if text:
                start = prose[0][1]
                steps.append(Prose(text, start, prose[-1][2] - start))
            prose.clear()

    def close() -> None:
        nonlocal pending
        if pending is not None:
            steps.append(
                Command(
                    pending.line,
                    bytes(pending.output),
                    pending.offset,
                    pending.end - pending.offset,
                    pending.at,
                )
            )
        pending = None

    def open_command(line: str, start: int, end: int) -> None:
        nonlocal pending
        flush_prose()
        close()
        pending = _Pending(line.strip(), start, at, bytearray(), end)

    index = 0
    while index < len(text_lines):
        raw = text_lines[index]
        start = offset
        offset += len(raw)
        index += 1
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        fence = _FENCE.match(line)
        if fence:
            marker, lang = fence.group(1), fence.group(2).lower()
            body: list[tuple[bytes, int]] = []
            closed = False
            while index < len(text_lines):
                inner = text_lines[index]
                inner_start = offset
                offset += len(inner)
                index += 1
                if inner.decode("utf-8", errors="replace").strip().startswith(marker):
                    closed = True
                    break
                body.append((inner, inner_start))
            if not closed:
                raise TranscriptError(
                    f"markdown line {index}: a fenced block opened at offset "
                    f"{start} is never closed: truncated"
                )
            if lang in _SHELL_LANGS:
                dollar = any(b.lstrip().startswith(b"$ ") for b, _ in body)
                for inner, inner_start in body:
                    decoded = inner.decode("utf-8", errors="replace").rstrip("\r\n")
                    marked = _MARK_START in inner  # output, as in a terminal stream
                    if dollar and not marked and decoded.lstrip().startswith("$ "):
                        open_command(decoded.lstrip()[2:], inner_start, inner_start + len(inner))
                    elif not dollar and not marked and decoded.strip():
                        open_command(decoded, inner_start, inner_start + len(inner))
                    elif pending is not None:
                        pending.output += inner
                        pending.has_output = True
                        pending.end = inner_start + len(inner)
                if pending is not None:
                    pending.end = offset
                if dollar:
                    close()
            elif pending is not None and not pending.has_output:
                for inner, _ in body:
                    pending.output += inner
                pending.has_output = True
                pending.end = offset
                close()
            else:
                close()
                prose.append((line, start, start))
                prose.extend(
                    (b.decode("utf-8", errors="replace").rstrip("\r\n"), s, s) for b, s in body
                )
                prose[-1] = (prose[-1][0], prose[-1][1], offset)
            continue
        clock = _AT.match(line)
        if clock:
            at = _clock(clock.group(1), index)
            continue
        parts = _BASH.split(line)
        if len(parts) > 1 and _MARK_START not in raw:
            before = _TAG.sub("", parts[0]).strip()
            if before:
                close()
                prose.append((before, start, offset))
            for command in parts[1:]:
                if command.strip():
                    typed, shown = _inline_output(command)
                    open_command(typed, start, offset)
                    if shown and pending is not None:
                        pending.output += shown.encode() + b"\n"
                        pending.has_output = True
            continue
        tagged = _TAG.match(line)
        if tagged:
            close()
            flush_prose()
            rest = line[tagged.end() :].strip()
            if rest:
                prose.append((rest, start, offset))
            continue
        if pending is not None and (line.strip() or pending.has_output):
            if not pending.has_output and not line.strip():
                continue
            pending.output += raw
            pending.has_output = True
            pending.end = offset
            continue
        if not line.strip():
            flush_prose()
            continue
        prose.append((line, start, offset))
    close()
    flush_prose()
    return steps


def _inline_output(text: str) -> tuple[str, str]:
    """(the command, the output after it on the same line) for ``ssh HOST 'CMD' OUTPUT…``, the
    way a chat export flattens a command and what it printed into one line; other commands
    take the whole line."""
    stripped = text.strip()
    if not stripped.startswith("ssh "):
        return stripped, ""
    for index, char in enumerate(stripped):
        if char in "'\"":
            close = stripped.find(char, index + 1)
            while char == '"' and close > 0 and stripped[close - 1] == "\\":
                close = stripped.find(char, close + 1)
            if close < 0:
                return stripped, ""
            return stripped[: close + 1], stripped[close + 1 :].strip()
    return stripped, ""


def _clock(value: str, line: int) -> str:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise TranscriptError(
            f"markdown line {line}: [at {value}] is not an ISO 8601 time"
        ) from None
    if moment.tzinfo is None:
        raise TranscriptError(f"markdown line {line}: [at {value}] has no time zone")
    return _stored_time(moment, timedelta(0), f"markdown line {line}: [at {value}]")


# --- choosing -------------------------------------------------------------------------------


def detect(data: bytes) -> str:
    """The format a file looks like."""
    head = data[:4096].lstrip()
    if head.startswith(b"{") and b'"version"' in head.split(b"\n", 1)[0]:
        return "asciicast"
    if head.startswith(b"Script started on "):
        return "typescript"
    start = data[:65536]
    if _BASH.search(start.decode("utf-8", errors="replace")):
        return "markdown"  # (before the escapes test: a chat export may have CRLF endings)
    if b"\x1b" in start or b"\r" in start:
        return "typescript"
    if b"```" in start:
        return "markdown"
    return "shell-log"


def read(
    data: bytes, fmt: str = "auto", timing: bytes | None = None, marks: str | None = None
) -> tuple[str, list[Step]]:
    """(the format read, the steps) of a transcript; ``fmt`` ``auto`` detects it. ``marks`` is
    the nonce of the session ``record`` ran (see :func:`split_stream`): None for a file from
    elsewhere, whose marks are all output."""
    chosen = detect(data) if fmt == "auto" else fmt
    if chosen not in FORMATS:
        raise TranscriptError(f"unknown format {fmt!r} (use auto, {', '.join(FORMATS)})")
    if timing is not None and chosen != "typescript":
        raise TranscriptError(f"a timing file goes with a typescript, not a {chosen} file")
    if chosen == "typescript":
        return chosen, read_typescript(data, timing, marks)
    if chosen == "asciicast":
        return chosen, read_asciicast(data, marks)
    if chosen == "shell-log":
        return chosen, read_shell_log(data, marks)
    return chosen, read_markdown(data)
