"""Whole cases: list, verify, export and import them.

One import path for case directories: everything is read and verified first (chain, artifacts,
and that the domain can fold the events), and only then written, in one transaction. Importing
the same case again is a no-op, so the README's first command can be run twice; a different
case under an existing id is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.errors import IntegrityError, StoreError

if TYPE_CHECKING:
    from casefile.domain.events import Event
    from casefile.store.base import EventStore


@dataclass(frozen=True)
class CaseFacts:
    """What the store tells about a case without folding it."""

    case_id: str
    first: Event
    last: Event


@dataclass(frozen=True)
class Verified:
    """The outcome of checking a case's chain and artifacts."""

    ok: bool
    events: int
    artifacts: int
    message: str
    head_seq: int
    head_hash: str
    seq: int | None = None


@dataclass(frozen=True)
class Imported:
    case_id: str
    #: the database already held this exact case: nothing was written
    already: bool


def case_facts(store: EventStore, case_id: str) -> CaseFacts | None:
    """The first and the last event of a case: two indexed reads, whatever its size."""
    seq, _ = store.head(case_id)
    if seq == 0:
        return None
    first = store.load(case_id, 1)
    last = first if seq == 1 else store.load(case_id, seq, after=seq - 1)
    return CaseFacts(case_id, first[0], last[-1])


def list_cases(store: EventStore) -> list[CaseFacts]:
    """Every case in the store, oldest first."""
    found = (case_facts(store, case_id) for case_id in store.case_ids())
    return [facts for facts in found if facts is not None]


def verify(store: EventStore, case_id: str) -> Verified:
    """Check the chain (every hash, every link) and every artifact a stored case references."""
    from casefile.store.verify import verify_stored_case

    report = verify_stored_case(store, case_id)
    seq, head = store.head(case_id)
    message = (
        report.message
        if not report.ok
        else f"{report.events} events, {report.artifacts} artifacts verify (case {case_id})"
    )
    return Verified(report.ok, report.events, report.artifacts, message, seq, head, report.seq)


def verify_directory(directory: str | os.PathLike[str]) -> Verified:
    """Check a case directory as import would, without importing it."""
    from casefile.errors import CasefileError
    from casefile.store.casedir import read_case_dir

    try:
        events, artifacts = read_case_dir(directory)
    except CasefileError as error:
        return Verified(False, 0, 0, str(error), 0, "", getattr(error, "seq", None))
    last = events[-1]
    message = f"{len(events)} events, chain and artifacts verify ({os.fspath(directory)})"
    return Verified(True, len(events), len(artifacts), message, last.seq, last.hash)


def export(store: EventStore, case_id: str, directory: str | os.PathLike[str]) -> Path:
    """Write a stored case as a case directory, after verifying it."""
    from casefile.store.casedir import export_stored_case

    report = verify(store, case_id)
    if not report.ok:
        raise IntegrityError(f"not exported: {report.message}", seq=report.seq)
    return export_stored_case(store, case_id, directory)


def import_directory(store: EventStore, directory: str | os.PathLike[str]) -> Imported:
    """Verify a case directory completely, then import it in one transaction."""
    from casefile.domain.beliefs import project
    from casefile.store.casedir import read_case_dir

    events, artifacts = read_case_dir(directory)
    project(events)  # a case whose events the domain cannot fold is refused before any write
    case_id = events[0].case_id
    head = store.head(case_id)
    if head[0] != 0:
        # Importing the same case again is harmless; a different case under that id is not.
        if head != (events[-1].seq, events[-1].hash):
            raise StoreError(
                f"case {case_id} already exists in the database with different events; not imported"
            )
        return Imported(case_id, already=True)
    store.import_case(events, artifacts)
    return Imported(case_id, already=False)
