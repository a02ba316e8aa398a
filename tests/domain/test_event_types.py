"""Every event type is complete: one descriptor says everything its readers need.

A type added without a label, a summary, a report decision, a fold decision that matches the
fold's handlers, or with artifact or redaction fields its model does not have, fails here
rather than falling back to its raw name somewhere (as ``experiment.recorded`` did in the
TUI's timeline, which had its own table of labels).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

import pytest
from pydantic import BaseModel

from casefile.domain.beliefs.projection import FOLDED_TYPES, _Folder
from casefile.domain.catalogue import CATALOGUE, CURRENT_VERSIONS, validate_payload
from casefile.domain.event_types import (
    EVENT_TYPES,
    EventType,
    Fields,
    NarrativeLine,
    Payload,
    label,
    new_event,
)
from casefile.domain.event_types.case import NoteAdded, TranscriptRef
from casefile.domain.upcasters import UPCASTERS
from casefile.errors import InvalidEvent
from casefile.store.verify import ARTIFACT_FIELDS
from tests.domain.samples import SAMPLES

#: The timeline's type column (``casefile/tui/widgets/timeline.py``) is this wide.
LABEL_CELLS = 11


class Telling:
    """A report context that says what it was asked."""

    def quote(self, text: str) -> str:
        return f"«{text}»"

    def reading(self, payload: Fields) -> str:
        return f"read {payload['evidence_id']}"

    def conditions(self, conditions: Fields | None) -> str | None:
        return None if not conditions else "conditions"

    def facts_read(self) -> str | None:
        return "facts"


def test_the_catalogue_is_read_from_the_descriptors() -> None:
    assert {name: (kind.version, kind.model) for name, kind in EVENT_TYPES.items()} == CATALOGUE
    assert {name: kind.version for name, kind in EVENT_TYPES.items()} == CURRENT_VERSIONS
    assert all(name == kind.type for name, kind in EVENT_TYPES.items())
    models = [kind.model for kind in EVENT_TYPES.values()]
    assert len(set(models)) == len(models), "two types share a payload model"
    assert {
        (name, version): step
        for name, kind in EVENT_TYPES.items()
        for version, step in kind.upcasters.items()
    } == UPCASTERS


def test_a_descriptor_cannot_leave_a_decision_out() -> None:
    """Label, summary, narrative, fold, artifact and redaction fields have no defaults: a new
    type states each of them (``narrative=None`` is a decision, not a forgotten field)."""
    required = {
        f.name
        for f in dataclasses.fields(EventType)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert required >= {
        "type",
        "version",
        "model",
        "label",
        "summary",
        "narrative",
        "folded",
        "artifact_fields",
        "redact_fields",
    }


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_type_has_a_label_that_fits_the_timeline(name: str) -> None:
    kind = EVENT_TYPES[name]
    assert kind.label.strip() and kind.label != name
    assert len(kind.label) <= LABEL_CELLS, f"{name}: {kind.label!r} is cut in the timeline"
    assert label(name) == kind.label


def test_labels_tell_the_types_apart() -> None:
    labels = [kind.label for kind in EVENT_TYPES.values()]
    assert len(set(labels)) == len(labels)
    assert label("example.unknown") == "example.unknown"  # unknown: its full name


def test_every_type_has_samples() -> None:
    assert set(SAMPLES) == set(CATALOGUE)


@pytest.mark.parametrize(
    ("name", "payload"), [(name, p) for name, ps in SAMPLES.items() for p in ps]
)
def test_summary_and_narrative_read_each_sample(name: str, payload: dict[str, Any]) -> None:
    assert validate_payload(name, CURRENT_VERSIONS[name], payload) == payload, "normal form"
    kind = EVENT_TYPES[name]
    summary = kind.summary(payload)
    assert summary.strip() and "\n" not in summary
    if kind.narrative is not None:
        line = kind.narrative(payload, Telling())
        assert isinstance(line, NarrativeLine) and line.text.strip()
    if kind.detail is not None:
        assert kind.detail(payload) is None or kind.detail(payload)
    if kind.own_text is not None:
        text, _ = kind.own_text(payload)
        assert text == payload["text"]


def test_the_fold_has_a_handler_for_each_folded_type_and_no_other() -> None:
    handlers = {
        name
        for name, member in inspect.getmembers(_Folder, inspect.isfunction)
        if re.fullmatch(r"_[a-z]+_[a-z_]+", name)
    }
    folded = {"_" + name.replace(".", "_") for name, kind in EVENT_TYPES.items() if kind.folded}
    assert handlers == folded
    assert set(FOLDED_TYPES) == {name for name, kind in EVENT_TYPES.items() if kind.folded}


def _field(model: type[BaseModel], path: str) -> bool:
    """Whether ``path`` (``a.b``: ``b`` of the model ``a`` holds) is a field of ``model``."""
    head, _, rest = path.partition(".")
    info = model.model_fields.get(head)
    if info is None:
        return False
    if not rest:
        return True
    inner = [
        arg
        for arg in (info.annotation, *getattr(info.annotation, "__args__", ()))
        if isinstance(arg, type) and issubclass(arg, BaseModel)
    ]
    return any(_field(candidate, rest) for candidate in inner)


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_artifact_and_redaction_fields_are_fields_of_the_model(name: str) -> None:
    kind = EVENT_TYPES[name]
    digests = {f for f in kind.model.model_fields if f.endswith("_artifact")}
    assert set(kind.artifact_fields) == digests
    for path in kind.redact_fields:
        assert _field(kind.model, path), f"{name}: {path!r} is not a field of its payload"
    assert ARTIFACT_FIELDS.get(name, ()) == kind.artifact_fields


def test_a_host_field_reaches_the_report_row() -> None:
    """Redaction learns hosts from the report's rows: a type whose descriptor marks a top-level
    field a host puts it in its row's ``host``."""
    for name, kind in EVENT_TYPES.items():
        hosts = [f for f, role in kind.redact_fields.items() if role == "host" and "." not in f]
        if not hosts or kind.narrative is None:
            continue
        for payload in SAMPLES[name]:
            line = kind.narrative(payload, Telling())
            assert line is not None and line.host in {payload[f] for f in hosts}


def test_a_payload_becomes_its_types_event_in_normal_form() -> None:
    event = NoteAdded(
        text="seen",
        transcript_artifact="a" * 64,
        transcript=TranscriptRef(offset=0, length=3, format="t"),
    ).to_new_event(occurred_at="2026-01-01T00:00:00.000000Z")
    assert event.type == "note.added" and event.version == CURRENT_VERSIONS["note.added"]
    assert event.occurred_at == "2026-01-01T00:00:00.000000Z"
    assert event.payload == {
        "text": "seen",
        "transcript_artifact": "a" * 64,
        "transcript": {"offset": 0, "length": 3, "format": "t"},
    }
    assert validate_payload(event.type, event.version, event.payload) == event.payload


def test_a_refused_field_reads_as_the_stores_refusal() -> None:
    with pytest.raises(InvalidEvent) as built:
        new_event(NoteAdded, text="")
    with pytest.raises(InvalidEvent) as stored:
        validate_payload("note.added", 1, {"text": ""})
    assert str(built.value) == str(stored.value)
    assert str(built.value).startswith("note.added: field 'text': ")


def test_only_an_event_types_own_payload_becomes_an_event() -> None:
    with pytest.raises(TypeError, match="TranscriptRef"):
        TranscriptRef(offset=0, length=1, format="t").to_new_event()

    class Stray(Payload):
        text: str

    with pytest.raises(TypeError):
        Stray(text="x").to_new_event()
