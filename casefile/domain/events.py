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
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any

GENESIS_HASH = "0" * 64

JsonObject = dict[str, Any]


#: The canonical encoder's options, made once (``json.dumps`` builds an encoder per call).
_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
#: A string as the canonical encoder writes it (``ensure_ascii=False``).
_STRING = json.encoder.encode_basestring
#: The C encoder behind ``JSONEncoder.encode`` (absent on a Python without ``_json``).
_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)


def canonical_json(value: Any) -> str:
    """Encode ``value`` in casefile's one canonical JSON form.

    What ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    allow_nan=False)`` returns, by the C encoder that ``dumps`` ends in, called directly: the
    steps before it cost as much as encoding a short payload, and every event is encoded.
    """
    if _C_ENCODER is None:
        return _CANONICAL.encode(value)
    encode = _C_ENCODER({}, _CANONICAL.default, _STRING, None, ":", ",", True, False, False)
    return "".join(encode(value, 0))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: The one form casefile writes every time it stores (``recorded_at``, ``occurred_at``, a
#: ``--at``, a transcript's times): UTC, microseconds kept, ``Z``. Fixed width, so stored times
#: sort as text and a report can slice one without parsing it.
TIME_FORM = "YYYY-MM-DDTHH:MM:SS.ffffffZ"


#: The last second :func:`utc_now` wrote, and its text up to the seconds.
_last_second: tuple[int, str] = (-1, "")


def utc_now() -> str:
    """The current time in :data:`TIME_FORM` (stored as text): ``format_time`` of the system
    clock floored to the microsecond, as ``datetime.now`` reads it, with the text of the
    second formatted once per second (every append takes the time)."""
    global _last_second
    second, micro = divmod(time.time_ns() // 1000, 1_000_000)
    known = _last_second
    if known[0] != second:
        known = (second, format_time(datetime.fromtimestamp(second, UTC))[:19])
        _last_second = known
    return f"{known[1]}.{micro:06d}Z"


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


#: :data:`TIME_FORM` with a four-digit year and every time field in range: such a value is a
#: stored time exactly when its date exists (``format_time`` writes it back unchanged).
_CURRENT_FORM = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z\Z"
)


@lru_cache(maxsize=4096)
def _date_exists(year: str, month: str, day: str) -> bool:
    try:
        date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def is_stored_time(value: object) -> bool:
    """Whether ``value`` is a time in a form casefile writes or ever wrote.

    The current form is checked by its shape and a remembered answer for its date (an import
    checks two times per event); every other value goes through :func:`parse_time`.
    """
    match = _CURRENT_FORM.match(value) if type(value) is str else None
    if match is not None:
        return _date_exists(*match.groups())
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
        return self.hash_and_payload_text()[0]

    def hash_and_payload_text(self) -> tuple[str, str]:
        """The hash its content gives, and its payload's canonical JSON (what a store keeps)."""
        return envelope_hash(
            self.case_id,
            self.seq,
            self.type,
            self.version,
            self.recorded_at,
            self.occurred_at,
            self.actor,
            self.payload,
            self.prev_hash,
        )

    @property
    def when(self) -> str:
        """When the thing happened, if known, else when it was written."""
        return self.occurred_at or self.recorded_at


def compute_hash(content: Mapping[str, Any]) -> str:
    return sha256_hex(canonical_json(dict(content)).encode("utf-8"))


def envelope_hash(
    case_id: str,
    seq: int,
    type_: str,
    version: int,
    recorded_at: str,
    occurred_at: str | None,
    actor: str,
    payload: Any,
    prev_hash: str,
) -> tuple[str, str]:
    """The hash of an envelope with these fields, and its payload's canonical JSON.

    The same bytes as :func:`compute_hash` of the content, with the payload encoded once: the
    canonical form of an object is its sorted keys, each followed by its value's own canonical
    form, so the envelope's text is the payload's text between fields written in key order.
    Fields of any other type than the envelope's own (a ``bool`` seq, a ``str`` subclass, as an
    import may bring) go through the whole encoder instead. Raises ``TypeError`` or
    ``ValueError`` for content with no canonical form.
    """
    text = canonical_json(payload)
    if (
        type(seq) is int
        and type(version) is int
        and type(case_id) is str
        and type(type_) is str
        and type(recorded_at) is str
        and type(actor) is str
        and type(prev_hash) is str
        and (occurred_at is None or type(occurred_at) is str)
    ):
        occurred = "null" if occurred_at is None else _STRING(occurred_at)
        envelope = (
            f'{{"actor":{_STRING(actor)},"case_id":{_STRING(case_id)},"occurred_at":{occurred},'
            f'"payload":{text},"prev_hash":{_STRING(prev_hash)},'
            f'"recorded_at":{_STRING(recorded_at)},"seq":{seq!r},"type":{_STRING(type_)},'
            f'"version":{version!r}}}'
        )
    else:
        envelope = canonical_json(
            {
                "case_id": case_id,
                "seq": seq,
                "type": type_,
                "version": version,
                "recorded_at": recorded_at,
                "occurred_at": occurred_at,
                "actor": actor,
                "payload": payload,
                "prev_hash": prev_hash,
            }
        )
    return sha256_hex(envelope.encode("utf-8")), text


def seal_with_text(
    case_id: str, seq: int, prev_hash: str, new: NewEvent, recorded_at: str
) -> tuple[Event, str]:
    """:func:`seal`, and the payload's canonical JSON it hashed (a store's payload column)."""
    digest, text = envelope_hash(
        case_id,
        seq,
        new.type,
        new.version,
        recorded_at,
        new.occurred_at,
        new.actor,
        new.payload,
        prev_hash,
    )
    event = Event(  # positionally: this runs for every event sealed
        case_id,
        seq,
        new.type,
        new.version,
        recorded_at,
        new.occurred_at,
        new.actor,
        new.payload,
        prev_hash,
        digest,
    )
    return event, text


def seal(case_id: str, seq: int, prev_hash: str, new: NewEvent, recorded_at: str) -> Event:
    """Give a new event its place in the stream and its hash."""
    return seal_with_text(case_id, seq, prev_hash, new, recorded_at)[0]


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
