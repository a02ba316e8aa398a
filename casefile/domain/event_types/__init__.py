"""Every event type casefile writes, each in one place: its descriptor beside its payload model.

A type's stable name (``hypothesis.proposed``, never a Python import path), version, schema,
upcasters, timeline label, log summary, report line, fold decision, artifact fields and
redaction fields are one :class:`~casefile.domain.event_types.base.EventType`, kept in the
module of its family (``case``, ``hypothesis``, ``probe``, ``evidence``, ``experiment``,
``postmortem``).
:data:`EVENT_TYPES` lists them; the catalogue, the upcasters, the fold's handler table, the
log's summaries, the report's timeline and redaction, the TUI's timeline labels and the
store's artifact references all read it. ``docs/event-types.md`` says how to add one.
"""

from __future__ import annotations

from collections.abc import Mapping

from casefile.domain.event_types import (
    case,
    evidence,
    experiment,
    hypothesis,
    postmortem,
    probe,
)
from casefile.domain.event_types.base import (
    EventType,
    Fields,
    NarrativeContext,
    NarrativeLine,
    Payload,
    RedactAs,
    Upcaster,
    new_event,
)

__all__ = [
    "EVENT_TYPES",
    "EventType",
    "Fields",
    "NarrativeContext",
    "NarrativeLine",
    "Payload",
    "RedactAs",
    "Upcaster",
    "label",
    "new_event",
]

#: Every event type by its stable name, from each family's ``TYPES``.
EVENT_TYPES: Mapping[str, EventType] = {
    kind.type: kind
    for family in (case, hypothesis, probe, evidence, experiment, postmortem)
    for kind in family.TYPES
}


def label(event_type: str) -> str:
    """A type's short name for a timeline column; an unknown type (written by a newer
    casefile) by its full name."""
    kind = EVENT_TYPES.get(event_type)
    return event_type if kind is None else kind.label
