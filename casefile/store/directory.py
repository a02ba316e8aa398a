"""A case directory used directly as an event store, without importing it anywhere.

``casefile status cases/x`` reads the directory; ``casefile note cases/x …`` appends to it. The
directory is verified when opened (chain, artifacts and ``events.head``) and rewritten
atomically after each append (the events, then the head), so it always holds a complete,
verifiable case.

Several processes may write the same directory at once (a team's checkout, parallel CLI runs),
and each holds its own in-memory copy. The directory on disk is the truth, the copy only a
cache: every read first checks, with one ``lstat``, whether ``events.jsonl`` changed and
re-reads the directory if it did; an append takes the directory's lock, brings the copy up to
date under it, and raises :class:`~casefile.errors.ConcurrencyError` if the caller's
``expected_seq`` is no longer the head. So no writer ever rewrites the directory from a stale
copy.

A writer that decides on what it read (the application service's sessions) holds the lock for
the whole read, decision and append (:meth:`DirectoryEventStore.writing`), so it never loses
that race at all. Optimistic retries alone starve here: a loser has to read the directory
again and fold the case anew, which takes longer than the winner's next append, so with many
writers it lost again and again until its retries ran out. Waiting for the lock instead costs
each writer only its turn.

Snapshots are not kept (it is no :class:`~casefile.store.base.SnapshotStore`): a directory
stays plain files that anyone can read, diff and review, and folding one case from memory is
cheap. It is the :class:`~casefile.store.base.DirectoryStore`: the folder is the user's.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from casefile.domain.events import Event, NewEvent
from casefile.errors import StoreError
from casefile.store.base import Removed
from casefile.store.casedir import (
    EVENTS_FILE,
    directory_head,
    events_signature,
    locked_case_dir,
    read_case_dir,
    refuse_links,
    write_case_dir,
)
from casefile.store.memory import MemoryEventStore
from casefile.store.verify import referenced_artifacts


def is_case_dir(reference: str | os.PathLike[str]) -> bool:
    path = Path(reference)
    return path.is_dir() and (path / EVENTS_FILE).is_file()


class DirectoryEventStore:
    """One case directory behind the :class:`~casefile.store.base.EventStore` interface.

    Raises :class:`StoreError` when the directory, ``artifacts/``, ``events.jsonl`` or
    ``README.md`` is a symlink (writing through it would write outside the directory), and
    :class:`~casefile.errors.ImportRefused` when the directory does not verify.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        refuse_links(self.directory)
        self._lock = threading.RLock()
        # Whether the thread holding ``_lock`` also holds the directory's lock (only that
        # thread reads or changes it, and only under ``_lock``).
        self._holding = False
        # Blobs put by this process: kept across re-reads, because put_artifact comes before
        # the append that references them and a re-read in between must not drop them.
        self._puts: dict[str, bytes] = {}
        self._signature: tuple[int, int, int, int] | None = None
        self._memory = MemoryEventStore()
        self._reload()
        self.case_id = self._memory.case_ids()[0]

    def _reload(self) -> None:
        # The signature is taken before reading: if the file changes while it is read, the
        # next check sees a different signature and reads again (never the other way round).
        signature = events_signature(self.directory)
        events, artifacts = read_case_dir(self.directory)
        memory = MemoryEventStore()
        memory.import_case(events, artifacts)
        for data in self._puts.values():
            memory.put_artifact(data)
        self._memory, self._signature = memory, signature

    def _refresh(self) -> None:
        """Re-read the directory if ``events.jsonl`` changed since this copy was read."""
        with self._lock:
            if self._signature is None or events_signature(self.directory) != self._signature:
                self._reload()

    def _check_case(self, case_id: str) -> None:
        if case_id != self.case_id:
            raise StoreError(
                f"case directory {self.directory} holds case {self.case_id}, not {case_id}"
            )

    @contextmanager
    def writing(self, case_id: str) -> Iterator[None]:
        """Hold the directory's lock for one read–decide–append (see the module docstring):
        other writers, in this process or any other, wait until it is released; readers never
        do."""
        with self._locked():
            yield

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """This store's lock and the directory's, the latter taken once however deeply nested.

        An ``flock`` belongs to the open file it was taken on, so an append inside
        :meth:`writing` that opened and locked the lock file again would wait for its own
        thread forever.
        """
        with self._lock:
            if self._holding:
                yield
                return
            with locked_case_dir(self.directory):
                self._holding = True
                try:
                    yield
                finally:
                    self._holding = False

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        """Append under the directory's lock, checked against the directory as it is now."""
        self._check_case(case_id)
        if not events:
            return []
        with self._locked():
            self._refresh()
            if directory_head(self.directory) != self._memory.head(case_id):
                # The signature missed a change (an inode reused with the same size and time):
                # the head on disk, read under the lock, is what an append must build on.
                self._reload()
            sealed = self._memory.append(case_id, expected_seq, events)
            try:
                self._write()
            except BaseException:
                # The copy now holds events the directory does not: forget it, so the next
                # read comes from disk instead of handing out (or writing) phantom events.
                self._signature = None
                raise
            self._signature = events_signature(self.directory)
        return sealed

    def _write(self) -> None:
        events = self._memory.load(self.case_id)
        wanted: set[str] = set()
        for event in events:
            wanted |= referenced_artifacts(event)
        write_case_dir(events, self._memory.artifact_digests(wanted), self.directory)

    def load(self, case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        """Events ``after < seq <= upto`` from the in-memory copy, re-read first only if
        ``events.jsonl`` changed (one ``lstat`` when it did not)."""
        self._refresh()
        return self._memory.load(case_id, upto, after=after)

    def head(self, case_id: str) -> tuple[int, str]:
        self._refresh()
        return self._memory.head(case_id)

    def change_token(self, case_id: str) -> object:
        """The signature of ``events.jsonl`` (device, inode, size, mtime), without reading it.

        Every write replaces or grows the file, so an unchanged signature means nothing new.
        A case this directory does not hold never changes: its token is always ``None``.
        """
        if case_id != self.case_id:
            return None
        return events_signature(self.directory)

    def case_ids(self) -> list[str]:
        return [self.case_id]

    def put_artifact(self, data: bytes) -> str:
        with self._lock:
            digest = self._memory.put_artifact(data)
            self._puts.setdefault(digest, bytes(data))
        return digest

    def get_artifact(self, digest: str) -> bytes:
        self._refresh()
        return self._memory.get_artifact(digest)

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        self._refresh()
        return self._memory.artifact_digests(digests)

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        """Refused: a directory holds its one case, and an import here would never be written."""
        raise StoreError(
            f"cannot import into case directory {self.directory}; import into a database"
        )

    def remove_case(self, case_id: str) -> Removed:
        """Refused: casefile never deletes a folder it did not make; the user does."""
        raise StoreError(
            f"case {case_id} is the case directory {self.directory}; casefile does not delete "
            "folders: delete it yourself if you mean to"
        )

    def location(self) -> str:
        return str(self.directory)

    def close(self) -> None:
        self._memory.close()
