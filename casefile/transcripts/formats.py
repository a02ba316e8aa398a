"""The transcript readers and the choice between them: each reads a recorded terminal session
into the commands it ran (with their raw output, the offset and length in the source file they
came from, and when they ran where the recording says) and the prose in between.

- ``typescript``: what ``script(1)`` wrote, optionally with its timing file (``-t``/``-T``);
- ``asciicast``: an asciinema v2 or v3 cast, read by :mod:`.asciicast`;
- ``shell-log``: plain text with prompts (``$ cmd``, ``user@host:~$ cmd``);
- ``markdown``: a chat or Markdown transcript where commands are ``[bash] CMD`` lines or fenced
  shell blocks, each followed by its output.

:func:`read` detects the format (:func:`detect`) or takes the one named; :func:`as_kept` is the
source file as casefile keeps it. The steps, the error a damaged file is refused with and the
terminal-stream splitting the terminal formats share live in :mod:`.stream`.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from casefile.transcripts import FORMATS
from casefile.transcripts.asciicast import read_asciicast, without_typed_input
from casefile.transcripts.stream import (
    MARK_START,
    Command,
    Prose,
    Step,
    TranscriptError,
    span,
    split_stream,
    stored_time,
)

__all__ = ["as_kept", "detect", "read"]


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
        stored_time(started, timedelta(0), "typescript line 1: its start time")
        if seconds:
            offsets = [span(second, "timing file") for second in seconds]
            stored_time(started, offsets[-1], "timing file: the start time plus its delays")

    def locate(position: int) -> tuple[int, str | None]:
        if started is None:
            return body_start + position, None
        index = max(0, bisect.bisect_right(positions, position) - 1) if positions else 0
        return body_start + position, stored_time(started, offsets[index], "a run's time")

    return split_stream(body, locate, body_start + len(body), marks)


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
                    marked = MARK_START in inner  # output, as in a terminal stream
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
        if len(parts) > 1 and MARK_START not in raw:
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
    return stored_time(moment, timedelta(0), f"markdown line {line}: [at {value}]")


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
    the nonce of the session ``record`` ran (see :func:`.stream.split_stream`): None for a file from
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


def as_kept(data: bytes, fmt: str) -> bytes:
    """The source file as casefile keeps it (the transcript artifact): an asciicast without its
    typed input; any other format as it is (a typescript holds output only)."""
    return without_typed_input(data) if fmt == "asciicast" else data
