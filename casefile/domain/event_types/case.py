"""The case's own events: opened, notes, actions taken, concluded."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from casefile.domain.event_types.base import (
    EventType,
    Fields,
    NarrativeContext,
    NarrativeLine,
    Payload,
)


class CaseOpened(Payload):
    title: str = Field(min_length=1)
    symptom: str | None = None
    environment: dict[str, str] = Field(default_factory=dict)


class TranscriptRef(Payload):
    """Where in an ingested transcript (the event's ``transcript_artifact``) an event came
    from; absent, with that field, on events that did not come from one, so their payloads hash
    as they always did."""

    offset: int = Field(ge=0)
    length: int = Field(ge=0)
    format: str = Field(min_length=1)
    #: the pipeline stages that filtered the command's output (``grep -i pcie | head -80``)
    filter: str | None = None
    #: the kinds of secret scrubbed before sealing (``Authorization header`` …)
    scrubbed: list[str] | None = Field(default=None, min_length=1)
    #: False when the user kept the transcript's secrets (``--no-scrub``): nothing was scrubbed
    scrub: Literal[False] | None = None


class NoteAdded(Payload):
    text: str = Field(min_length=1)
    transcript_artifact: str | None = None
    transcript: TranscriptRef | None = None


class ActionTaken(Payload):
    text: str = Field(min_length=1)
    outcome: str | None = None


class CaseConcluded(Payload):
    summary: str = Field(min_length=1)
    root_cause: str | None = None
    recommendations: list[str] = Field(default_factory=list)
    lessons: list[str] = Field(default_factory=list)
    #: concluded although the honesty guard held it back: the concluder's reason (absent on
    #: a conclusion the guard let through, so those payloads hash as they always did)
    acknowledged: str | None = Field(default=None, min_length=1)


def _opened(p: Fields) -> str:
    return f"case opened: {_title(p)}"


def _title(p: Fields) -> str:
    return str(p["title"]) + (f" — {p['symptom']}" if p.get("symptom") else "")


def _action(p: Fields) -> str:
    return f"action: {p['text']}" + (f" → {p['outcome']}" if p.get("outcome") else "")


def _action_line(p: Fields, ctx: NarrativeContext) -> NarrativeLine:
    return NarrativeLine(str(p["text"]) + (f" → {p['outcome']}" if p.get("outcome") else ""))


def _concluded(p: Fields) -> str:
    """The conclusion as the report tells it, with the acknowledgement it was made under."""
    summary = str(p["summary"])
    if p.get("acknowledged"):
        summary += f" — concluded against the honesty guard; acknowledged: {p['acknowledged']}"
    return summary


def _own_words(p: Fields) -> tuple[str, str | None]:
    outcome = p.get("outcome")
    return str(p["text"]), None if outcome is None else str(outcome)


CASE_OPENED = EventType(
    "case.opened",
    1,
    CaseOpened,
    label="opened",
    summary=_opened,
    beside_label=_title,
    narrative=None,  # the report's summary tells it
    folded=True,
    artifact_fields=(),
    redact_fields={"title": "text", "symptom": "text", "environment": "environment"},
)

NOTE_ADDED = EventType(
    "note.added",
    1,
    NoteAdded,
    label="note",
    summary=lambda p: f"note: {p['text']}",
    narrative=lambda p, ctx: NarrativeLine(str(p["text"])),
    folded=False,
    artifact_fields=("transcript_artifact",),
    redact_fields={"text": "text"},
    own_text=_own_words,
)

ACTION_TAKEN = EventType(
    "action.taken",
    1,
    ActionTaken,
    label="action",
    summary=_action,
    narrative=_action_line,
    folded=False,
    artifact_fields=(),
    redact_fields={"text": "text", "outcome": "text"},
    own_text=_own_words,
)

CASE_CONCLUDED = EventType(
    "case.concluded",
    1,
    CaseConcluded,
    label="concluded",
    summary=lambda p: f"concluded: {p['summary']}",
    narrative=lambda p, ctx: NarrativeLine(_concluded(p), kind="conclusion"),
    folded=True,
    artifact_fields=(),
    redact_fields={
        "summary": "text",
        "root_cause": "text",
        "recommendations": "text",
        "lessons": "text",
        "acknowledged": "text",
    },
)

#: The types of this family, as :data:`~casefile.domain.event_types.EVENT_TYPES` lists them.
TYPES = (CASE_OPENED, NOTE_ADDED, ACTION_TAKEN, CASE_CONCLUDED)
