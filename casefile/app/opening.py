"""Opening what a front end names: the database, a case by id, prefix or directory, plugins.

This is the composition root every front end shares (the CLI today, the TUI and the report
next): it picks the store for a reference and builds the :class:`CaseService` over it, so no
front end ever constructs a store itself. A CASE reference is a case id in the database (a
unique prefix will do) or a path to a case directory, which is then read and written in place
without importing it. A reference is a path only when it looks like one (it contains ``/``, is
``.`` or ``..``, or starts with ``~``): a directory named like a case id never shadows the
database case, whatever the current directory (``./inc42`` opens the directory).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.errors import CaseNotFound

if TYPE_CHECKING:
    from types import TracebackType

    from casefile.app.service import CaseService
    from casefile.plugins import Registry
    from casefile.store.base import EventStore
    from casefile.store.sql_schema import DatabaseSchema


def report_broken_plugin(name: str, message: str) -> None:
    print(f"casefile: warning: plugin {name} failed to load: {message}", file=sys.stderr)


def registry() -> Registry:
    """The installed plugins, discovered lazily (a broken one is reported, the rest work)."""
    from casefile.plugins import Registry

    return Registry.discover(on_broken=report_broken_plugin)


def database(db: str | None) -> EventStore:
    """The database store for ``--db`` (or ``CASEFILE_DB``, or the default SQLite file)."""
    # SQLAlchemy takes a third of a second to import: only commands that use a database pay.
    from casefile.store.database import resolve_url
    from casefile.store.sql import SqlEventStore

    return SqlEventStore(resolve_url(db))


def database_schema(db: str | None) -> DatabaseSchema:
    """The schema of the database for ``--db``, for ``casefile db``: the only command that
    changes it (every store opens a database as it finds it)."""
    from casefile.store.database import resolve_url
    from casefile.store.sql_schema import DatabaseSchema

    return DatabaseSchema(resolve_url(db))


def looks_like_path(reference: str) -> bool:
    """Whether ``reference`` is written as a path (case ids never contain ``/`` or start ``~``)."""
    return "/" in reference or reference in {".", ".."} or reference.startswith("~")


def looks_like_directory(reference: str) -> bool:
    """Whether ``reference`` names a case directory rather than a case id.

    Only a reference written as a path (see :func:`looks_like_path`) does: a bare ``inc42``
    is a case id even when the current directory holds a case directory of that name.
    """
    from casefile.store.directory import is_case_dir

    return looks_like_path(reference) and is_case_dir(os.path.expanduser(reference))


def open_service(db: str | None, plugins: Registry | None = None) -> CaseService:
    """The service over the database, for verbs that name no case yet (new, cases, import)."""
    from casefile.app.service import CaseService

    return CaseService(database(db), plugins if plugins is not None else registry())


@dataclass
class OpenCase:
    """A service bound to the store holding one case, and that case's id; close it after use."""

    service: CaseService
    case_id: str
    where: str

    def close(self) -> None:
        self.service.close()

    def __enter__(self) -> OpenCase:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_case(reference: str, db: str | None, plugins: Registry | None = None) -> OpenCase:
    """Resolve a CASE reference: a case directory, an exact case id, or a unique prefix."""
    from casefile.app.service import CaseService

    found = plugins if plugins is not None else registry()
    if looks_like_path(reference):
        from casefile.store.directory import DirectoryEventStore

        path = os.path.expanduser(reference)
        directory = DirectoryEventStore(path)
        return OpenCase(CaseService(directory, found), directory.case_id, path)
    service = CaseService(database(db), found)
    try:
        case_id = service.library.resolve(reference)
    except CaseNotFound as missing:
        service.close()
        from casefile.store.directory import is_case_dir

        if is_case_dir(reference):
            raise CaseNotFound(
                f"{missing}; a case directory {reference!r} is here: use ./{reference} to open it"
            ) from None
        raise
    except BaseException:
        service.close()
        raise
    return OpenCase(service, case_id, "database")


def resolve_reference(ids: list[str], reference: str) -> str:
    """The one case id that ``reference`` names among ``ids`` (exact, else unique prefix)."""
    if reference in ids:
        return reference
    matches = [cid for cid in ids if cid.startswith(reference)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise CaseNotFound(f"case id {reference!r} is ambiguous: {', '.join(matches[:5])}")
    hint = f"cases: {', '.join(ids[:8])}" if ids else "the database has no cases"
    raise CaseNotFound(f"no case {reference!r} in the database ({hint})")
