"""The event store interface the application service depends on.

One stream per case, ``seq`` 1, 2, 3 … without gaps. An append states the last ``seq`` the
writer saw; if another writer got there first the store raises
:class:`~casefile.errors.ConcurrencyError` and changes nothing. Several events appended in one
call land together or not at all (a probe run, its observation and the evidence derived from it
are one unit). Artifacts are content-addressed blobs, stored once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from casefile.domain.events import Event, NewEvent


class EventStore(Protocol):
    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        """Append events after ``expected_seq`` (0 for a new case); validate, chain, hash them."""
        ...

    def load(self, case_id: str, upto: int | None = None) -> list[Event]:
        """All events of a case in ``seq`` order (up to and including ``upto``)."""
        ...

    def head(self, case_id: str) -> tuple[int, str]:
        """The last ``seq`` and its hash (``(0, GENESIS_HASH)`` for an empty stream)."""
        ...

    def case_ids(self) -> list[str]:
        """Every case that has at least one event, oldest first."""
        ...

    def put_artifact(self, data: bytes) -> str:
        """Store a blob once; return its SHA-256 hex digest."""
        ...

    def get_artifact(self, digest: str) -> bytes:
        """The blob with that digest (raises ``KeyError`` if absent)."""
        ...

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The blobs among ``digests`` that the store holds."""
        ...

    def import_case(self, events: Sequence[Event], artifacts: Mapping[str, bytes]) -> None:
        """Insert an already-sealed, verified stream and its artifacts in one transaction.

        Refuses (``StoreError``) when the case already exists; leaves the store unchanged on
        any failure.
        """
        ...

    def close(self) -> None: ...
