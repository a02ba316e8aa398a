"""Starting a fold from a stored snapshot: a cache for one-shot commands on big cases.

A snapshot is the fold of a case up to some event, serialised as plain data by
:mod:`casefile.domain.beliefs.fold_codec` (never a format that can run code when loaded: it may
live in a shared PostgreSQL that other people write to). It is keyed by case, seq, that
event's hash and the engine version, sealed to them with a key kept outside the database
(:mod:`casefile.app.snapshot_seal`), and it is never truth: it is used only when its seal
verifies, the event at its seq still has its hash and the events after it chain onto it, and it
is rebuilt from the events whenever anything does not match. Results are identical with and
without it (tested). A store that keeps no snapshots (no
:class:`~casefile.store.base.SnapshotStore`: a case directory) always folds from its events.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile import __version__
from casefile.errors import CasefileError
from casefile.store.base import SnapshotStore

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.store.base import EventStore, StoredSnapshot

#: A new snapshot is written once this many events have been folded beyond the last one (or
#: from nothing): below it, folding from the events is already fast.
SNAPSHOT_AFTER = 2_000


def engine_key() -> str:
    """The fold's version and casefile's: a snapshot from another is not used."""
    from casefile.domain.beliefs.fold_codec import ENGINE_VERSION

    return f"{ENGINE_VERSION}/casefile-{__version__}"


def fold_case(store: EventStore, case_id: str, *, save: bool = True) -> tuple[Projection, bool]:
    """The case's current state (no trajectory: see ``project``), from a matching snapshot and
    the events after it when one exists, else from every event; saves a fresh snapshot when
    many events were folded (``save=False``: says whether one is due instead, so that it can
    be written after the answer is out)."""
    folded = _fold(store, case_id, save=save, most=None)
    assert folded is not None  # (no limit given)
    return folded


def fold_within(store: EventStore, case_id: str, most: int) -> Projection | None:
    """The case's current state as :func:`fold_case` makes it (a snapshot saved when due), or
    ``None`` when that would fold more than ``most`` events: a long case with no snapshot of
    this engine (after an upgrade every saved one is refused) is not folded at all. A fold
    keeps every event it folds, so a glance at a long case would cost as much memory as
    opening it."""
    folded = _fold(store, case_id, save=True, most=most)
    return None if folded is None else folded[0]


def _fold(
    store: EventStore, case_id: str, *, save: bool, most: int | None
) -> tuple[Projection, bool] | None:
    from casefile.domain.beliefs import project

    key = engine_key()
    start = _from_snapshot(store, case_id, key)
    base = start.last_seq if start is not None else 0
    if most is not None and store.head(case_id)[0] - base > most:
        return None
    if start is None:
        projection = project(store.load(case_id), trajectory=False)
    else:
        tail = store.load(case_id, after=base)
        if tail and tail[0].prev_hash != start.last_hash:
            # history rewritten after the snapshot
            if most is not None and tail[-1].seq > most:
                return None
            projection = project(store.load(case_id), trajectory=False)
            base = 0
        else:
            start.keeps_trajectory = False
            projection = project(tail, into=start)
    due = projection.last_seq - base >= SNAPSHOT_AFTER
    if save and due:
        save_snapshot(store, projection, key)
        due = False
    return projection, due


def save_snapshot(store: EventStore, projection: Projection, key: str | None = None) -> bool:
    """Store the fold as a snapshot; a cache that cannot be written is no error."""
    from casefile.app.snapshot_seal import seal, snapshot_key
    from casefile.domain.beliefs.fold_codec import dump_fold

    if not isinstance(store, SnapshotStore) or projection.last_seq == 0:
        return False
    secret = snapshot_key()
    if secret is None:
        return False  # nothing to seal it with: a snapshot no one could trust is not written
    engine = key or engine_key()
    case_id, seq, head = projection.case_id, projection.last_seq, projection.last_hash
    try:
        store.save_snapshot(
            case_id,
            seq,
            head,
            engine,
            seal(secret, case_id, seq, head, engine, dump_fold(projection)),
        )
    except CasefileError:
        return False
    return True


def _from_snapshot(store: EventStore, case_id: str, key: str) -> Projection | None:
    """The stored snapshot restored, if it still describes this case's history and its seal
    verifies (see :mod:`casefile.app.snapshot_seal`)."""
    from casefile.app.snapshot_seal import snapshot_key, unseal
    from casefile.domain.beliefs.fold_codec import FoldUnreadable, restore_fold

    if not isinstance(store, SnapshotStore):
        return None
    try:
        snapshot = store.load_snapshot(case_id, key)
        if snapshot is None or snapshot.seq < 1:
            return None
        anchor = store.load(case_id, snapshot.seq, after=snapshot.seq - 1)
    except CasefileError:
        return None
    if len(anchor) != 1 or anchor[0].hash != snapshot.head_hash:
        return None  # the history it was taken from is not this case's any more
    secret = snapshot_key()
    if secret is None:
        return None
    body = unseal(secret, case_id, snapshot.seq, snapshot.head_hash, key, snapshot.data)
    if body is None:
        return None  # forged, damaged, or sealed with another key: fold the events instead
    try:
        restored = restore_fold(body)
    except FoldUnreadable:
        return None
    if (
        restored.case_id != case_id
        or restored.last_seq != snapshot.seq
        or restored.last_hash != snapshot.head_hash
    ):
        return None
    return restored


@dataclass(frozen=True)
class SnapshotCheck:
    """What ``verify`` found of a case's stored snapshot."""

    seq: int
    #: the snapshot is the fold of the events up to ``seq``, exactly
    matches: bool
    #: its seal verifies under the key at hand (else it is never used here)
    sealed: bool
    #: events after ``seq`` folded onto it to compare it with a fold of the whole case (0:
    #: compared with a fold of the events up to ``seq``)
    carried: int = 0

    def note(self) -> str:
        if not self.matches:
            return (
                f"the stored snapshot at seq {self.seq} does not match the events it claims to "
                "fold (forged or damaged): it is never used, and was dropped"
            )
        if not self.sealed:
            return (
                f"the stored snapshot at seq {self.seq} matches its events but is not sealed "
                "with this user's snapshot key: it is not used here"
            )
        if self.carried:
            after = f"the {self.carried} event{'s' if self.carried != 1 else ''} after it"
            return (
                f"the stored snapshot at seq {self.seq} matches its events and its seal "
                f"(with {after} folded on, it is the fold of the whole case)"
            )
        return f"the stored snapshot at seq {self.seq} matches its events and its seal"


#: Events :func:`state_by_pages` reads and folds at a time.
CHECK_PAGE = 5_000


def state_by_pages(
    store: EventStore, case_id: str, upto: int, page: int = CHECK_PAGE
) -> Projection:
    """The case's state after event ``upto`` (no history), its events read and folded a page
    at a time and each page let go: it holds the state and one page, not every event (the
    check of a snapshot runs beside a TUI's whole history fold)."""
    from casefile.domain.beliefs import Projection, project

    fresh = Projection(keeps_trajectory=False)
    for after in range(0, upto, max(1, page)):
        project(store.load(case_id, min(after + page, upto), after=after), into=fresh)
    return fresh


def check_snapshot(
    store: EventStore, case_id: str, fold: Projection | None = None
) -> SnapshotCheck | None:
    """Compare the case's stored snapshot with a fresh fold of the events up to its seq,
    whoever sealed it; one that does not match is dropped (it is a cache). ``None`` when
    there is none for this engine.

    ``fold``: a fold of the case from its first event that the caller holds anyway (a TUI's
    history). Ending at the snapshot's seq, it is compared instead of folding the case again;
    ending after it (the case grew since the snapshot was saved), the snapshot is restored,
    the events after it are folded onto it, and the result is compared with ``fold``: what a
    command starting from the snapshot would hold. Either way no second fold of a long case
    is made beside the caller's, which would double the memory (at 100,000 events a TUI went
    from 1.1 to 1.7 GB)."""
    from casefile.app.snapshot_seal import opened, snapshot_key, unseal
    from casefile.domain.beliefs.fold_codec import FoldUnreadable, dump_fold, restore_fold

    if not isinstance(store, SnapshotStore):
        return None
    key = engine_key()
    snapshot = store.load_snapshot(case_id, key)
    if snapshot is None or snapshot.seq < 1:
        return None
    body = opened(snapshot.data)
    held = fold if fold is not None and fold.base_seq == 0 else None
    carried = 0
    matches = False
    if body is not None and held is not None and held.last_seq > snapshot.seq:
        carried = held.last_seq - snapshot.seq
        matches = _carries_to(store, snapshot, body, held)
    elif body is not None:
        saved: bytes | None = None
        try:  # the stored state's bytes first: the restored fold is let go before the fresh one
            saved = dump_fold(restore_fold(body))
        except FoldUnreadable:
            saved = None
        if saved is not None:
            fresh = held
            if fresh is None or fresh.last_seq != snapshot.seq:
                fresh = state_by_pages(store, case_id, snapshot.seq)
            matches = (
                fresh.last_seq == snapshot.seq
                and fresh.last_hash == snapshot.head_hash
                and dump_fold(fresh) == saved
            )
    secret = snapshot_key()
    sealed = secret is not None and (
        unseal(secret, case_id, snapshot.seq, snapshot.head_hash, key, snapshot.data) is not None
    )
    if not matches:
        with suppress(CasefileError):
            store.drop_snapshots(case_id)
    return SnapshotCheck(snapshot.seq, matches, sealed, carried)


def _carries_to(store: EventStore, snapshot: StoredSnapshot, body: bytes, fold: Projection) -> bool:
    """Whether the snapshot (``body``, opened), with the case's events after it folded onto
    it, is ``fold`` exactly: it is restored only if it claims the case, seq and hash it is
    stored under, and the events after it must chain onto that hash up to ``fold``'s head."""
    from casefile.domain.beliefs import project
    from casefile.domain.beliefs.fold_codec import FoldUnreadable, dump_fold, restore_fold

    try:
        restored = restore_fold(body)
    except FoldUnreadable:
        return False
    if (
        restored.case_id != fold.case_id
        or restored.last_seq != snapshot.seq
        or restored.last_hash != snapshot.head_hash
    ):
        return False
    tail = store.load(fold.case_id, fold.last_seq, after=snapshot.seq)
    if (
        len(tail) != fold.last_seq - snapshot.seq
        or tail[0].prev_hash != snapshot.head_hash
        or tail[-1].hash != fold.last_hash
    ):
        return False
    restored.keeps_trajectory = False
    project(tail, into=restored)
    return dump_fold(restored) == dump_fold(fold)
