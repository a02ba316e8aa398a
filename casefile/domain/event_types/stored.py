"""Typed reads of what readers keep as stored dicts: probe runs, observations, the fold's
records of set-aside readings (a payload with its event's seq and hash) and the likelihoods
the fold keeps with each evidence.

Every other payload a reader needs is validated into its model and read by attribute (1.4-4 us
an ``evidence.assessed``). These are kept as stored instead: an ``observation.recorded``
validates in 48-74 us with 83 facts (every fact a model) and a ``probe.ran`` in about 6 us; the
fold keeps both as written, and a fold restored from its saved state holds only stubs of them
(no facts, a few keys of a run), which would not validate. The functions and views here are
the one place those dicts are read by key (``tests/domain/test_typed_reads.py`` holds the fold,
the report and the detail views to it): one field at a time, with the type the model gives it
and, where the field is absent, the model's own default.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from casefile.domain.event_types.base import Fields
from casefile.domain.event_types.evidence import RuleRef
from casefile.domain.event_types.probe import (
    Conditions,
    FactRecord,
    ObservationRecorded,
    ProbeRan,
    StreamTruncation,
)
from casefile.domain.facts import Fact


def _default(model: type[BaseModel], name: str) -> Any:
    """The value ``model`` gives ``name`` when a payload leaves it out."""
    return model.model_fields[name].get_default(call_default_factory=True)


_NO_CONDITIONS: Fields = Conditions().model_dump(mode="json", exclude_none=True)
_LOAD: str = _default(Conditions, "load")
_SUBJECT: str = _default(FactRecord, "subject")
_PARSED: bool = _default(ObservationRecorded, "parsed")
_TIMED_OUT: bool = _default(ProbeRan, "timed_out")
_RECONSTRUCTED: bool = _default(ProbeRan, "reconstructed")


class _Stored:
    __slots__ = ("fields",)

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    def _text(self, name: str) -> str | None:
        value = self.fields.get(name)
        return None if value is None else str(value)

    @property
    def conditions(self) -> Fields:
        """The conditions it was taken under, as stored."""
        found: Fields | None = self.fields.get("conditions")
        return _NO_CONDITIONS if found is None else found

    @property
    def load(self) -> str:
        return str(self.conditions.get("load", _LOAD))


class StoredRun(_Stored):
    """A ``probe.ran`` payload as stored (or a restored fold's stub of it), read with types."""

    __slots__ = ()

    @property
    def probe(self) -> str:
        return str(self.fields["probe"])

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(str(arg) for arg in self.fields["argv"])

    @property
    def host(self) -> str:
        return str(self.fields["host"])

    @property
    def source(self) -> str:
        return str(self.fields["source"])

    @property
    def exit_status(self) -> int | None:
        value = self.fields.get("exit_status")
        return None if value is None else int(value)

    @property
    def timed_out(self) -> bool:
        return bool(self.fields.get("timed_out", _TIMED_OUT))

    @property
    def reconstructed(self) -> bool:
        return bool(self.fields.get("reconstructed", _RECONSTRUCTED))

    @property
    def error(self) -> str | None:
        return self._text("error")

    @property
    def note(self) -> str | None:
        return self._text("note")

    @property
    def started_at(self) -> str | None:
        return self._text("started_at")

    @property
    def finished_at(self) -> str | None:
        return self._text("finished_at")

    @property
    def duration_s(self) -> float | None:
        value = self.fields.get("duration_s")
        return None if value is None else float(value)

    @property
    def stdout_artifact(self) -> str | None:
        return self._text("stdout_artifact")

    @property
    def transcript_artifact(self) -> str | None:
        """The transcript an ingest took the run from, if one did."""
        return self._text("transcript_artifact")

    @property
    def stderr_artifact(self) -> str | None:
        return self._text("stderr_artifact")

    @property
    def truncated(self) -> tuple[StreamTruncation, ...]:
        """The streams the runner cut (a few small models, validated when asked)."""
        cuts = self.fields.get("truncated") or ()
        return tuple(StreamTruncation.of(cut) for cut in cuts)


class StoredFact:
    """One fact of an observation as stored, read with types."""

    __slots__ = ("fields",)

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    @property
    def name(self) -> str:
        return str(self.fields["name"])

    @property
    def subject(self) -> str:
        return str(self.fields.get("subject", _SUBJECT))

    @property
    def value(self) -> float | int | str | bool:
        value: float | int | str | bool = self.fields["value"]
        return value

    @property
    def unit(self) -> str | None:
        unit = self.fields.get("unit")
        return None if unit is None else str(unit)

    def as_fact(self) -> Fact:
        """The domain's fact, as a parser gave it (what rules and intake read)."""
        return Fact(name=self.name, value=self.value, subject=self.subject, unit=self.unit)


class StoredObservation(_Stored):
    """An ``observation.recorded`` payload as stored (or a restored fold's stub of it, which
    keeps no facts), read with types."""

    __slots__ = ()

    @property
    def probe_run_seq(self) -> int:
        return int(self.fields["probe_run_seq"])

    @property
    def probe(self) -> str:
        return str(self.fields["probe"])

    @property
    def parsed(self) -> bool:
        return bool(self.fields.get("parsed", _PARSED))

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(str(problem) for problem in self.fields.get("problems") or ())

    @property
    def facts(self) -> tuple[StoredFact, ...]:
        return tuple(StoredFact(fact) for fact in self.fields.get("facts") or ())

    @property
    def held_facts(self) -> list[Fields] | None:
        """The facts as stored; None for a restored fold's stub, which keeps none."""
        facts: list[Fields] | None = self.fields.get("facts")
        return facts


def unparsed_run(fields: Fields) -> int | None:
    """The probe run an ``observation.recorded`` payload, as stored, says it could not parse;
    None when it parsed (all the fold reads of an observation, once per observation, so
    without building a view)."""
    if fields.get("parsed", _PARSED):
        return None
    return int(fields["probe_run_seq"])


def kept_likelihoods(fields: Fields) -> dict[str, float]:
    """The likelihoods of an ``evidence.assessed`` payload as stored (its model validated
    them): the dict the fold applies and keeps with the evidence. The model's copy holds the
    same numbers, but keeping it would hold a second dict per evidence beside the stored
    payload, which the fold keeps too (5.2 MB more traced memory, +12 %, folding the
    100,000-event bench case of 28,198 evidence events)."""
    likelihoods: dict[str, float] = fields["likelihoods"]
    return likelihoods


class StoredSetAside:
    """The fold's record of a ``reading.set_aside`` (its payload as stored, with its event's
    ``seq`` and ``hash``), read with types: a report and a detail pane scan every one of them
    for a few fields."""

    __slots__ = ("fields",)

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    @property
    def seq(self) -> int:
        return int(self.fields["seq"])

    @property
    def hash(self) -> str:
        return str(self.fields["hash"])

    @property
    def observation_seq(self) -> int:
        return int(self.fields["observation_seq"])

    @property
    def rule(self) -> RuleRef:
        """The rule that set the reading aside (one small model, validated when asked)."""
        return RuleRef.of(self.fields["rule"])

    @property
    def rule_id(self) -> str:
        """The rule's id without validating its reference: the fold raises a warning from
        every record, and a long case holds tens of thousands."""
        return str(self.fields["rule"]["id"])

    @property
    def rule_version(self) -> int:
        return int(self.fields["rule"]["version"])

    @property
    def reason(self) -> str:
        return str(self.fields["reason"])
