"""One line per event saying what it recorded, for the log, replay and the detail pane.

Each type's line, the why behind it and a note's own words are its descriptor's
(:mod:`casefile.domain.event_types`); an unknown type (a newer schema read by an older
casefile) is summarised by its name rather than refused.
"""

from __future__ import annotations

from collections.abc import Callable

from casefile.domain.beliefs import Projection
from casefile.domain.catalogue import CURRENT_VERSIONS
from casefile.domain.event_types import EVENT_TYPES, Fields
from casefile.domain.events import Event
from casefile.domain.upcasters import upcast
from casefile.errors import InvalidEvent


def summarise(event: Event, projection: Projection | None = None) -> str:
    """One line saying what an event recorded (``projection`` is accepted for the callers of
    the old signature and not needed)."""
    kind = EVENT_TYPES.get(event.type)
    if kind is None:
        return event.type
    return _said(event, kind.summary)


def timeline_summary(event: Event) -> str:
    """The summary as the timeline shows it, beside the column that names the type (so it does
    not open with the type again: "e8: rule …", not "evidence e8: rule …")."""
    kind = EVENT_TYPES.get(event.type)
    if kind is None:
        return event.type
    return _said(event, kind.timeline_text)


def _said(event: Event, say: Callable[[Fields], str]) -> str:
    current = CURRENT_VERSIONS.get(event.type, event.version)
    if event.version != current:  # an older shape, read as today's (a newer one: its name)
        try:
            return say(upcast(event.type, event.version, current, event.payload))
        except InvalidEvent:
            return f"{event.type} v{event.version}"
    return say(event.payload)


def detail(event: Event) -> str | None:
    """The why behind a step, shown under its summary: a rule's rationale, a probe's or an
    experiment's note."""
    kind = EVENT_TYPES.get(event.type)
    if kind is None or kind.detail is None:
        return None
    return kind.detail(event.payload)


def own_text(event: Event) -> tuple[str | None, str | None]:
    """A note's or an action's own words and an action's outcome (not folded by the domain,
    so replay and the report read them here)."""
    kind = EVENT_TYPES.get(event.type)
    if kind is None or kind.own_text is None:
        return None, None
    return kind.own_text(event.payload)
