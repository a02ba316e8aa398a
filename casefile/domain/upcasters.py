"""Reading events written at an older version of their type: upcasters.

An event is never rewritten: its hash covers its ``version`` and ``payload`` as written, and a
case verifies, exports and imports byte for byte as it was recorded. When a type's payload
changes shape, its descriptor's version (:mod:`casefile.domain.event_types`) goes up and the
descriptor gains an *upcaster* for the step: a pure function taking a payload of version *n*
to version *n + 1*, gathered here into :data:`UPCASTERS`. Whoever reads a payload to act on
it (the fold, the log's summaries, an import's validation) reads it through :func:`upcast`,
one step after another, so the rest of casefile only ever sees the current shape. An event
newer than this code is refused with a message saying so, never guessed at.

Every type is at version 1 today, so the table is empty; ``tests/store/test_upcasters.py``
reads a case directory written by the casefile of commit 9fe2b1b, so that a later change to a
type must come with the upcaster that keeps such cases readable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from casefile.domain.event_types import EVENT_TYPES, Upcaster
from casefile.domain.events import Event
from casefile.errors import InvalidEvent

__all__ = ["UPCASTERS", "Upcaster", "read_event", "upcast"]

#: (event type, version *n*) → the function that takes a payload from version *n* to *n + 1*.
UPCASTERS: dict[tuple[str, int], Upcaster] = {
    (name, version): step
    for name, kind in EVENT_TYPES.items()
    for version, step in kind.upcasters.items()
}


def upcast(event_type: str, version: int, current: int, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` (of ``event_type`` at ``version``) in the shape of version ``current``.

    Raises :class:`InvalidEvent` for a version newer than ``current`` (written by a newer
    casefile) or one with no way up (no upcaster for a step). The payload given is never
    changed: each step returns a new dict.
    """
    if version == current:
        return payload
    if version > current:
        raise InvalidEvent(
            f"{event_type} version {version} is newer than this casefile reads "
            f"(up to {current}); upgrade casefile"
        )
    if version < 1:
        raise InvalidEvent(f"{event_type}: version {version} does not exist (versions start at 1)")
    for step in range(version, current):
        upcaster = UPCASTERS.get((event_type, step))
        if upcaster is None:
            raise InvalidEvent(
                f"{event_type}: no upcaster from version {step} to {step + 1}; "
                "this casefile cannot read it"
            )
        payload = upcaster(dict(payload))
    return payload


def read_event(event: Event, current: Mapping[str, int]) -> Event:
    """The event as today's code reads it: its payload upcast to the current version of its
    type (``current``: type → version), its place and hash as stored. An unknown type is
    left as it is (the fold ignores what it does not know)."""
    version = current.get(event.type)
    if version is None or version == event.version:
        return event
    payload = upcast(event.type, event.version, version, event.payload)
    return replace(event, version=version, payload=payload)
