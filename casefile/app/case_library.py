"""The case library: the cases a database holds, as a whole.

Listing, resolving a reference, verifying, exporting to a case directory, importing one, and
removing a case: what a person does to cases rather than inside one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from casefile.errors import DomainError

if TYPE_CHECKING:
    from pathlib import Path

    from casefile.app.library import Imported, Verified
    from casefile.app.sessions import CaseSessions
    from casefile.app.views import CaseRow
    from casefile.domain.beliefs import Projection
    from casefile.store.base import Removed


#: The most events the case list folds to show one case's leaders (about 100 MB at the
#: shape of ``bench_scaling.py``'s cases): a longer case shows them once this engine has saved
#: a fold of it (a ``status`` of it saves one), not at the cost of holding all its events.
GLANCE_MOST = 10_000


class CaseLibrary:
    """The cases of one store."""

    def __init__(self, sessions: CaseSessions) -> None:
        self.sessions = sessions

    def cases(self, *, with_leaders: bool = False) -> list[CaseRow]:
        """Every case in the database, oldest first (leaders cost a fold each: opt in; a case
        held folded, or whose saved fold leaves at most ``GLANCE_MOST`` events to fold, has
        them, another none: listing never folds a long case whole)."""
        from casefile.app.library import list_cases
        from casefile.app.views import build_case_row

        rows = []
        for facts in list_cases(self.sessions.store):
            projection = (
                self.sessions.glance(facts.case_id, most=GLANCE_MOST) if with_leaders else None
            )
            rows.append(
                build_case_row(
                    facts.case_id,
                    facts.first,
                    facts.last.seq,
                    facts.last.hash,
                    facts.last.recorded_at,
                    projection,
                )
            )
        return rows

    def resolve(self, reference: str) -> str:
        """The case id a reference names: exact (one indexed read), else a unique prefix."""
        from casefile.app.opening import resolve_reference

        store = self.sessions.store
        if store.head(reference)[0] > 0:
            return reference
        return resolve_reference(store.case_ids(), reference)

    def verify(
        self, case_id: str, head: str | None = None, *, fold: Projection | None = None
    ) -> Verified:
        """Check the case; ``head`` (``SEQ@HASH`` kept elsewhere) must be in its chain too;
        ``fold``: the case folded from its first event, if the caller holds one (a TUI)."""
        from casefile.app.library import verify, verify_directory
        from casefile.store.base import DirectoryStore

        store = self.sessions.store
        if isinstance(store, DirectoryStore):
            return verify_directory(store.directory, head)
        return verify(store, case_id, head, fold=fold)

    def export(self, case_id: str, directory: str | Path) -> Path:
        from casefile.app.library import export

        return export(self.sessions.store, case_id, directory)

    def import_directory(self, directory: str | Path, *, keep_existing: bool = False) -> Imported:
        from casefile.app.library import import_directory

        return import_directory(self.sessions.store, directory, keep_existing=keep_existing)

    def remove_case(self, case_id: str) -> Removed:
        """Delete a case from the database: its events, snapshots and the artifacts no other
        case refers to. A case directory is refused: its folder is the user's to delete."""
        from casefile.store.base import DirectoryStore

        store = self.sessions.store
        if isinstance(store, DirectoryStore):
            raise DomainError(
                f"{store.directory} is a case directory: casefile does not delete folders; "
                "delete the folder yourself if you mean to"
            )
        self.sessions.forget(case_id)
        return store.remove_case(case_id)

    def location(self) -> str:
        """Where the store keeps its cases, for a status line: a database URL with any
        password masked, or a case directory's path."""
        return self.sessions.store.location()
