"""The event store interface the application service depends on.

One stream per case, ``seq`` 1, 2, 3 … without gaps. An append states the last ``seq`` the
writer saw; if another writer got there first the store raises
:class:`~casefile.errors.ConcurrencyError` and changes nothing. Several events appended in one
call land together or not at all (a probe run, its observation and the evidence derived from it
are one unit). Artifacts are content-addressed blobs, stored once.

Every store does what :class:`EventStore` declares. What only some stores can do is declared
apart, once each, as a protocol a caller checks with ``isinstance`` (the type checker then
knows the methods it may call), never by looking for attributes:

- :class:`SnapshotStore` keeps snapshots (the databases and memory; a case directory stays plain
  files). Snapshots are a cache of a fold, never truth: whoever folds a case may store the
  result (as bytes it serialised itself) with the ``seq`` and head hash it was folded up to, and
  later fold only the events after that seq (``load(case_id, after=seq)``) once it has checked
  that the stream still holds that hash at that seq. A store may lose or refuse snapshots at any
  time; the events alone always rebuild everything.
- :class:`DatabaseStore` was opened from a database URL (SQLite or PostgreSQL), whose password
  no message may show.
- :class:`NotifyingStore` announces its appends, so a follower can wait for them instead of
  polling (PostgreSQL's LISTEN/NOTIFY).
- :class:`DirectoryStore` is one case directory: a folder the user owns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from casefile.domain.events import Event, NewEvent


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """A fold of a case's events 1..``seq`` (whose last hash was ``head_hash``), as ``engine``
    serialised it. ``engine`` names the fold and its version: a snapshot is only ever read back
    by the code that wrote it, so a changed fold uses a new name instead of misreading old
    bytes."""

    seq: int
    head_hash: str
    engine: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Removed:
    """What removing a case took away: its events, its snapshots, and the artifacts no other
    case refers to (``artifacts_kept`` are shared with another case and stay)."""

    case_id: str
    events: int
    artifacts_removed: int
    artifacts_kept: int


class EventStore(Protocol):
    def writing(self, case_id: str) -> AbstractContextManager[None]:
        """Hold the case for one read–decide–append by the calling thread.

        A writer that reads a case, decides events on what it read and appends them does all
        three inside this. A store whose writers can cheaply wait their turn makes them (a
        case directory holds its lock), so the append cannot lose the race: with many writers,
        optimistic retries starve whoever is slowest to re-read. A store that cannot simply
        returns, and stays optimistic. Either way the append still states ``expected_seq`` and
        may raise :class:`~casefile.errors.ConcurrencyError`; appends inside it never wait for
        the hold they are in.
        """
        ...

    def append(self, case_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Event]:
        """Append events after ``expected_seq`` (0 for a new case); validate, chain, hash them."""
        ...

    def load(self, case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        """The events of a case with ``after < seq <= upto``, in ``seq`` order.

        ``after`` lets a reader that already holds events 1..n fetch only what came since;
        ``upto`` (``None``: the head) stops at a point in the past, as replay does.
        """
        ...

    def head(self, case_id: str) -> tuple[int, str]:
        """The last ``seq`` and its hash (``(0, GENESIS_HASH)`` for an empty stream)."""
        ...

    def change_token(self, case_id: str) -> object:
        """A cheap value for a poller to compare with the one it saw last, on the same store.

        Equal tokens mean nothing new was appended to the case in between; unequal tokens
        mean "look" (there may be new events, or the store may only have changed otherwise).
        Tokens from different store objects are not comparable.
        """
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

    def remove_case(self, case_id: str) -> Removed:
        """Delete the case's events and snapshots, and the artifacts only it refers to, in one
        transaction; raises :class:`~casefile.errors.CaseNotFound` for a case with no events."""
        ...

    def location(self) -> str:
        """Where the store keeps its cases, for a status line: a database URL with any password
        masked, a case directory's path, or the store's kind for one kept in memory."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class SnapshotStore(Protocol):
    """A store that keeps snapshots of folds (see the module docstring)."""

    def save_snapshot(
        self, case_id: str, seq: int, head_hash: str, engine: str, data: bytes
    ) -> None:
        """Keep ``data`` as the case's snapshot for ``engine``, replacing the one saved before.

        Raises only :class:`~casefile.errors.StoreError`, which a caller may ignore: a snapshot
        that was not saved costs a longer fold next time, nothing else.
        """
        ...

    def load_snapshot(self, case_id: str, engine: str) -> StoredSnapshot | None:
        """The snapshot last saved for the case and ``engine``, or ``None``."""
        ...

    def drop_snapshots(self, case_id: str | None = None) -> None:
        """Forget the case's snapshots (every case's, without ``case_id``)."""
        ...


@runtime_checkable
class DatabaseStore(Protocol):
    """A store opened from a SQLAlchemy database URL."""

    @property
    def url(self) -> str:
        """The URL, password included, so that a connection of one's own can be opened to the
        same database. Never show it: show :meth:`EventStore.location`, and pass messages that
        may quote it through :func:`~casefile.store.sql_listen.mask_secrets`."""
        ...


class Listener(Protocol):
    """A connection that waits for a :class:`NotifyingStore`'s notifications."""

    def wait(self, timeout: float) -> list[str]:
        """The payloads (case ids) received within ``timeout`` seconds; raises
        :class:`~casefile.errors.StoreError` when the connection is lost."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class NotifyingStore(Protocol):
    """A store whose every append and import sends a notification after it commits, so that a
    follower can wait for news instead of polling.

    A notification carries no position and can be missed or coalesced: it only says "look"."""

    def listen(self, *, connect_timeout: int) -> Listener:
        """A new connection of its own that hears the store's notifications; raises
        :class:`~casefile.errors.StoreError` when it cannot be opened."""
        ...


@runtime_checkable
class DirectoryStore(Protocol):
    """A store that is one case directory: a folder the user owns, which casefile never
    deletes and verifies as the folder it is."""

    @property
    def directory(self) -> Path:
        """The case directory."""
        ...
