"""The asciicast reader: an asciinema v2 or v3 cast (a JSON header, then one JSON event per
line) read into the commands its output shows, and the cast as casefile keeps it (its typed
input blanked). A module of its own because a cast is JSON to check line by line, event by
event, before its output is a terminal stream like any other (:func:`.stream.split_stream`).
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from casefile.transcripts.stream import (
    Step,
    TranscriptError,
    out_of_range,
    span,
    split_stream,
    stored_time,
)

__all__ = ["read_asciicast", "without_typed_input"]


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
            raise out_of_range(f"cast line 1: the timestamp {stamp!r}") from None
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
            after = span(time, where)
        else:
            try:
                after = after + span(time, where)
            except OverflowError:
                raise out_of_range(f"{where}: the sum of the intervals") from None
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
        stored_time(started, afters[-1], f"cast line {last}: the start plus its time")

    def locate(position: int) -> tuple[int, str | None]:
        if not positions:
            return 0, None
        index = max(0, bisect.bisect_right(positions, position) - 1)
        at = stored_time(started, afters[index], "a run's time") if started else None
        return offsets[index], at

    return split_stream(bytes(stream), locate, len(data), marks)


def without_typed_input(data: bytes) -> bytes:
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
