"""Probe runs and the observations parsed from them."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Literal

from pydantic import Field, model_validator

from casefile.domain.event_types.base import (
    EventType,
    Fields,
    NarrativeContext,
    NarrativeLine,
    Payload,
)
from casefile.domain.event_types.case import TranscriptRef

LoadState = Literal["idle", "under-load", "unknown"]


class Conditions(Payload):
    load: LoadState = "unknown"
    host: str | None = None
    detail: str | None = None
    #: set when the run was taken on another setup than the one under investigation (the old
    #: version, the fixed machine, an experiment's variant): it is kept to compare, and the rules
    #: do not read it as the case's state. Absent otherwise, so earlier runs hash as they did.
    setup: str | None = Field(default=None, min_length=1, max_length=200)


class StreamTruncation(Payload):
    """One output stream the runner cut to its head and tail: it printed ``total_bytes``, and the
    artifact holds exactly the first ``head_bytes`` followed by the last ``tail_bytes``."""

    stream: Literal["stdout", "stderr"]
    total_bytes: int = Field(ge=0)
    head_bytes: int = Field(ge=0)
    tail_bytes: int = Field(ge=0)

    @model_validator(mode="after")
    def _kept_within_printed(self) -> StreamTruncation:
        if self.head_bytes + self.tail_bytes > self.total_bytes:
            raise ValueError("head_bytes + tail_bytes exceed total_bytes")
        return self


class ProbeRan(Payload):
    """A probe ran (or its output was pasted); raw output lives in artifacts.

    ``truncated`` names each stream that printed more than the runner keeps; it is absent (not
    written at all) when the whole output was kept, so runs recorded before it existed, and
    every run that printed little, hash as they always did.
    """

    probe: str
    argv: list[str]
    host: str
    #: ``stated``: nobody ran it; a person told the readings (``casefile probe --stated``)
    source: Literal["local", "ssh", "pasted", "sampler", "stated"]
    exit_status: int | None = None
    timed_out: bool = False
    started_at: str | None = None
    finished_at: str | None = None
    duration_s: float | None = None
    stdout_artifact: str | None = None
    stderr_artifact: str | None = None
    error: str | None = None
    #: the runner's tag for ``error`` (``not_found``, ``dns``, ``host_key_unknown`` …)
    error_kind: str | None = None
    conditions: Conditions = Field(default_factory=Conditions)
    reconstructed: bool = False
    note: str | None = None
    truncated: list[StreamTruncation] | None = Field(default=None, min_length=1)
    #: the ingested transcript this run was read from, and where in it (``casefile ingest``)
    transcript_artifact: str | None = None
    transcript: TranscriptRef | None = None
    #: how many different secrets were scrubbed from the command, its output and the note
    #: before they were sealed; absent when none was, so earlier runs hash as they did
    scrubbed: int | None = Field(default=None, ge=1)
    #: False when the user kept the secrets (``--no-scrub``): nothing was scrubbed
    scrub: Literal[False] | None = None


class FactRecord(Payload):
    name: str
    value: float | int | str | bool
    unit: str | None = None
    subject: str = "host"


class ObservationRecorded(Payload):
    """Facts parsed from one probe run, under the conditions it was taken."""

    probe_run_seq: int = Field(ge=1)
    probe: str
    facts: list[FactRecord]
    parsed: bool = True
    problems: list[str] = Field(default_factory=list)
    conditions: Conditions = Field(default_factory=Conditions)
    #: the probes, other than ``probe``, whose parsers read the output (a paste recorded under
    #: ``command``, say, that a profiler's parser recognised); their facts are among ``facts``.
    #: Absent when none did, so observations recorded before it existed hash as they did.
    read_as: list[str] | None = Field(default=None, min_length=1)


def _ran(p: Fields) -> str:
    load = p.get("conditions", {}).get("load", "unknown")
    origin = " (reconstructed)" if p.get("reconstructed") else ""
    status = f"exit {p['exit_status']}" if p.get("exit_status") is not None else p["source"]
    if p.get("error"):
        status = f"error: {p['error']}"
    argv = shlex.join(p["argv"])  # as a shell would take it back: copy, paste, rerun
    setup = p.get("conditions", {}).get("setup")
    other = f" [other setup: {setup}]" if setup else ""
    if p["source"] == "stated":
        return f"probe {p['probe']} on {p['host']} [{load}]{other}: stated, not run"
    return f"probe {p['probe']} on {p['host']} [{load}]{other}{origin}: `{argv}` ({status})"


def _ran_line(p: Fields, ctx: NarrativeContext) -> NarrativeLine:
    argv = [str(arg) for arg in p.get("argv") or ()]
    origin = " (reconstructed)" if p.get("reconstructed") else ""
    setup = (p.get("conditions") or {}).get("setup")
    if setup:
        origin += f" (on another setup: {setup})"
    if p.get("error"):
        status = f"error: {p['error']}"
    elif p.get("exit_status") is not None:
        status = f"exit {p['exit_status']}"
    else:
        status = str(p.get("source", ""))
    note = f" — {ctx.quote(str(p['note']))}" if p.get("note") else ""
    what = f"{shlex.join(argv)} ({status})"
    if p.get("source") == "stated":
        what = "stated, not run"
    return NarrativeLine(
        f"{p.get('probe')}: {what}{origin}{note}",
        host=str(p.get("host", "")),
        conditions=ctx.conditions(p.get("conditions")),
        facts=ctx.facts_read(),
    )


def _observed(p: Fields) -> str:
    if not p.get("parsed", True):
        return f"observation from {p['probe']}: did not parse — {'; '.join(p['problems'])}"
    count = len(p["facts"])
    facts = f"{count} fact" if count == 1 else f"{count} facts"
    return f"observation from {p['probe']}: {facts}" + fact_digest(p["facts"])


def fact_digest(facts: Sequence[Fields], limit: int = 4) -> str:
    """A few facts in brackets; measurements (facts with units) first, since they say more
    than identity (names, versions, bus ids)."""
    ordered = [f for f in facts if f.get("unit")] + [f for f in facts if not f.get("unit")]
    shown = []
    for fact in ordered[:limit]:
        unit = f" {fact['unit']}" if fact.get("unit") else ""
        shown.append(f"{fact['name']}[{fact['subject']}]={fact['value']}{unit}")
    more = f", … +{len(facts) - limit}" if len(facts) > limit else ""
    return " (" + ", ".join(shown) + more + ")" if shown else ""


def _note(p: Fields) -> str | None:
    return str(p["note"]) if p.get("note") else None


PROBE_RAN = EventType(
    "probe.ran",
    1,
    ProbeRan,
    label="probe",
    summary=_ran,
    narrative=_ran_line,
    folded=True,
    artifact_fields=("stdout_artifact", "stderr_artifact", "transcript_artifact"),
    redact_fields={
        "host": "host",
        "argv": "command",
        "error": "text",
        "note": "text",
        "conditions.host": "host",
        "conditions.detail": "text",
        "conditions.setup": "text",
    },
    detail=_note,
)

OBSERVATION_RECORDED = EventType(
    "observation.recorded",
    1,
    ObservationRecorded,
    label="observation",
    summary=_observed,
    narrative=None,  # the report's observations section; a probe run's row digests its facts
    folded=True,
    artifact_fields=(),
    redact_fields={
        "facts": "text",
        "problems": "text",
        "conditions.host": "host",
        "conditions.detail": "text",
        "conditions.setup": "text",
    },
)

#: The types of this family, as :data:`~casefile.domain.event_types.EVENT_TYPES` lists them.
TYPES = (PROBE_RAN, OBSERVATION_RECORDED)
