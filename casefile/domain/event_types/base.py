"""What an event type is: its payload model and the descriptor that says everything else.

A :class:`Payload` is the typed schema of one type's payload; a command builds one and turns
it into the event to append with :meth:`Payload.to_new_event`, so the stored dict is exactly
the model's normal form (``model_dump(mode="json", exclude_none=True)``, what the store's
validation writes too). An :class:`EventType` holds, beside the model, what every reader of
the type needs: its timeline label, its one-line summary, its line in the report, whether the
fold handles it, which fields hold artifact digests and which hold names that redaction must
treat. Readers look a type up in :data:`~casefile.domain.event_types.EVENT_TYPES` by its
stable name and never keep tables of their own.

Who reads the model and who the stored dict. The fold (``beliefs/projection.py``), the report's
readers and the event and probe detail views validate each small payload they read into its
model and read it by attribute, so each default has one home, the model: 1.4-2.6 us a payload
(by the model's core validator, :meth:`Payload.of`; ``model_validate`` adds about 1 us), 3 % of a
cold ``status``'s CPU time on a 100,000-event case of 28 % evidence (``benchmarks/README.md``).
Two types are read as stored, through :mod:`~casefile.domain.event_types.stored`: an
``observation.recorded`` (48-74 us to validate with 83 facts, every fact a model) and a
``probe.ran`` (about 6 us), which the fold keeps as written and a restored fold holds only as
stubs that would not validate; so are the fold's set-aside records and the likelihoods it
keeps. The descriptors' summaries and narrative lines take the stored dict (:data:`Fields`):
the log and replay summarise every event of a long case, where validating each one again
would cost more than the text.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, Protocol, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from casefile.domain.events import NewEvent
from casefile.errors import InvalidEvent

#: A stored payload as a summary or a narrative line reads it (see the module's docstring).
Fields = Mapping[str, Any]
#: A step from one version of a type's payload to the next (see :mod:`casefile.domain.upcasters`).
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
#: What a payload field holds that the report's redaction must treat: a host (``[user@]host``),
#: a command line (its secrets and ssh targets), ``KEY=value`` entries some of which name hosts
#: or secrets, or free text (which may quote any of these).
RedactAs = Literal["host", "command", "environment", "text"]

#: payload model → its descriptor, for :meth:`Payload.to_new_event` (filled as each is made)
_BY_MODEL: dict[object, EventType] = {}


P = ParamSpec("P")


class Payload(BaseModel):
    """A payload schema (or a part of one): unknown fields refused, values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def of(cls, stored: Fields) -> Self:
        """This model of a stored payload (``ValidationError`` if it does not validate): what
        ``model_validate`` does, by the model's core validator without the per-call set-up
        ``model_validate`` runs in Python (1.4 against 2.5 us an ``evidence.assessed``), as
        the report validates one per event it reads."""
        validated: Self = cls.__pydantic_validator__.validate_python(stored)
        return validated

    def to_new_event(self, occurred_at: str | None = None) -> NewEvent:
        """The event recording this payload, at its type's current version."""
        kind = _BY_MODEL.get(type(self))
        if kind is None:
            raise TypeError(f"{type(self).__name__} is not the payload of an event type")
        return NewEvent(
            kind.type,
            self.model_dump(mode="json", exclude_none=True),
            occurred_at=occurred_at,
            version=kind.version,
        )


def new_event(model: Callable[P, Payload], /, *args: P.args, **fields: P.kwargs) -> NewEvent:
    """The event recording a payload of ``model`` built from ``fields``; a field the schema
    refuses raises :class:`InvalidEvent` in the words the store's validation uses."""
    try:
        payload = model(*args, **fields)
    except ValidationError as error:
        kind = _BY_MODEL.get(model)
        name = getattr(model, "__name__", "payload") if kind is None else kind.type
        raise invalid(name, error) from None
    return payload.to_new_event()


def invalid(event_type: str, error: ValidationError) -> InvalidEvent:
    """The error for a payload of ``event_type`` that does not validate: the first field."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "payload"
    return InvalidEvent(f"{event_type}: field {where!r}: {first['msg']}")


@dataclass(frozen=True, slots=True)
class NarrativeLine:
    """An event's row in the report's timeline. ``kind`` None: the type's family
    (``hypothesis`` for ``hypothesis.retired``)."""

    text: str
    kind: str | None = None
    host: str | None = None
    conditions: str | None = None
    facts: str | None = None


class NarrativeContext(Protocol):
    """What the report lends a narrative line: its own ways of writing things, and what the
    case holds around the event being told."""

    def quote(self, text: str) -> str:
        """``text`` on one line, cut to the report's quoting length."""
        ...

    def reading(self, payload: Fields) -> str:
        """What an evidence event read, in the report's words."""
        ...

    def conditions(self, conditions: Fields | None) -> str | None:
        """A run's conditions (``host=…, load=…``), or None."""
        ...

    def facts_read(self) -> str | None:
        """The facts the observation recorded from this event's probe run, if one was."""
        ...


Summary = Callable[[Fields], str]
Narrative = Callable[[Fields, NarrativeContext], NarrativeLine | None]


@dataclass(frozen=True, slots=True)
class EventType:
    """Everything casefile knows about one event type, in one place.

    ``label`` is the timeline's short name; ``summary`` the log's line; ``narrative`` the
    report's row (None: the report leaves the type out, unless its event moved a leader);
    ``folded`` whether the fold has a handler (``_Folder._<family>_<verb>``); ``artifact_fields``
    the payload fields holding artifact digests; ``redact_fields`` the fields (``a.b`` inside a
    nested model) holding names the report's redaction must treat, and as what; ``upcasters``
    version *n* → the step to *n + 1*; ``detail`` the why behind a step, shown under its
    summary; ``own_text`` a note's or an action's own words and outcome; ``beside_label`` the
    summary as the timeline shows it beside the label (None: the summary without the label
    it opens with, "evidence e8: …" read as "e8: …"), so no row says its type twice.
    """

    type: str
    version: int
    model: builtins.type[Payload]  # (``type`` is the name, above)
    label: str
    summary: Summary
    narrative: Narrative | None
    folded: bool
    artifact_fields: tuple[str, ...]
    redact_fields: Mapping[str, RedactAs]
    upcasters: Mapping[int, Upcaster] = field(default_factory=dict)
    detail: Callable[[Fields], str | None] | None = None
    own_text: Callable[[Fields], tuple[str, str | None]] | None = None
    beside_label: Summary | None = None

    def __post_init__(self) -> None:
        _BY_MODEL[self.model] = self

    @property
    def family(self) -> str:
        """The part of the name before the verb (``probe`` for ``probe.ran``)."""
        return self.type.split(".", 1)[0]

    def timeline_text(self, payload: Fields) -> str:
        """The summary beside the timeline's type column, without saying the type again."""
        if self.beside_label is not None:
            return self.beside_label(payload)
        return without_label(self.label, self.summary(payload))


def without_label(label: str, summary: str) -> str:
    """``summary`` without the label it opens with (``"note: …"`` → ``"…"``, ``"probe lspci
    on …"`` → ``"lspci on …"``); a summary that does not open with it, unchanged."""
    for lead in (f"{label}: ", f"{label} "):
        if summary.startswith(lead) and len(summary) > len(lead):
            return summary[len(lead) :]
    return summary
