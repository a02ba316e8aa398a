"""Starting a fold from a stored snapshot: a cache for one-shot commands on big cases.

A snapshot is the fold of a case up to some event, serialised as plain data by
:mod:`casefile.domain.beliefs.fold_codec` (never a format that can run code when loaded: it may
live in a shared PostgreSQL that other people write to). It is keyed by case, seq, that
event's hash and the engine version, and it is never truth: it is used only when the event at
its seq still has its hash and the events after it chain onto it, and it is rebuilt from the
events whenever anything does not match. Results are identical with and without it (tested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from casefile import __version__
from casefile.errors import CasefileError

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.store.base import EventStore

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
    from casefile.domain.beliefs import project

    key = engine_key()
    start = _from_snapshot(store, case_id, key)
    base = start.last_seq if start is not None else 0
    if start is None:
        projection = project(store.load(case_id), trajectory=False)
    else:
        tail = store.load(case_id, after=base)
        if tail and tail[0].prev_hash != start.last_hash:
            # history rewritten after the snapshot
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
    from casefile.domain.beliefs.fold_codec import dump_fold

    saver = getattr(store, "save_snapshot", None)
    if saver is None or projection.last_seq == 0:
        return False
    try:
        saver(
            projection.case_id,
            projection.last_seq,
            projection.last_hash,
            key or engine_key(),
            dump_fold(projection),
        )
    except CasefileError:
        return False
    return True


def _from_snapshot(store: EventStore, case_id: str, key: str) -> Projection | None:
    """The stored snapshot restored, if it still describes this case's history."""
    from casefile.domain.beliefs.fold_codec import FoldUnreadable, restore_fold

    loader = getattr(store, "load_snapshot", None)
    if loader is None:
        return None
    try:
        snapshot = loader(case_id, key)
        if snapshot is None or snapshot.seq < 1:
            return None
        anchor = store.load(case_id, snapshot.seq, after=snapshot.seq - 1)
    except CasefileError:
        return None
    if len(anchor) != 1 or anchor[0].hash != snapshot.head_hash:
        return None  # the history it was taken from is not this case's any more
    try:
        restored = restore_fold(snapshot.data)
    except FoldUnreadable:
        return None
    if (
        restored.case_id != case_id
        or restored.last_seq != snapshot.seq
        or restored.last_hash != snapshot.head_hash
    ):
        return None
    return restored
