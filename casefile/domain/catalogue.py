"""The typed event catalogue: every event type's current version and schema, and validation.

Each type has a stable name (``hypothesis.proposed``), never a Python import path, and a
schema version, both held by its descriptor in :mod:`casefile.domain.event_types`; the tables
here are read from those descriptors. Payloads are validated when an event is appended or
imported; an invalid one is refused with a message naming the field. Applying an event in a
projection only reads these stored values: no logic that could change later runs again on
replay.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from casefile.domain.event_types import EVENT_TYPES, Payload
from casefile.domain.event_types.base import invalid
from casefile.domain.event_types.case import (
    ActionTaken,
    CaseConcluded,
    CaseOpened,
    NoteAdded,
    TranscriptRef,
)
from casefile.domain.event_types.evidence import (
    EvidenceAssessed,
    EvidenceKind,
    IntakeRef,
    ReadingSetAside,
    RuleRef,
)
from casefile.domain.event_types.experiment import ExperimentRecorded
from casefile.domain.event_types.hypothesis import (
    HypothesisProposed,
    HypothesisRefined,
    HypothesisReinstated,
    HypothesisRetired,
    PriorsRebalanced,
    QuestionProposed,
    Requirement,
)
from casefile.domain.event_types.probe import (
    Conditions,
    FactRecord,
    LoadState,
    ObservationRecorded,
    ProbeRan,
    StreamTruncation,
)
from casefile.domain.upcasters import upcast
from casefile.errors import InvalidEvent

__all__ = [
    "CATALOGUE",
    "CURRENT_VERSIONS",
    "ActionTaken",
    "CaseConcluded",
    "CaseOpened",
    "Conditions",
    "EvidenceAssessed",
    "EvidenceKind",
    "ExperimentRecorded",
    "FactRecord",
    "HypothesisProposed",
    "HypothesisRefined",
    "HypothesisReinstated",
    "HypothesisRetired",
    "IntakeRef",
    "LoadState",
    "NoteAdded",
    "ObservationRecorded",
    "Payload",
    "PriorsRebalanced",
    "ProbeRan",
    "QuestionProposed",
    "ReadingSetAside",
    "Requirement",
    "RuleRef",
    "StreamTruncation",
    "TranscriptRef",
    "validate_payload",
]

#: Each event type's (current version, payload model), from its descriptor.
CATALOGUE: dict[str, tuple[int, type[Payload]]] = {
    name: (kind.version, kind.model) for name, kind in EVENT_TYPES.items()
}


#: Each event type's current version: what the fold reads every stored event as.
CURRENT_VERSIONS: dict[str, int] = {name: version for name, (version, _) in CATALOGUE.items()}


def validate_payload(event_type: str, version: int, payload: Any) -> dict[str, Any]:
    """Validate a payload and return it in normal form (defaults filled in, JSON-ready).

    A payload of an older version is validated as it reads today (through the upcasters of
    :mod:`casefile.domain.upcasters`) and returned as written: normal form is defined for the
    current version only, and its hash covers it as written. A newer version is refused.
    Raises :class:`InvalidEvent` naming the event type and the first offending field.
    """
    entry = CATALOGUE.get(event_type)
    if entry is None:
        known = ", ".join(sorted(CATALOGUE))
        raise InvalidEvent(f"unknown event type {event_type!r} (known: {known})")
    current_version, model = entry
    if not isinstance(payload, dict):
        raise InvalidEvent(f"{event_type}: payload must be a JSON object")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidEvent(f"{event_type}: version {version!r} is not a number")
    if version != current_version:
        validate_payload(
            event_type, current_version, upcast(event_type, version, current_version, payload)
        )
        return payload
    try:
        parsed = model.model_validate(payload)
    except ValidationError as error:
        raise invalid(event_type, error) from None
    return parsed.model_dump(mode="json", exclude_none=True)
