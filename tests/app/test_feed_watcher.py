"""The feed's watcher thread: callbacks for batches, rewrites and outages, a callback that
raises, and a stop that is prompt and leaves no thread or LISTEN connection behind.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from casefile.app.feed import ChangeFeed, HistoryRewritten
from casefile.domain.events import Event
from casefile.errors import StoreError
from casefile.store.casedir import EVENTS_FILE
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from tests.store.pg import PostgresServer

from .conftest import feed_threads
from .feeds import (
    CASE,
    SLACK,
    Collector,
    FlakyStore,
    execute,
    listener_backends,
    make_case_dir,
    note,
    wait_until,
)


def test_directory_events_file_replaced_is_reported_to_the_watcher(tmp_path: Path) -> None:
    directory = tmp_path / "case"
    make_case_dir(directory, ["a", "b"])
    other = make_case_dir(tmp_path / "other", ["p", "q", "r"])
    store = DirectoryEventStore(directory)
    got = Collector()
    feed = ChangeFeed(store, CASE, poll_interval=0.1)

    def on_rewrite(rewrite: HistoryRewritten) -> None:
        got.on_rewrite(rewrite)
        feed.resync()

    with feed.watch(got.on_events, got.on_error, on_rewrite):
        assert wait_until(lambda: got.seqs() == [1, 2])
        # Without its head file (an older export), so no read can pair one history's head
        # with the other's events while the history is swapped underneath the watcher.
        (directory / "events.head").unlink()
        os.replace(tmp_path / "other" / EVENTS_FILE, directory / EVENTS_FILE)
        assert wait_until(lambda: len(got.events) == 5)
    assert len(got.rewrites) == 1 and got.rewrites[0].seq == 2
    assert [e.hash for e in got.events[2:]] == [e.hash for e in other]
    assert got.errors == []


def test_watcher_reports_an_outage_once_and_carries_on_after_it() -> None:
    store = FlakyStore()
    store.append(CASE, 0, [note("before")])
    got = Collector()
    feed = ChangeFeed(
        store, CASE, poll_interval=0.05, safety_interval=0.1, listener=None,
        on_notice=got.on_notice,
    )  # fmt: skip
    with got.watcher(feed) as watcher:
        assert wait_until(lambda: got.has(1))
        store.broken = True
        store.append(CASE, 1, [note("during")])
        assert wait_until(lambda: bool(got.errors))
        time.sleep(0.6)  # several failed looks
        store.broken = False
        assert wait_until(lambda: got.has(2))
        assert watcher.running
    assert len(got.errors) == 1 and isinstance(got.errors[0], StoreError)
    assert "s3cret" not in str(got.errors[0])
    assert any("again" in n for n in got.notices)


@pytest.mark.postgres
def test_database_gone_reaches_on_error_as_a_store_error(
    notify_url: str, postgres_server: PostgresServer
) -> None:
    got = Collector()
    with SqlEventStore(notify_url) as store:
        store.append(CASE, 0, [note("opened")])
        feed = ChangeFeed(store, CASE, safety_interval=0.3, on_notice=got.on_notice)
        with got.watcher(feed) as watcher:
            assert wait_until(lambda: got.has(1))
            name = notify_url.rsplit("/", 1)[1]
            execute(postgres_server.url, f'DROP DATABASE "{name}" WITH (FORCE)')
            assert wait_until(lambda: bool(got.errors))
            assert watcher.running  # it keeps trying; the database may come back
    assert all(isinstance(error, StoreError) for error in got.errors)
    assert len(got.errors) == 1
    assert any("LISTEN" in n for n in got.notices)


def test_a_callback_that_raises_ends_the_watcher() -> None:
    store = MemoryEventStore()
    store.append(CASE, 0, [note("x")])

    def on_events(_batch: list[Event]) -> None:
        raise RuntimeError("the screen is gone")

    feed = ChangeFeed(store, CASE, poll_interval=0.05)
    watcher = feed.watch(on_events).start()
    assert wait_until(lambda: not watcher.running)
    assert isinstance(watcher.exception, RuntimeError)


@pytest.mark.parametrize(
    "backend",
    ["sqlite", "memory", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def test_stop_is_prompt_and_leaves_no_thread_or_connection(
    backend: str, request: pytest.FixtureRequest
) -> None:
    url = (
        ""
        if backend == "memory"
        else str(request.getfixturevalue("sqlite_url" if backend == "sqlite" else "notify_url"))
    )
    store: Any = MemoryEventStore() if backend == "memory" else SqlEventStore(url)
    try:
        store.append(CASE, 0, [note("x")])
        got = Collector()
        with ChangeFeed(store, CASE, safety_interval=60) as feed:
            watcher = got.watcher(feed).start()
            assert wait_until(lambda: got.has(1))
            if backend == "postgres":
                assert len(listener_backends(url)) == 1
            assert feed_threads()
            started = time.monotonic()
            assert watcher.stop(timeout=2)
            assert time.monotonic() - started < SLACK / 4  # not the whole timeout
        assert not watcher.running and feed_threads() == []
        if backend == "postgres":
            assert wait_until(lambda: listener_backends(url) == [])
    finally:
        store.close()
