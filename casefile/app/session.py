"""One case held folded: fold once, then only what is new.

A :class:`CaseSession` keeps a case's fold and the position it has reached (seq and hash).
:meth:`CaseSession.refresh` reads only the events after that seq, checks that the first of them
chains onto the hash it holds, and folds just the tail. If it does not chain, the history was
rewritten under the session (a database restored from a backup, a case directory replaced):
the session folds the whole case again and says so with an integrity warning.

Writes decide on the session's fold, and this is the one rule that keeps a cached fold
correct: **a fold that a failed write touched is never used again.** A verb's draft folds its
provisional events into the session's projection as it decides (the evidence it derives must
name the observation's seq). If the append then succeeds, the provisional events are exactly
the appended ones (same seqs, types and payloads), so the session swaps in the sealed events
and keeps its fold. If anything fails once the draft has folded an event (a lost race, a
domain error half-way through opening a playbook, a store error), the session drops its fold
and builds it again from the store before the next use; a verb refused before its first event
leaves the fold untouched, and the session keeps it.

A lost race is such a failure, and dropping the fold makes the loser slower than the winner
(it reads and folds the case again while the winner's fold stays warm), so under contention
it used to lose again and again until its retries ran out: of sixteen writers on one case
directory, about half failed. So each attempt at a write runs inside the store's
:meth:`~casefile.store.base.EventStore.writing`, in which a store that can make the case's
other writers wait does (a case directory by its lock, PostgreSQL by an advisory lock): the
refresh, the decision and the append then cannot lose, and no fold is dropped for a race.
SQLite stays optimistic, and spreads its losers' retries out itself: it pauses with jitter
before it reports a lost race (:meth:`~casefile.store.sql_connections.SqlConnections._lost_race`),
so the retries here do not pause a second time. :func:`write_retrying` is that loop, for every
write of the service.

A session is not thread-safe: it lives in one thread (a TUI worker), and what leaves it for a
UI is an immutable view model, never the projection itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from casefile.app.draft import Draft
from casefile.app.who import Who
from casefile.domain.events import NewEvent
from casefile.errors import SEE_CASES, CaseNotFound, ConcurrencyError

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import Event
    from casefile.store.base import EventStore

T = TypeVar("T")

#: Attempts at a write that keeps losing the race to other writers.
RETRIES = 8


def write_retrying(
    store: EventStore, case_id: str, attempt: Callable[[], T], *, retries: int = RETRIES
) -> T:
    """``attempt()`` (read, decide, append) inside ``store.writing(case_id)``, run again on
    each lost race, at most ``retries`` times (at least once); the last loss is raised.

    The hold is released between attempts, so that a loser's next attempt waits its turn
    behind the writers that were already waiting instead of going first.
    """
    for _attempt in range(retries - 1):
        try:
            with store.writing(case_id):
                return attempt()
        except ConcurrencyError:
            continue
    with store.writing(case_id):
        return attempt()


@dataclass(frozen=True)
class Refreshed:
    """What one refresh brought in."""

    events: list[Event]
    #: the history changed under the session, which folded the whole case again
    rewritten: bool = False


@dataclass
class CaseSession:
    """A case folded and kept current. ``history=False`` folds the current state only (no
    trajectory, so no replay from it) and may start from a stored snapshot; the state and
    its views are the same."""

    store: EventStore
    case_id: str
    history: bool = True
    integrity_warnings: list[str] = field(default_factory=list)
    #: a snapshot of the fold is worth writing (see :meth:`save_snapshot`)
    snapshot_due: bool = False
    _projection: Projection | None = None

    @property
    def projection(self) -> Projection:
        """The fold as of the last refresh (folding the case first if nothing is held)."""
        if self._projection is None:
            self._projection = self._fold_all()
        return self._projection

    @property
    def loaded(self) -> bool:
        return self._projection is not None

    def _fold_all(self) -> Projection:
        from casefile.domain.beliefs import project

        if self.history:
            projection = project(self.store.load(self.case_id))
        else:
            from casefile.app.fold_cache import fold_case

            projection, self.snapshot_due = fold_case(self.store, self.case_id, save=False)
        if projection.last_seq == 0:
            raise CaseNotFound(f"no case {self.case_id!r}", remedy=SEE_CASES)
        return projection

    def save_snapshot(self) -> None:
        """Write the snapshot a fold from many events made due (a cache: failures are no
        error). Kept apart from folding so a one-shot command answers first."""
        if self.snapshot_due and self._projection is not None:
            from casefile.app.fold_cache import save_snapshot

            save_snapshot(self.store, self._projection)
        self.snapshot_due = False

    def drop(self) -> None:
        """Forget the fold; the next use folds the case again from the store."""
        self._projection = None

    def refresh(self) -> Refreshed:
        """Fold the events appended since the last refresh (by anyone)."""
        from casefile.domain.beliefs import project

        if self._projection is None:
            self._projection = self._fold_all()
            return Refreshed([])
        held = self._projection
        # One read from the event held, so that "nothing new" and "not our history any more"
        # are told apart without a second query another writer could slip in between.
        read = self.store.load(self.case_id, after=held.last_seq - 1)
        if not read or read[0].seq != held.last_seq or read[0].hash != held.last_hash:
            found = f"{read[0].seq}@{read[0].hash[:12]}" if read else "nothing"
            return self._rewritten(
                f"case {self.case_id}: the store has {found} where this view holds "
                f"{held.last_seq}@{held.last_hash[:12]}: the history was rewritten; folded again"
            )
        new = read[1:]
        if not new:
            return Refreshed([])
        if new[0].prev_hash != held.last_hash:
            return self._rewritten(
                f"case {self.case_id}: event {new[0].seq} does not chain onto the event "
                f"{held.last_seq} this view holds: the history was rewritten; folded again"
            )
        try:
            project(new, into=held)
        except BaseException:
            # half-folded: never used again (nor saved as a snapshot)
            self.drop()
            raise
        return Refreshed(new)

    def _rewritten(self, message: str) -> Refreshed:
        self.integrity_warnings.append(message)
        self._projection = None
        projection = self.projection
        return Refreshed(list(projection.events), rewritten=True)

    def execute(
        self, decide: Callable[[Draft], T], who: Who, *, retries: int = RETRIES
    ) -> tuple[list[Event], T]:
        """Decide events on the current fold and append them, holding the case for the
        store's writers meanwhile; on a lost race, refresh and decide again (see the module
        docstring for what happens to the fold on failure)."""
        return write_retrying(
            self.store, self.case_id, lambda: self._attempt(decide, who), retries=retries
        )

    def _attempt(self, decide: Callable[[Draft], T], who: Who) -> tuple[list[Event], T]:
        """One read–decide–append, inside the store's hold on the case."""
        self.refresh()
        projection = self.projection
        expected = projection.last_seq
        draft = Draft(projection, self.case_id)
        try:
            result = decide(draft)
        except BaseException:
            if draft.touched:
                self.drop()
            raise
        if not draft.events:
            return [], result
        try:
            stamped = [
                NewEvent(e.type, e.payload, who.actor, e.occurred_at or who.at, e.version)
                for e in draft.events
            ]
            sealed = self.store.append(self.case_id, expected, stamped)
            projection.adopt(sealed)
        except BaseException:
            # a lost race included: whether or not the append landed, the fold holds
            # provisional events
            self.drop()
            raise
        return sealed, result
