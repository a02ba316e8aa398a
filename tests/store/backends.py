"""The backends the contract suite runs against, and what each cannot do.

A case directory is a store of exactly one case, and it always holds that case: it is made by
exporting one, so a :class:`DirectoryEventStore` cannot start empty as the contract's tests do.
:class:`NewCaseDirectory` stands in for the directory until the first append, which seals the
events (as any store would) and exports them, exactly as ``casefile export`` writes a
directory; every later call goes to a :class:`DirectoryEventStore` over it. So everything a
test does after its first append exercises the real directory store, and the tests that are
only about an empty store, several cases, imports or snapshots skip the directory backend
(as eventsourcing's per-backend test subclasses skip what a recorder does not do).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import pytest

from casefile.domain.events import GENESIS_HASH, Event, NewEvent, sha256_hex
from casefile.errors import ConcurrencyError, StoreError
from casefile.store.base import EventStore, SnapshotStore
from casefile.store.casedir import export_case
from casefile.store.directory import DirectoryEventStore, is_case_dir
from casefile.store.memory import MemoryEventStore


@dataclass
class Backend:
    """A backend under test: its name and how to open a (further) handle on its storage.

    ``open`` gives a second connection for SQL, a second reader for a directory, and for
    memory, which has no other, the same object.
    """

    name: str
    open: Callable[[], EventStore]


def is_directory(store: EventStore) -> bool:
    return isinstance(store, NewCaseDirectory | DirectoryEventStore)


def only_with_several_cases(store: EventStore) -> None:
    """Skip for a case directory, which holds exactly one case and imports nothing."""
    if is_directory(store):
        pytest.skip("a case directory holds exactly one case (and imports none)")


def only_with_snapshots(store: EventStore) -> None:
    """Skip for a store that keeps no snapshots (a case directory)."""
    if not isinstance(store, SnapshotStore):
        pytest.skip("a case directory keeps no snapshots")


def only_when_empty_at_first(store: EventStore) -> None:
    """Skip for a case directory, which never exists without its case."""
    if is_directory(store):
        pytest.skip("a case directory is never empty")


def open_directory(path: Path) -> EventStore:
    """The directory as a store: the real one once it holds a case, else a stand-in."""
    return DirectoryEventStore(path) if is_case_dir(path) else NewCaseDirectory(path)


class NewCaseDirectory:
    """A case directory that does not exist yet (see the module docstring)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._opened: DirectoryEventStore | None = None
        self._puts: dict[str, bytes] = {}

    def _store(self) -> DirectoryEventStore | None:
        with self._lock:
            return self._opened

    def writing(self, case_id: str) -> AbstractContextManager[None]:
        """The directory's hold once it exists; before, the first append is made under this
        stand-in's own lock and holds nothing longer."""
        opened = self._store()
        return nullcontext() if opened is None else opened.writing(case_id)

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        with self._lock:
            if self._opened is None:
                sealed = MemoryEventStore().append(case_id, 0, events)  # validates them all
                if not sealed:
                    return []
                if expected_seq != 0:
                    raise ConcurrencyError(case_id, expected_seq)
                export_case(sealed, self._puts, self.directory)
                self._opened = DirectoryEventStore(self.directory)
                for data in self._puts.values():
                    self._opened.put_artifact(data)
                return sealed
            opened = self._opened
        return opened.append(case_id, expected_seq, events)

    def load(self, case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        opened = self._store()
        return [] if opened is None else opened.load(case_id, upto, after=after)

    def head(self, case_id: str) -> tuple[int, str]:
        opened = self._store()
        return (0, GENESIS_HASH) if opened is None else opened.head(case_id)

    def change_token(self, case_id: str) -> object:
        opened = self._store()
        return None if opened is None else opened.change_token(case_id)

    def case_ids(self) -> list[str]:
        opened = self._store()
        return [] if opened is None else opened.case_ids()

    def put_artifact(self, data: bytes) -> str:
        with self._lock:
            if self._opened is None:
                digest = sha256_hex(data)
                self._puts.setdefault(digest, bytes(data))
                return digest
            opened = self._opened
        return opened.put_artifact(data)

    def get_artifact(self, digest: str) -> bytes:
        opened = self._store()
        return self._puts[digest] if opened is None else opened.get_artifact(digest)

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        opened = self._store()
        if opened is not None:
            return opened.artifact_digests(digests)
        return {d: self._puts[d] for d in set(digests) if d in self._puts}

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        raise StoreError(f"cannot import into case directory {self.directory}")

    def close(self) -> None:
        opened = self._store()
        if opened is not None:
            opened.close()
