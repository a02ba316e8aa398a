"""A case directory used directly as an event store, without importing it anywhere.

``casefile status cases/x`` reads the directory; ``casefile note cases/x …`` appends to it. The
directory is verified when opened (chain and artifacts) and rewritten atomically after each
append, so it always holds a complete, verifiable case.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from casefile.domain.events import Event, NewEvent
from casefile.store.casedir import EVENTS_FILE, export_case, read_case_dir
from casefile.store.memory import MemoryEventStore
from casefile.store.verify import referenced_artifacts


def is_case_dir(reference: str | os.PathLike[str]) -> bool:
    path = Path(reference)
    return path.is_dir() and (path / EVENTS_FILE).is_file()


class DirectoryEventStore:
    """One case directory behind the :class:`~casefile.store.base.EventStore` interface."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        events, artifacts = read_case_dir(self.directory)
        self._memory = MemoryEventStore()
        self._memory.import_case(events, artifacts)
        self.case_id = events[0].case_id

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        sealed = self._memory.append(case_id, expected_seq, events)
        self._write()
        return sealed

    def _write(self) -> None:
        events = self._memory.load(self.case_id)
        wanted: set[str] = set()
        for event in events:
            wanted |= referenced_artifacts(event)
        export_case(events, self._memory.artifact_digests(wanted), self.directory)

    def load(self, case_id: str, upto: int | None = None) -> list[Event]:
        return self._memory.load(case_id, upto)

    def head(self, case_id: str) -> tuple[int, str]:
        return self._memory.head(case_id)

    def case_ids(self) -> list[str]:
        return [self.case_id]

    def put_artifact(self, data: bytes) -> str:
        return self._memory.put_artifact(data)

    def get_artifact(self, digest: str) -> bytes:
        return self._memory.get_artifact(digest)

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        return self._memory.artifact_digests(digests)

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        self._memory.import_case(events, artifacts)

    def close(self) -> None:
        self._memory.close()
