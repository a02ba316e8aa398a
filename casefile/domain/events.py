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


def utc_now() -> str:
    """The current time as an ISO 8601 UTC string with microseconds (stored as text)."""
    return format_time(datetime.now(UTC))


def format_time(moment: datetime) -> str:
    """Format an aware datetime the one way casefile stores times."""
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
