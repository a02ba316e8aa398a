"""An in-memory event store with the same contract as the SQL one.

For fast tests of the application service and the views: no file, no engine, no cleanup. The
contract suite in ``tests/store`` runs against it too, so it cannot drift from the real store.
Payloads handed out are the store's own dicts: treat them as read-only, as with any event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace

from casefile.domain.catalogue import validate_payload
from casefile.domain.events import GENESIS_HASH, Event, NewEvent, seal, sha256_hex, utc_now
from casefile.errors import CaseNotFound, ConcurrencyError, StoreError
from casefile.store.base import Removed, StoredSnapshot
from casefile.store.verify import check_importable, referenced_artifacts


class MemoryEventStore:
    """An :class:`~casefile.store.base.EventStore` held in dicts, safe across threads; a
    :class:`~casefile.store.base.SnapshotStore` too."""

    def __init__(self, clock: Callable[[], str] = utc_now) -> None:
        """``clock`` gives each append's ``recorded_at``; a fixed one makes a build reproducible
        (the reference case is rebuilt byte for byte)."""
        self._clock = clock
        self._lock = threading.Lock()
        self._streams: dict[str, list[Event]] = {}
        self._artifacts: dict[str, bytes] = {}
        self._snapshots: dict[tuple[str, str], StoredSnapshot] = {}

    def writing(self, case_id: str) -> AbstractContextManager[None]:
        """Holds nothing: writers in one process lose a race only to a thread that appended in
        between, and then re-read at the cost of a dict lookup, so optimism is enough."""
        return nullcontext()

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        normalised = [
            replace(new, payload=validate_payload(new.type, new.version, new.payload))
            for new in events
        ]
        if not normalised:
            return []
        with self._lock:
            stream = self._streams.get(case_id, [])
            seq, prev_hash = (stream[-1].seq, stream[-1].hash) if stream else (0, GENESIS_HASH)
            if seq != expected_seq:
                raise ConcurrencyError(case_id, expected_seq)
            recorded_at = self._clock()
            sealed: list[Event] = []
            for new in normalised:
                seq += 1
                event = seal(case_id, seq, prev_hash, new, recorded_at)
                sealed.append(event)
                prev_hash = event.hash
            self._streams[case_id] = [*stream, *sealed]
        return sealed

    def load(self, case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        with self._lock:
            stream = self._streams.get(case_id, [])
        # Seqs run 1, 2, 3 … without gaps, so the event with seq n sits at index n - 1.
        start = max(after, 0)
        return stream[start:] if upto is None else stream[start : max(upto, 0)]

    def head(self, case_id: str) -> tuple[int, str]:
        with self._lock:
            stream = self._streams.get(case_id)
        return (stream[-1].seq, stream[-1].hash) if stream else (0, GENESIS_HASH)

    def change_token(self, case_id: str) -> object:
        """The head: a stream only grows, so an unchanged head means nothing was appended."""
        return self.head(case_id)

    def case_ids(self) -> list[str]:
        with self._lock:
            firsts = [(s[0].recorded_at, cid) for cid, s in self._streams.items() if s]
        return [cid for _, cid in sorted(firsts)]

    def put_artifact(self, data: bytes) -> str:
        digest = sha256_hex(data)
        with self._lock:
            self._artifacts.setdefault(digest, bytes(data))
        return digest

    def get_artifact(self, digest: str) -> bytes:
        with self._lock:
            return self._artifacts[digest]

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        with self._lock:
            return {d: self._artifacts[d] for d in set(digests) if d in self._artifacts}

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        case_id = check_importable(events, artifacts)
        with self._lock:
            if self._streams.get(case_id):
                raise StoreError(
                    f"case {case_id} already exists in memory; "
                    "import into another database or remove the case first"
                )
            for digest, data in artifacts.items():
                self._artifacts.setdefault(digest, bytes(data))
            self._streams[case_id] = list(events)

    # -- snapshots (a cache of a fold; see casefile.store.base) ------------------------------

    def save_snapshot(
        self, case_id: str, seq: int, head_hash: str, engine: str, data: bytes
    ) -> None:
        snapshot = StoredSnapshot(seq, head_hash, engine, bytes(data))
        with self._lock:
            self._snapshots[case_id, engine] = snapshot

    def load_snapshot(self, case_id: str, engine: str) -> StoredSnapshot | None:
        with self._lock:
            return self._snapshots.get((case_id, engine))

    def drop_snapshots(self, case_id: str | None = None) -> None:
        with self._lock:
            if case_id is None:
                self._snapshots.clear()
            else:
                for key in [k for k in self._snapshots if k[0] == case_id]:
                    del self._snapshots[key]

    def remove_case(self, case_id: str) -> Removed:
        with self._lock:
            stream = self._streams.get(case_id)
            if not stream:
                raise CaseNotFound(f"no case {case_id!r} (see `casefile cases`)")
            mine = {d for event in stream for d in referenced_artifacts(event)}
            others = {
                d
                for other, events in self._streams.items()
                if other != case_id
                for event in events
                for d in referenced_artifacts(event)
            }
            drop = mine - others
            del self._streams[case_id]
            for key in [k for k in self._snapshots if k[0] == case_id]:
                del self._snapshots[key]
            for digest in drop:
                self._artifacts.pop(digest, None)
        return Removed(case_id, len(stream), len(drop), len(mine) - len(drop))

    def location(self) -> str:
        """No place but this process: the store's class names it."""
        return type(self).__name__

    def close(self) -> None:
        """Nothing to release; present for the contract."""
