"""Decoding stored rows into Events fast: the hot half of every read.

Reading is the hot path (every view is a fold over a whole case), so
:meth:`~casefile.store.sql.SqlEventStore.load` runs one plain SELECT on the driver's cursor and
this module builds :class:`Event` objects directly, without the ORM or pydantic; payloads were
validated when they were appended.
"""

from __future__ import annotations

import json
from typing import Any

from casefile.domain.events import Event, canonical_json
from casefile.errors import IntegrityError
from casefile.store.sql_tables import COLUMNS

# The C scanner json.loads calls after skipping whitespace; stored payloads are canonical
# (no whitespace), so decode_rows() calls it directly and checks the whole text was consumed.
_SCAN_JSON = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


class _LoadedEvent:
    """An :class:`Event` under construction, for :meth:`SqlEventStore.load` only.

    A frozen dataclass assigns each field through ``object.__setattr__``, which makes building
    100,000 events cost more than decoding their JSON. This class has Event's exact slot
    layout but plain assignment; once filled, the object's class is switched to ``Event``
    (allowed because the layouts are identical), so callers get ordinary, frozen Events.
    """

    __slots__ = Event.__slots__

    def __init__(
        self,
        case_id: str,
        seq: int,
        type: str,
        version: int,
        recorded_at: str,
        occurred_at: str | None,
        actor: str,
        payload: dict[str, Any],
        prev_hash: str,
        hash: str,
    ) -> None:
        self.case_id = case_id
        self.seq = seq
        self.type = type
        self.version = version
        self.recorded_at = recorded_at
        self.occurred_at = occurred_at
        self.actor = actor
        self.payload = payload
        self.prev_hash = prev_hash
        self.hash = hash


if tuple(Event.__slots__) != COLUMNS:  # a new Event field must be stored and loaded too
    raise RuntimeError(f"Event's fields {Event.__slots__} differ from the events table's")


def decode_rows(case_id: str, rows: list[Any], strict: bool) -> list[Event]:
    """Events from the rows of :meth:`~casefile.store.sql.SqlEventStore.load`'s SELECT.

    Raises :class:`~casefile.errors.IntegrityError` naming the seq whose stored payload is not
    JSON or not a JSON object (or, with ``strict``, not exactly its canonical form).
    """
    scan = _SCAN_JSON
    events: list[Event] = []
    append = events.append
    for seq, type_, version, recorded_at, occurred_at, actor, text, prev_hash, hash_ in rows:
        try:
            payload, end = scan(text, 0)
        except (StopIteration, ValueError, TypeError):
            end = -1
        if end != len(text):
            raise IntegrityError(
                f"case {case_id} seq {seq}: stored payload is not valid JSON", seq=seq
            )
        if payload.__class__ is not dict:
            # Valid JSON but not an object ([] or "x"): every view would fail later with a
            # TypeError far from the cause, so refuse it here, by seq, in every mode.
            raise IntegrityError(
                f"case {case_id} seq {seq}: stored payload is not a JSON object", seq=seq
            )
        if strict and _canonical_or_none(payload) != text:
            raise IntegrityError(
                f"case {case_id} seq {seq}: stored payload is not in canonical form",
                seq=seq,
            )
        event = _LoadedEvent(
            case_id, seq, type_, version, recorded_at, occurred_at, actor, payload,
            prev_hash, hash_,
        )  # fmt: skip
        event.__class__ = Event  # type: ignore[assignment]
        append(event)  # type: ignore[arg-type]
    return events


def _canonical_or_none(payload: Any) -> str | None:
    try:
        return canonical_json(payload)
    except ValueError:
        return None
