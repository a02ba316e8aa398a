"""``EventStore.writing``: a writer may hold a case for one read–decide–append.

Where a store holds (a case directory by its lock, PostgreSQL by an advisory lock, SQLite by a
lock file beside the database), another writer of the case waits until the holder lets go;
everywhere, the holder's own appends (and a hold inside its hold) go through instead of waiting
for itself. A wait is bounded, and a lock path that is not a regular file is refused.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from casefile.domain.events import NewEvent
from casefile.errors import StoreError
from casefile.store.base import EventStore
from casefile.store.sql_writers import writers_lock

from .backends import Backend

CASE = "held"

#: How long the holder keeps the case while another writer tries to take it: long enough for
#: that writer to get there even on a loaded machine, were the hold not keeping it out.
HOLD_S = 0.5


def note(text: str) -> NewEvent:
    return NewEvent("note.added", {"text": text})


def test_the_holder_appends_inside_its_own_hold(store: EventStore) -> None:
    store.append(CASE, 0, [note("first")])
    with store.writing(CASE):
        store.append(CASE, 1, [note("inside")])
        with store.writing(CASE):
            store.append(CASE, 2, [note("nested")])
        store.append(CASE, 3, [note("after the nested hold")])
    store.append(CASE, 4, [note("after the hold")])
    assert [e.payload["text"] for e in store.load(CASE, after=1)] == [
        "inside",
        "nested",
        "after the nested hold",
        "after the hold",
    ]


def test_another_writer_waits_until_the_holder_lets_go(backend: Backend) -> None:
    holder = backend.open()
    holder.append(CASE, 0, [note("first")])  # a directory exists from its first append
    if backend.name == "memory":
        holder.close()
        pytest.skip(f"{backend.name} holds nothing: its writers stay optimistic")
    other = backend.open()
    released = threading.Event()
    entered: list[bool] = []

    def write() -> None:
        with other.writing(CASE):
            entered.append(released.is_set())
            other.append(CASE, other.head(CASE)[0], [note("second")])

    with holder.writing(CASE):
        waiter = threading.Thread(target=write)
        waiter.start()
        time.sleep(HOLD_S)  # the other writer's chance to get in, were it not kept out
        holder.append(CASE, 1, [note("held")])
        released.set()
    waiter.join(60)
    assert not waiter.is_alive()
    assert entered == [True], "the other writer got in while the case was held"
    assert [e.payload["text"] for e in holder.load(CASE)] == ["first", "held", "second"]
    other.close()
    holder.close()


def test_a_sqlite_writer_waits_a_bounded_time_then_says_so_in_one_line(tmp_path: Path) -> None:
    database = str(tmp_path / "cases.db")
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with writers_lock(database):
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(60)
        refused = pytest.raises(StoreError, match=r"another writer has held cases.db-writers.lock")
        with refused, writers_lock(database, wait_s=0.3):
            pass
    finally:
        release.set()
        holder.join(60)
    with writers_lock(database, wait_s=0.3):  # free again
        pass


def test_a_sqlite_lock_path_that_is_a_link_is_refused(tmp_path: Path) -> None:
    database = tmp_path / "cases.db"
    target = tmp_path / "elsewhere"
    target.write_text("")
    Path(f"{database}-writers.lock").symlink_to(target)
    with pytest.raises(StoreError, match="cannot lock"), writers_lock(str(database)):
        pass
