"""The application service: the one door every front end goes through, in four parts.

The CLI, the terminal UI, the report and the agent interface reach the core only through
:class:`CaseService`, and each takes the part it needs: the :class:`~casefile.app.writer.
CaseWriter` records reasoning, the :class:`~casefile.app.reader.CaseReader` builds the views,
the :class:`~casefile.app.case_library.CaseLibrary` lists, imports, exports and verifies
whole cases, and :class:`~casefile.app.probe_verbs.CaseProbing` runs, records and ingests
probe output. None of them imports the store, the runners or the fold; import-linter
contracts in ``pyproject.toml`` hold that.

The four share one :class:`~casefile.app.sessions.CaseSessions`, so a case a long-lived front
end keeps folded is folded once: a write decides on the fold the reader then shows, and only
new events are folded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from casefile.app.case_library import CaseLibrary
from casefile.app.probe_verbs import CaseProbing
from casefile.app.reader import CaseReader
from casefile.app.recording import ProbeRecord
from casefile.app.session import RETRIES
from casefile.app.sessions import CaseSessions
from casefile.app.writer import CaseWriter

if TYPE_CHECKING:
    from casefile.plugins import Registry
    from casefile.store.base import EventStore

__all__ = ["RETRIES", "CaseService", "ProbeRecord"]


class CaseService:
    """The writer, the reader, the case library and probing over one event store."""

    def __init__(self, store: EventStore, registry: Registry | None = None) -> None:
        self.sessions = CaseSessions(store, registry)
        self.writer = CaseWriter(self.sessions)
        self.reader = CaseReader(self.sessions)
        self.library = CaseLibrary(self.sessions)
        self.probing = CaseProbing(self.sessions)

    @property
    def store(self) -> EventStore:
        return self.sessions.store

    @property
    def registry(self) -> Registry:
        return self.sessions.registry

    def flush(self) -> None:
        """Write the fold snapshots that folding big cases made due."""
        self.sessions.flush()

    def close(self) -> None:
        self.sessions.close()

    def __enter__(self) -> CaseService:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
