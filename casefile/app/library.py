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
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import Event
    from casefile.store.base import EventStore
    from casefile.store.head_file import Head


@dataclass(frozen=True)
class CaseFacts:
    """What the store tells about a case without folding it."""

    case_id: str
    first: Event
    last: Event


GUARANTEE = (
    "every event from seq 1 to the head follows from the one before it and matches its hash, "
    "and every artifact they reference matches its digest; the chain cannot show that events "
    "after the head were removed, or that the whole chain was rewritten with new hashes: "
    "compare the head with one kept elsewhere (verify --head SEQ@HASH)"
)
"""What a passing ``verify`` proves, and what it cannot: printed with every result."""


@dataclass(frozen=True)
class Verified:
    """The outcome of checking a case's chain and artifacts (and, if known, its head).

    ``head_seq``/``head_hash`` are the chain's last event as read (``0``/``""`` when nothing
    could be read); ``notes`` say what was or could not be checked beyond the chain itself.
    """

    ok: bool
    events: int
    artifacts: int
    message: str
    head_seq: int
    head_hash: str
    seq: int | None = None
    case_id: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def head(self) -> str | None:
        """The head as ``SEQ@HASH``, full hash, to compare out of band; ``None`` if unknown."""
        return f"{self.head_seq}@{self.head_hash}" if self.head_seq else None

    def to_json(self) -> dict[str, object]:
        """The ``verify --json`` shape."""
        return {
            "ok": self.ok,
            "case_id": self.case_id,
            "events": self.events,
            "artifacts": self.artifacts,
            "head": self.head,
            "failed_seq": self.seq,
            "message": self.message,
            "notes": list(self.notes),
            "guarantee": GUARANTEE,
        }


@dataclass(frozen=True)
class Imported:
    case_id: str
    #: the database already held a case under this id: nothing was written
    already: bool
    #: ... and that case is not this one (only with ``keep_existing``; otherwise refused)
    differs: bool = False


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


def _expected(head: str | None) -> Head | None:
    from casefile.store.head_file import parse_head

    if head is None:
        return None
    parsed = parse_head(head)
    if parsed is None:
        raise StoreError(f"the head {head!r} is not SEQ@HASH (a seq from 1 and a full hash)")
    return parsed


def _against(expected: Head, last_seq: int, hash_at: str | None) -> tuple[str | None, str]:
    """A failure message if the chain does not hold ``expected``, else a note saying it does."""
    from casefile.store.head_file import head_mismatch

    mismatch = head_mismatch(expected, last_seq, hash_at, "--head")
    after = last_seq - expected.seq
    grown = f"; {after} event{'s' if after != 1 else ''} after it" if after > 0 else ""
    return mismatch, f"the chain holds the head given with --head ({expected}){grown}"


def verify(
    store: EventStore, case_id: str, head: str | None = None, *, fold: Projection | None = None
) -> Verified:
    """Check the chain (every hash, every link) and every artifact a stored case references,
    and, given ``head`` (``SEQ@HASH`` recorded elsewhere), that the chain still holds it.
    ``fold``: a fold of the case from its first event the caller holds, which the check of the
    stored snapshot may use instead of folding again (see ``fold_cache.check_snapshot``)."""
    from casefile.store.verify import verify_stored_case

    expected = _expected(head)
    report = verify_stored_case(store, case_id)
    seq, last_hash = store.head(case_id)
    if not report.ok:
        return Verified(
            False,
            report.events,
            report.artifacts,
            report.message,
            seq,
            last_hash,
            report.seq,
            case_id,
        )
    notes: list[str] = []
    if expected is not None:
        at = (
            store.load(case_id, expected.seq, after=expected.seq - 1) if expected.seq <= seq else []
        )
        mismatch, note = _against(expected, seq, at[0].hash if at else None)
        if mismatch is not None:
            return Verified(
                False,
                report.events,
                report.artifacts,
                f"case {case_id}: {mismatch}",
                seq,
                last_hash,
                min(expected.seq, seq + 1),
                case_id,
            )
        notes.append(note)
    from casefile.app.fold_cache import check_snapshot

    snapshot = check_snapshot(store, case_id, fold)
    if snapshot is not None and not snapshot.matches:
        # The chain is sound, but someone rewrote the cache beside it: worth an exit 1, once.
        return Verified(
            False,
            report.events,
            report.artifacts,
            f"case {case_id}: {snapshot.note()}",
            seq,
            last_hash,
            None,
            case_id,
            tuple(notes),
        )
    if snapshot is not None:
        notes.append(snapshot.note())
    message = f"{report.events} events, {report.artifacts} artifacts verify (case {case_id})"
    return Verified(
        True,
        report.events,
        report.artifacts,
        message,
        seq,
        last_hash,
        None,
        case_id,
        tuple(notes),
    )


def verify_directory(directory: str | os.PathLike[str], head: str | None = None) -> Verified:
    """Check a case directory as import would (its ``events.head`` included), without
    importing it; and, given ``head``, that the chain still holds it."""
    from casefile.errors import CasefileError
    from casefile.store.casedir_import import load_case_dir
    from casefile.store.head_file import HEAD_FILE

    expected = _expected(head)
    try:
        loaded = load_case_dir(directory)
    except CasefileError as error:
        return Verified(False, 0, 0, str(error), 0, "", getattr(error, "seq", None))
    events, last = loaded.events, loaded.events[-1]
    notes: list[str] = []
    recorded = loaded.recorded_head
    if recorded is None:
        notes.append(
            f"no {HEAD_FILE} (an export from an older casefile): whether events were removed "
            "from the end cannot be checked from the directory alone"
        )
    elif recorded.seq < last.seq:
        notes.append(
            f"{HEAD_FILE} records {recorded}, behind the chain's last seq {last.seq} (a write "
            "stopped between the events and the head): accepted, the chain holds it"
        )
    else:
        notes.append(f"{HEAD_FILE} records this head")
    if expected is not None:
        at = events[expected.seq - 1].hash if expected.seq <= len(events) else None
        mismatch, note = _against(expected, last.seq, at)
        if mismatch is not None:
            message = f"{os.fspath(directory)}: {mismatch}"
            return Verified(
                False,
                len(events),
                len(loaded.artifacts),
                message,
                last.seq,
                last.hash,
                min(expected.seq, last.seq + 1),
                last.case_id,
                tuple(notes),
            )
        notes.append(note)
    message = f"{len(events)} events, chain and artifacts verify ({os.fspath(directory)})"
    return Verified(
        True,
        len(events),
        len(loaded.artifacts),
        message,
        last.seq,
        last.hash,
        None,
        last.case_id,
        tuple(notes),
    )


def export(store: EventStore, case_id: str, directory: str | os.PathLike[str]) -> Path:
    """Write a stored case as a case directory, after verifying it."""
    from casefile.store.casedir import export_stored_case

    report = verify(store, case_id)
    if not report.ok:
        raise IntegrityError(f"not exported: {report.message}", seq=report.seq)
    return export_stored_case(store, case_id, directory)


def import_directory(
    store: EventStore, directory: str | os.PathLike[str], *, keep_existing: bool = False
) -> Imported:
    """Verify a case directory completely, then import it in one transaction.

    A different case already under that id is refused, unless ``keep_existing``: then it is
    left as it is and the result says so (``differs``), for a caller that opens whatever the
    id holds (``casefile demo``).
    """
    from casefile.domain.beliefs import project
    from casefile.store.casedir import read_case_dir

    events, artifacts = read_case_dir(directory)
    project(events)  # a case whose events the domain cannot fold is refused before any write
    case_id = events[0].case_id
    head = store.head(case_id)
    if head[0] != 0:
        # Importing the same case again is harmless; a different case under that id is not.
        if head != (events[-1].seq, events[-1].hash):
            if keep_existing:
                return Imported(case_id, already=True, differs=True)
            raise StoreError(
                f"case {case_id} already exists in the database with different events; not imported"
            )
        return Imported(case_id, already=True)
    store.import_case(events, artifacts)
    return Imported(case_id, already=False)
