"""The event envelope, its canonical encoding and the hash chain.

An event is an immutable, past-tense fact in one case's stream. Its ``hash`` is SHA-256 over
the canonical JSON of every other field (``prev_hash`` included), so changing any byte of a
stored event, or reordering or deleting events, breaks the chain at a nameable ``seq``.

The canonical encoding is also the on-disk line format of ``events.jsonl``: keys sorted, no
whitespace, UTF-8, floats in Python's shortest round-trip form. Encoding the same event always
gives the same bytes, which is what makes export → import → export byte-identical.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

GENESIS_HASH = "0" * 64

JsonObject = dict[str, Any]


def canonical_json(value: Any) -> str:
    """Encode ``value`` in casefile's one canonical JSON form."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: The one form casefile writes every time it stores (``recorded_at``, ``occurred_at``, a
#: ``--at``, a transcript's times): UTC, microseconds kept, ``Z``. Fixed width, so stored times
#: sort as text and a report can slice one without parsing it.
TIME_FORM = "YYYY-MM-DDTHH:MM:SS.ffffffZ"


def utc_now() -> str:
    """The current time in :data:`TIME_FORM` (stored as text)."""
    return format_time(datetime.now(UTC))


def format_time(moment: datetime) -> str:
    """Format an aware datetime in :data:`TIME_FORM`, the one way casefile writes times.

    Formatted by hand: ``strftime``'s ``%Y`` does not pad a year below 1000 to four digits.
    """
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    utc = moment.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:"
        f"{utc.second:02d}.{utc.microsecond:06d}Z"
    )


def _milliseconds(moment: datetime) -> str:
    """How ``casefile ingest`` wrote a transcript's times before issue 23 (``….500Z``)."""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _unpadded_year(moment: datetime) -> str:
    """How :func:`format_time` wrote a year below 1000 before issue 23 (``strftime``'s ``%Y``:
    ``999-01-01T…``)."""
    return f"{moment.year}{format_time(moment)[4:]}"


#: Every way casefile has ever written a stored time, the current one first. Events are
#: hash-chained, so a time once sealed is never rewritten: a reader accepts all of these for
#: as long as a case may hold them, and writers use :func:`format_time` alone.
_WRITERS = (format_time, _milliseconds, _unpadded_year)

#: the shape all of ``_WRITERS`` share; ASCII digits only (``\d`` would take any script's)
_SHAPE = re.compile(
    r"([0-9]{1,4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3}|[0-9]{6})Z\Z"
)


def parse_time(value: object) -> datetime | None:
    """A stored time as an aware UTC datetime, or None when ``value`` is not a time in a form
    casefile writes or ever wrote (see ``_WRITERS``): verify, export and import hold a case to
    that, so a case older casefile wrote stays readable and nothing else gets in."""
    match = _SHAPE.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    micro = int(fraction) * (1000 if len(fraction) == 3 else 1)
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro, UTC
        )
    except ValueError:
        return None
    return moment if any(write(moment) == value for write in _WRITERS) else None


def is_stored_time(value: object) -> bool:
    """Whether ``value`` is a time in a form casefile writes or ever wrote."""
    return parse_time(value) is not None


def written_time_problem(value: str) -> str | None:
    """Why ``value`` is not a time as casefile writes one now (:data:`TIME_FORM`), if it is
    not: what a command is about to seal must be in the one form, whatever older casefile
    wrote."""
    moment = parse_time(value)
    if moment is not None and format_time(moment) == value:
        return None
    return f"{value!r} is not a time in casefile's stored form ({TIME_FORM}, UTC)"


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event as a command produces it, before the store gives it a place in the stream."""

    type: str
    payload: JsonObject
    actor: str = "user"
    occurred_at: str | None = None
    version: int = 1


@dataclass(frozen=True, slots=True)
class Event:
    """A stored event: immutable, hashed and chained to the one before it."""

    case_id: str
    seq: int
    type: str
    version: int
    recorded_at: str
    occurred_at: str | None
    actor: str
    payload: JsonObject = field(hash=False)
    prev_hash: str
    hash: str

    def content(self) -> JsonObject:
        """Everything the hash covers."""
        return {
            "case_id": self.case_id,
            "seq": self.seq,
            "type": self.type,
            "version": self.version,
            "recorded_at": self.recorded_at,
            "occurred_at": self.occurred_at,
            "actor": self.actor,
            "payload": self.payload,
            "prev_hash": self.prev_hash,
        }

    def to_dict(self) -> JsonObject:
        data = self.content()
        data["hash"] = self.hash
        return data

    def to_line(self) -> str:
        """The event as one canonical JSON line (without the newline)."""
        return canonical_json(self.to_dict())

    def compute_hash(self) -> str:
        return compute_hash(self.content())

    @property
    def when(self) -> str:
        """When the thing happened, if known, else when it was written."""
        return self.occurred_at or self.recorded_at


def compute_hash(content: Mapping[str, Any]) -> str:
    return sha256_hex(canonical_json(dict(content)).encode("utf-8"))


def seal(case_id: str, seq: int, prev_hash: str, new: NewEvent, recorded_at: str) -> Event:
    """Give a new event its place in the stream and its hash."""
    content: JsonObject = {
        "case_id": case_id,
        "seq": seq,
        "type": new.type,
        "version": new.version,
        "recorded_at": recorded_at,
        "occurred_at": new.occurred_at,
        "actor": new.actor,
        "payload": new.payload,
        "prev_hash": prev_hash,
    }
    return Event(
        case_id=case_id,
        seq=seq,
        type=new.type,
        version=new.version,
        recorded_at=recorded_at,
        occurred_at=new.occurred_at,
        actor=new.actor,
        payload=new.payload,
        prev_hash=prev_hash,
        hash=compute_hash(content),
    )


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Build an event from its decoded dict form; raises ``KeyError``/``TypeError`` if malformed."""
    return Event(
        case_id=data["case_id"],
        seq=data["seq"],
        type=data["type"],
        version=data["version"],
        recorded_at=data["recorded_at"],
        occurred_at=data["occurred_at"],
        actor=data["actor"],
        payload=data["payload"],
        prev_hash=data["prev_hash"],
        hash=data["hash"],
    )


def verify_chain(events: list[Event]) -> int | None:
    """Return the seq of the first event that breaks the chain, or ``None`` if all verify.

    Checks, in order for each event: its position (seq 1, 2, 3 … without gaps), that it
    points at the previous event's hash, and that its own hash matches its content.
    """
    prev = GENESIS_HASH
    for position, event in enumerate(events, start=1):
        if event.seq != position or event.prev_hash != prev or event.compute_hash() != event.hash:
            return event.seq if event.seq >= 1 else position
        prev = event.hash
    return None
