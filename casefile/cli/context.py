"""Opening the store and resolving CASE arguments for a command.

CASE is either a case id in the database (a unique prefix will do) or a path to a case
directory, which is then used in place, without importing it into the database.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from casefile.app.service import CaseService
from casefile.errors import CaseNotFound
from casefile.plugins import Registry
from casefile.store.base import EventStore
from casefile.store.directory import DirectoryEventStore, is_case_dir


def report_broken_plugin(name: str, message: str) -> None:
    print(f"casefile: warning: plugin {name} failed to load: {message}", file=sys.stderr)


def registry() -> Registry:
    return Registry.discover(on_broken=report_broken_plugin)


def database(db: str | None) -> EventStore:
    # SQLAlchemy takes a third of a second to import: only commands that use the database pay.
    from casefile.store.database import resolve_url
    from casefile.store.sql import SqlEventStore

    return SqlEventStore(resolve_url(db))


@dataclass
class Opened:
    service: CaseService
    case_id: str
    from_directory: bool


def open_case(reference: str, db: str | None) -> Opened:
    if is_case_dir(reference):
        directory = DirectoryEventStore(reference)
        return Opened(CaseService(directory, registry()), directory.case_id, True)
    store = database(db)
    ids = store.case_ids()
    if reference in ids:
        return Opened(CaseService(store, registry()), reference, False)
    matches = [cid for cid in ids if cid.startswith(reference)]
    if len(matches) == 1:
        return Opened(CaseService(store, registry()), matches[0], False)
    store.close()
    if len(matches) > 1:
        raise CaseNotFound(f"case id {reference!r} is ambiguous: {', '.join(matches[:5])}")
    hint = f"cases: {', '.join(ids[:8])}" if ids else "the database has no cases"
    raise CaseNotFound(f"no case {reference!r} and no case directory at that path ({hint})")
