"""Turning an accepted proposal into one append: each run stored, parsed and judged by the
playbooks' rules exactly as ``casefile probe --paste`` records one, and each note added, every
event pointing at its place in the transcript (kept as an artifact).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from casefile.app.recording import (
    Collected,
    Readers,
    decide_run,
    parse_run,
    store_output,
)
from casefile.domain.event_types.case import NoteAdded
from casefile.domain.event_types.stored import StoredRun
from casefile.domain.events import NewEvent, utc_now
from casefile.probes.runners.result import RunResult, Truncation
from casefile.transcripts.commands import COMMAND_PROBE, ProbeShape, shapes_of
from casefile.transcripts.proposal import Proposal, ProposedNote, ProposedRun, accepted

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.domain.events import Event
    from casefile.plugins import Registry

__all__ = ["IngestedRun", "Prepared", "already_ingested", "decide_ingest", "prepare", "shapes"]


def shapes(registry: Registry) -> list[ProbeShape]:
    """The command shapes of the installed probes."""
    return shapes_of(
        (name, probe.argv, probe.covers) for name, probe in registry.all_probes().items()
    )


def already_ingested(events: Iterable[Event], digest: str) -> tuple[int, int] | None:
    """(first seq, last seq) of the events an earlier ingest of the same file appended."""
    seqs = [event.seq for event in events if _transcript_of(event) == digest]
    return (seqs[0], seqs[-1]) if seqs else None


def _transcript_of(event: Event) -> str | None:
    """The transcript an event was ingested from: a run's or a note's; None for the rest."""
    if event.type == "probe.ran":
        return StoredRun(event.payload).transcript_artifact
    if event.type == "note.added":
        return NoteAdded.of(event.payload).transcript_artifact
    return None


@dataclass(frozen=True)
class IngestedRun:
    """One run as recorded: what it was read as, and whether its output parsed."""

    index: int
    probe: str
    host: str
    line: str
    parsed: bool
    facts: int
    problems: tuple[str, ...]
    scrubbed: tuple[str, ...]
    truncated: bool
    #: the other probes that read its output (a command no probe's pattern matched, say)
    read_as: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prepared:
    """Accepted items ready to be decided: runs collected (output stored and parsed), notes."""

    items: tuple[tuple[ProposedNote | ProposedRun, Collected | None, dict[str, Any]], ...]

    @property
    def runs(self) -> list[IngestedRun]:
        out = []
        for item, collected, _ in self.items:
            if isinstance(item, ProposedRun) and collected is not None:
                out.append(
                    IngestedRun(
                        item.index,
                        collected.probe.name,
                        item.host,
                        item.line,
                        collected.parsed.parsed,
                        len(collected.parsed.facts),
                        tuple(collected.parsed.problems),
                        item.scrubbed,
                        item.cut is not None,
                        collected.read_as,
                    )
                )
        return out


def _ref(proposal: Proposal, item: ProposedNote | ProposedRun) -> dict[str, Any]:
    ref: dict[str, Any] = {"offset": item.offset, "length": item.length, "format": proposal.format}
    if isinstance(item, ProposedRun) and item.filter:
        ref["filter"] = item.filter
    if item.scrubbed:
        ref["scrubbed"] = list(item.scrubbed)
    if not proposal.scrub:
        ref["scrub"] = False
    return ref


def prepare(
    proposal: Proposal,
    indexes: Iterable[int] | None,
    digest: str,
    put: Callable[[bytes], str],
    registry: Registry,
) -> Prepared:
    """Store each accepted run's output and parse it (before deciding, as a probe run is):
    a command no probe's pattern matched is a ``command`` run, offered like any other to the
    probes that recognise its output."""
    probes = registry.all_probes()
    readers = Readers.of(registry)
    now = utc_now()
    prepared: list[tuple[ProposedNote | ProposedRun, Collected | None, dict[str, Any]]] = []
    for item in accepted(proposal, indexes):
        ref = _ref(proposal, item)
        if isinstance(item, ProposedNote):
            prepared.append((item, None, ref))
            continue
        probe = probes.get(item.probe) or probes[COMMAND_PROBE]
        cuts: tuple[Truncation, ...] = ()
        if item.cut is not None:
            cuts = (Truncation("stdout", *item.cut),)
        when = item.at or now
        result = RunResult(
            argv=item.argv,
            host=item.host,
            exit_status=item.exit_status,
            stdout=item.text,
            stderr="",
            started_at=when,
            finished_at=when,
            duration_s=0.0,
            source="pasted",
            stdout_bytes=item.output,
            truncated=cuts,
        )
        stored = store_output(put, result)
        collected = parse_run(
            probe,
            stored.result,
            stdout_digest=stored.stdout_digest,
            stderr_digest=stored.stderr_digest,
            load=proposal.load,
            reconstructed=False,
            note=None,
            rules=readers.rules(probe.name),
            setup=item.setup,
            readers=readers,
            scrubbed=item.secrets,
            scrub=proposal.scrub,
        )
        payload = {**collected.run_payload, "transcript_artifact": digest, "transcript": ref}
        prepared.append((item, replace(collected, run_payload=payload), ref))
    return Prepared(tuple(prepared))


def decide_ingest(draft: Draft, prepared: Prepared, digest: str) -> list[int]:
    """Add every prepared item's events to one draft; returns the probe runs' seqs."""
    run_seqs: list[int] = []
    last_at: str | None = None
    for item, collected, ref in prepared.items:
        if collected is None:
            assert isinstance(item, ProposedNote)
            payload = {"text": item.text, "transcript_artifact": digest, "transcript": ref}
            draft.add(NewEvent("note.added", payload, occurred_at=last_at))
            continue
        assert isinstance(item, ProposedRun)
        last_at = item.at or last_at
        run_seqs.append(decide_run(draft, collected, item.at).run_seq)
    return run_seqs


def unparsed(runs: Sequence[IngestedRun]) -> list[IngestedRun]:
    """The runs whose output did not parse (recorded all the same)."""
    return [run for run in runs if not run.parsed]
