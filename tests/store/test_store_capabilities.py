"""Each store declares exactly the optional abilities it has (``casefile.store.base``), so that
callers check them with ``isinstance`` and the type checker sees what they then call; and each
says where it keeps its cases.

A capability a store has is also exercised here: snapshots round-trip, a notifying store's
listener hears an append, a directory store names its folder. All traffic stays on loopback.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.domain.events import NewEvent
from casefile.errors import DomainError
from casefile.store.base import (
    DatabaseStore,
    DirectoryStore,
    EventStore,
    NotifyingStore,
    SnapshotStore,
)
from casefile.store.casedir import export_case
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.sql_postgres import PostgresEventStore

CAPABILITIES = (SnapshotStore, DatabaseStore, NotifyingStore, DirectoryStore)
CASE = "capable"


def declared(store: object) -> set[str]:
    return {capability.__name__ for capability in CAPABILITIES if isinstance(store, capability)}


def note(text: str) -> NewEvent:
    return NewEvent("note.added", {"text": text})


def snapshot_round_trips(store: SnapshotStore) -> bool:
    store.save_snapshot(CASE, 1, "a" * 64, "fold-test", b"fold")
    saved = store.load_snapshot(CASE, "fold-test")
    store.drop_snapshots(CASE)
    return saved is not None and saved.data == b"fold"


def case_dir(path: Path) -> Path:
    memory = MemoryEventStore()
    memory.append(CASE, 0, [note("opened")])
    export_case(memory.load(CASE), {}, path)
    return path


def test_memory_keeps_snapshots_and_nothing_else() -> None:
    store = MemoryEventStore()
    assert declared(store) == {"SnapshotStore"}
    assert isinstance(store, SnapshotStore) and snapshot_round_trips(store)
    assert store.location() == "MemoryEventStore"


def test_a_case_directory_is_a_directory_store_without_snapshots(tmp_path: Path) -> None:
    path = case_dir(tmp_path / "case")
    store = DirectoryEventStore(path)
    assert declared(store) == {"DirectoryStore"}
    assert not hasattr(store, "save_snapshot") and not hasattr(store, "load_snapshot")
    assert isinstance(store, DirectoryStore) and store.directory == path
    assert store.location() == str(path)
    with CaseService(DirectoryEventStore(path)) as service:
        assert service.library.location() == str(path)
        assert service.library.verify(CASE).ok  # the folder is verified as a folder
        with pytest.raises(DomainError, match="is a case directory"):
            service.library.remove_case(CASE)  # the folder is the user's to delete
    assert DirectoryEventStore(path).load(CASE)


def test_sqlite_keeps_snapshots_and_is_a_database_that_does_not_notify(sqlite_url: str) -> None:
    with SqlEventStore(sqlite_url) as store:
        assert type(store) is SqlEventStore
        assert declared(store) == {"SnapshotStore", "DatabaseStore"}
        assert isinstance(store, SnapshotStore) and snapshot_round_trips(store)
        assert isinstance(store, DatabaseStore) and store.url == sqlite_url
        assert store.location() == sqlite_url
    with CaseService(SqlEventStore(sqlite_url)) as service:
        assert service.library.location() == sqlite_url


@pytest.mark.postgres
def test_postgres_also_notifies_and_masks_its_password_in_its_location(
    postgres_url: str,
) -> None:
    scheme, rest = postgres_url.split("://", 1)
    user, where = rest.split("@", 1)
    with_password = f"{scheme}://{user}:s3cret-pw@{where}"  # trust auth: accepted, unused
    with SqlEventStore(with_password) as store:
        assert type(store) is PostgresEventStore and isinstance(store, SqlEventStore)
        assert declared(store) == {"SnapshotStore", "DatabaseStore", "NotifyingStore"}
        assert isinstance(store, SnapshotStore) and snapshot_round_trips(store)
        location = store.location()  # the engine's URL: with the connection options it adds
        assert location.startswith(f"{scheme}://{user}:***@{where}") and "s3cret" not in location
        assert isinstance(store, NotifyingStore)
        listener = store.listen(connect_timeout=3)
        try:
            store.append(CASE, 0, [note("announced")])
            heard: list[str] = []
            deadline = time.monotonic() + 60
            while CASE not in heard and time.monotonic() < deadline:
                heard += listener.wait(0.2)
            assert CASE in heard
        finally:
            listener.close()


def test_a_wrapper_that_passes_attributes_through_has_what_it_wraps(tmp_path: Path) -> None:
    """Test doubles that wrap a store (``__getattr__``) keep its abilities, and only those."""

    class Wrapper:
        def __init__(self, store: EventStore) -> None:
            self._store = store

        def __getattr__(self, name: str) -> object:
            return getattr(self._store, name)

    assert declared(Wrapper(MemoryEventStore())) == {"SnapshotStore"}
    directory = DirectoryEventStore(case_dir(tmp_path / "case"))
    assert declared(Wrapper(directory)) == {"DirectoryStore"}
