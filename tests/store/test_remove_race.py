"""Removing a case never takes an artifact another case is coming to refer to (issue 23, R3-M5).

A blob is shared by content. A writer puts its blob (already there: another case's, nothing
inserted) and appends an event referring to it a moment later; a removal of that other case in
between used to delete the blob, and the writer's case then failed ``verify``. Each test steps
both sides deterministically, on SQLite and a real PostgreSQL; the last one races processes.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from casefile.domain.events import NewEvent
from casefile.errors import StoreError
from casefile.store.sql import SqlEventStore
from casefile.store.verify import referenced_artifacts, verify_stored_case

from .workers import churn, probe_ran

OUTPUT = b"GPU0\tX\tNV12\nGPU1\tNV12\tX\n"
DEADLINE_S = 60


@pytest.fixture
def two(sql_url: str) -> Iterator[tuple[SqlEventStore, SqlEventStore]]:
    """Two stores on one database (two connections, as two processes would have): the first
    holds case ``old``, whose run's output is :data:`OUTPUT`; the second has opened ``new``."""
    remover, writer = SqlEventStore(sql_url), SqlEventStore(sql_url)
    try:
        remover.append("old", 0, [NewEvent("case.opened", {"title": "old"})])
        remover.append("old", 1, [probe_ran(remover.put_artifact(OUTPUT))])
        writer.append("new", 0, [NewEvent("case.opened", {"title": "new"})])
        yield remover, writer
    finally:
        remover.close()
        writer.close()


def test_a_blob_removed_between_put_and_append_is_put_back(
    two: tuple[SqlEventStore, SqlEventStore],
) -> None:
    remover, writer = two
    digest = writer.put_artifact(OUTPUT)  # already there: nothing inserted
    assert remover.remove_case("old").artifacts_removed == 1  # nobody else refers to it yet
    writer.append("new", 1, [probe_ran(digest)])
    report = verify_stored_case(writer, "new")
    assert report.ok, report.message
    assert writer.get_artifact(digest) == OUTPUT


def test_an_append_refers_only_to_artifacts_that_are_there(
    two: tuple[SqlEventStore, SqlEventStore],
) -> None:
    _, writer = two
    with pytest.raises(StoreError, match=r"artifact [0-9a-f]{64} is not in the database"):
        writer.append("new", 1, [probe_ran("ab" * 32)])
    assert writer.head("new")[0] == 1  # nothing appended
    assert verify_stored_case(writer, "new").ok


def test_a_removal_waits_for_an_append_that_claimed_the_blob(
    two: tuple[SqlEventStore, SqlEventStore],
    sql_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The append is stopped just before its rows go in; the removal runs meanwhile."""
    remover, writer = two
    digest = writer.put_artifact(OUTPUT)
    inserting, go_on = threading.Event(), threading.Event()
    insert_rows = writer._insert_rows

    def held(cursor: Any, values: list[Any]) -> None:
        inserting.set()
        go_on.wait(DEADLINE_S)
        insert_rows(cursor, values)

    monkeypatch.setattr(writer, "_insert_rows", held)
    appending = Worker(lambda: writer.append("new", 1, [probe_ran(digest)]))
    assert inserting.wait(DEADLINE_S)
    removing = Worker(lambda: remover.remove_case("old"))
    # The removal gets as far as it can: done, or waiting for the append's claim.
    waits_for_lock(sql_url, removing)
    go_on.set()
    appending.result()
    removed = removing.result()
    assert (removed.artifacts_removed, removed.artifacts_kept) == (0, 1)
    report = verify_stored_case(writer, "new")
    assert report.ok, report.message


@pytest.mark.parametrize("workers", [4])
def test_processes_removing_and_recording_leave_every_case_whole(
    sql_url: str, workers: int
) -> None:
    spawn = multiprocessing.get_context("spawn")
    processes = [
        spawn.Process(target=churn, args=(sql_url, worker, 25, 1000 + worker))
        for worker in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=300)
    assert [p.exitcode for p in processes] == [0] * workers
    with SqlEventStore(sql_url) as store:
        assert len(store.case_ids()) == workers  # each worker's last case
        for case_id in store.case_ids():
            report = verify_stored_case(store, case_id)
            assert report.ok, report.message
        referenced = {
            digest
            for case_id in store.case_ids()
            for event in store.load(case_id)
            for digest in referenced_artifacts(event)
        }
        with store.engine.connect() as conn:
            stored = {str(d) for (d,) in conn.execute(text("SELECT digest FROM artifacts"))}
        assert stored == referenced  # and nothing is left that no case refers to


# -- helpers ----------------------------------------------------------------------------------


class Worker:
    """A call on a thread of its own, its result or exception handed back by :meth:`result`."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self._outcome: list[Any] = []
        self._thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self._thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self._outcome.append((True, call()))
        except BaseException as error:  # handed to the test thread
            self._outcome.append((False, error))

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> Any:
        self._thread.join(DEADLINE_S)
        assert self._outcome, "the call did not finish"
        ok, value = self._outcome[0]
        if not ok:
            raise value
        return value


def waits_for_lock(url: str, worker: Worker) -> None:
    """Return once ``worker`` has finished or (PostgreSQL) waits on a row lock. SQLite shows
    no waiters: there the removal waits on the database's write lock, or has finished."""
    if not url.startswith("postgresql"):
        deadline = time.monotonic() + 1.0
        while not worker.done and time.monotonic() < deadline:
            time.sleep(0.01)
        return
    engine = create_engine(url)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not worker.done and time.monotonic() < deadline:
            with engine.connect() as conn:
                waiting = conn.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'"
                    )
                ).scalar_one()
            if waiting:
                return
            time.sleep(0.02)
        assert worker.done, "the removal neither finished nor waited on a lock"
    finally:
        engine.dispose()
