"""The change feed: every new event once, in order, without a gap, whatever wakes it.

Subscribers in other processes follow SQLite, PostgreSQL (LISTEN/NOTIFY) and case directories
while writer processes race; a missed notification, a lost LISTEN connection, a rewritten
history, a LISTEN that cannot work, a database that goes away, Ctrl-C and stop() are each
checked. Every wait is generous (5-10x what it takes here); all traffic stays on loopback.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from psycopg.conninfo import conninfo_to_dict
from sqlalchemy import create_engine, text

from casefile.app.feed import ChangeFeed, FeedWatcher, HistoryRewritten
from casefile.app.interrupts import StopOnInterrupt
from casefile.domain.events import GENESIS_HASH, Event, NewEvent
from casefile.errors import CasefileError, IntegrityError, StoreError
from casefile.store.casedir import EVENTS_FILE, export_case
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.sql_listen import (
    NOTIFY_CHANNEL,
    ListenUnavailable,
    libpq_conninfo,
    mask_secrets,
    open_listener,
)
from tests.signals import default_signals, python_ctrl_c
from tests.store.pg import PostgresServer
from tests.store.workers import append_many, append_to_directory

from .conftest import feed_threads

CASE = "feedcase"
WRITERS = 4
APPENDS_EACH = 50
SLACK = 60.0  # seconds: any wait for something that takes well under a second here (polled)


def note(text_: str) -> NewEvent:
    return NewEvent("note.added", {"text": text_})


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], timeout: float = SLACK) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class Collector:
    """Callbacks for a watcher that record what arrived, and when."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.batches = 0
        self.arrived: dict[int, float] = {}
        self.errors: list[CasefileError] = []
        self.rewrites: list[HistoryRewritten] = []
        self.notices: list[str] = []
        self._lock = threading.Lock()

    def on_events(self, batch: list[Event]) -> None:
        now = time.monotonic()
        with self._lock:
            self.batches += 1
            self.events.extend(batch)
            for event in batch:
                self.arrived[event.seq] = now

    def on_error(self, error: CasefileError) -> None:
        with self._lock:
            self.errors.append(error)

    def on_rewrite(self, rewrite: HistoryRewritten) -> None:
        with self._lock:
            self.rewrites.append(rewrite)

    def on_notice(self, message: str) -> None:
        with self._lock:
            self.notices.append(message)

    def seqs(self) -> list[int]:
        with self._lock:
            return [e.seq for e in self.events]

    def has(self, seq: int) -> bool:
        with self._lock:
            return seq in self.arrived

    def watcher(self, feed: ChangeFeed) -> FeedWatcher:
        return feed.watch(self.on_events, self.on_error, self.on_rewrite)


def listener_backends(url: str) -> list[int]:
    """Server pids of change-feed LISTEN connections to this database."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = 'casefile-feed' "
                    "AND datname = current_database()"
                )
            ).all()
        return [int(pid) for (pid,) in rows]
    finally:
        engine.dispose()


def execute(url: str, *statements: str) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for statement in statements:
                conn.exec_driver_sql(statement)
    finally:
        engine.dispose()


# -- subscriber processes (spawned, so module-level) -------------------------------------------


def follow_to_file(kind: str, where: str, case_id: str, out: str, want: int) -> None:
    """Follow a case in a fresh process; write each batch as JSON lines until ``want`` events."""
    store: Any = SqlEventStore(where) if kind == "sql" else DirectoryEventStore(where)
    feed = ChangeFeed(store, case_id)
    try:
        with open(out, "w") as sink:
            for batch in feed.batches(timeout=180):
                if isinstance(batch, HistoryRewritten):
                    sink.write(json.dumps({"rewrite": batch.message}) + "\n")
                    return
                rows = [[e.seq, e.hash, e.prev_hash] for e in batch]
                sink.write(json.dumps({"batch": rows}) + "\n")
                sink.flush()
                if batch[-1].seq >= want:
                    return
    finally:
        store.close()


def read_batches(path: Path) -> list[list[list[Any]]]:
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert all("batch" in line for line in lines), lines
    return [line["batch"] for line in lines]


def check_delivery(batches: list[list[list[Any]]], stored: list[Event]) -> None:
    delivered = [row for batch in batches for row in batch]
    assert [row[0] for row in delivered] == list(range(1, len(stored) + 1))  # once, in order
    assert [row[1] for row in delivered] == [e.hash for e in stored]  # what is stored
    previous = GENESIS_HASH
    for _seq, digest, prev_hash in delivered:
        assert prev_hash == previous
        previous = digest
    assert len(batches) > 1, "everything came in one catch-up batch: nothing was followed live"


@pytest.mark.parametrize(
    "backend",
    ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def test_subscriber_process_gets_every_event_of_racing_writers_once_in_order(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = str(request.getfixturevalue("sqlite_url" if backend == "sqlite" else "notify_url"))
    total = 1 + WRITERS * APPENDS_EACH
    with SqlEventStore(url) as store:
        store.append(CASE, 0, [note("opened")])
    spawn = multiprocessing.get_context("spawn")
    out = tmp_path / "received.jsonl"
    subscriber = spawn.Process(target=follow_to_file, args=("sql", url, CASE, str(out), total))
    subscriber.start()
    try:
        assert wait_until(lambda: bool(read_batches(out)), 60), "the subscriber never started"
        writers = [
            spawn.Process(target=append_many, args=(url, CASE, worker, APPENDS_EACH))
            for worker in range(WRITERS)
        ]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(timeout=180)
        assert [w.exitcode for w in writers] == [0] * WRITERS
        subscriber.join(timeout=60)
        assert subscriber.exitcode == 0
    finally:
        if subscriber.is_alive():
            subscriber.kill()
            subscriber.join()
    with SqlEventStore(url) as store:
        stored = store.load(CASE)
    assert len(stored) == total
    check_delivery(read_batches(out), stored)


def make_case_dir(directory: Path, texts: list[str], case_id: str = CASE) -> list[Event]:
    memory = MemoryEventStore()
    for n, text_ in enumerate(texts):
        memory.append(case_id, n, [note(text_)])
    events = memory.load(case_id)
    export_case(events, {}, directory)
    return events


def test_directory_appended_by_other_processes_is_delivered(tmp_path: Path) -> None:
    directory = tmp_path / "case"
    make_case_dir(directory, ["opened"])
    writers, each = 2, 10
    total = 1 + writers * each
    spawn = multiprocessing.get_context("spawn")
    out = tmp_path / "received.jsonl"
    subscriber = spawn.Process(
        target=follow_to_file, args=("dir", str(directory), CASE, str(out), total)
    )
    subscriber.start()
    try:
        assert wait_until(lambda: bool(read_batches(out)), 60), "the subscriber never started"
        procs = [
            spawn.Process(target=append_to_directory, args=(str(directory), worker, each))
            for worker in range(writers)
        ]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(timeout=180)
        assert [p.exitcode for p in procs] == [0] * writers
        subscriber.join(timeout=60)
        assert subscriber.exitcode == 0
    finally:
        if subscriber.is_alive():
            subscriber.kill()
            subscriber.join()
    stored = DirectoryEventStore(directory).load(CASE)
    assert len(stored) == total
    check_delivery(read_batches(out), stored)


# -- PostgreSQL: notifications, and what happens without them --------------------------------


@pytest.mark.postgres
def test_postgres_event_whose_notification_was_missed_arrives_by_the_safety_net(
    notify_url: str,
) -> None:
    got = Collector()
    with SqlEventStore(notify_url) as store, SqlEventStore(notify_url) as writer:
        store.append(CASE, 0, [note("opened")])
        feed = ChangeFeed(store, CASE, safety_interval=1.0, on_notice=got.on_notice)
        probe = open_listener(notify_url)  # to show that nothing is notified meanwhile
        try:
            with got.watcher(feed):
                assert wait_until(lambda: got.has(1))
                execute(notify_url, "ALTER TABLE events DISABLE TRIGGER USER")
                try:
                    writer.append(CASE, 1, [note("unannounced")])
                    assert probe.wait(1.5) == [], "the append was notified after all"
                    assert wait_until(lambda: got.has(2)), "the safety-net look never came"
                finally:
                    execute(notify_url, "ALTER TABLE events ENABLE TRIGGER USER")
                writer.append(CASE, 2, [note("announced")])
                assert probe.wait(SLACK) == [CASE]
                assert wait_until(lambda: got.has(3))
        finally:
            probe.close()
    assert got.seqs() == [1, 2, 3]
    assert got.notices == [] and got.errors == []  # LISTEN worked throughout


@pytest.mark.postgres
def test_postgres_lost_listen_connection_falls_back_to_polling_and_listens_again(
    notify_url: str,
) -> None:
    got = Collector()
    with SqlEventStore(notify_url) as store, SqlEventStore(notify_url) as writer:
        store.append(CASE, 0, [note("opened")])
        # A safety net far away: whatever arrives quickly came by notification or by polling.
        feed = ChangeFeed(
            store,
            CASE,
            poll_interval=0.2,
            safety_interval=60,
            relisten_interval=0.5,
            on_notice=got.on_notice,
        )
        with got.watcher(feed):
            assert wait_until(lambda: got.has(1))
            backends = listener_backends(notify_url)
            assert len(backends) == 1
            execute(notify_url, f"SELECT pg_terminate_backend({backends[0]})")
            writer.append(CASE, 1, [note("while the listener was down")])
            assert wait_until(lambda: got.has(2)), "lost the event with the listener"
            assert wait_until(lambda: any("restored" in n for n in got.notices))
            assert wait_until(lambda: len(listener_backends(notify_url)) == 1)
            sent = time.monotonic()
            writer.append(CASE, 2, [note("after LISTEN was restored")])
            assert wait_until(lambda: got.has(3), 5)
            assert got.arrived[3] - sent < 5  # notified: the safety net is a minute away
    assert got.seqs() == [1, 2, 3]
    lost = [n for n in got.notices if "LISTEN connection lost" in n]
    assert len(lost) == 1 and "polling every 0.2 s" in lost[0]
    assert len(got.notices) == 2  # lost once, restored once


@pytest.mark.parametrize(
    "backend",
    ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def test_delivery_latency(backend: str, request: pytest.FixtureRequest) -> None:
    """SQLite: within a poll interval or so. PostgreSQL: by notification, well before the
    (here one-minute) safety net."""
    url = str(request.getfixturevalue("sqlite_url" if backend == "sqlite" else "notify_url"))
    got = Collector()
    latencies: list[float] = []
    with SqlEventStore(url) as store, SqlEventStore(url) as writer:
        feed = ChangeFeed(store, CASE, poll_interval=0.5, safety_interval=60)
        with got.watcher(feed):
            for seq in range(1, 11):
                time.sleep(0.13)
                writer.append(CASE, seq - 1, [note(f"#{seq}")])
                sent = time.monotonic()
                assert wait_until(lambda s=seq: got.has(s)), f"seq {seq} never arrived"
                latencies.append(got.arrived[seq] - sent)
    print(
        f"\n{backend} delivery latency: median {sorted(latencies)[5] * 1000:.0f} ms, "
        f"max {max(latencies) * 1000:.0f} ms"
    )
    assert got.seqs() == list(range(1, 11))
    assert max(latencies) < (2.5 if backend == "sqlite" else 2.0)


# -- rewritten history -------------------------------------------------------------------------


def test_sqlite_history_rewritten_is_reported_and_resync_follows_the_new_one(
    sqlite_url: str,
) -> None:
    with SqlEventStore(sqlite_url) as store, SqlEventStore(sqlite_url) as other:
        for seq, text_ in enumerate(["a", "b", "c"]):
            store.append(CASE, seq, [note(text_)])
        replacement = MemoryEventStore()
        for seq, text_ in enumerate(["x", "y", "z", "w"]):
            replacement.append(CASE, seq, [note(text_)])
        feed = ChangeFeed(store, CASE, poll_interval=0.1)
        items: list[Any] = []
        for item in feed.batches(timeout=SLACK):
            items.append(item)
            if len(items) == 1:  # the case as it was; now another process swaps the history
                execute(sqlite_url, f"DELETE FROM events WHERE case_id = '{CASE}'")
                other.import_case(replacement.load(CASE), {})
            elif isinstance(item, HistoryRewritten):
                feed.resync()  # from the beginning: the subscriber rebuilds
            else:
                break
    first, rewrite, fresh = items
    assert [e.payload["text"] for e in first] == ["a", "b", "c"]
    assert isinstance(rewrite, HistoryRewritten)
    assert (rewrite.seq, rewrite.delivered_hash) == (3, first[-1].hash)
    assert "rewritten" in rewrite.message
    assert [e.payload["text"] for e in fresh] == ["x", "y", "z", "w"]
    assert feed.position == (4, fresh[-1].hash)


def test_iteration_ends_at_a_rewrite_the_subscriber_does_not_resync() -> None:
    store = MemoryEventStore()
    for seq in range(2):
        store.append(CASE, seq, [note(f"#{seq}")])
    feed = ChangeFeed(store, CASE, 2, "f" * 64, poll_interval=0.05)  # a hash never stored
    started = time.monotonic()
    items = list(feed.batches(timeout=SLACK))
    assert time.monotonic() - started < SLACK / 4  # not the whole timeout
    assert len(items) == 1 and isinstance(items[0], HistoryRewritten)
    assert items[0].seq == 2 and feed.rewritten == items[0]
    store.append(CASE, 2, [note("more")])
    assert feed.poll() == []  # halted: nothing delivered on top of the wrong history
    assert isinstance(items[0].error(), IntegrityError)


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


def test_a_batch_broken_mid_way_delivers_up_to_the_break_then_reports_it() -> None:
    store = MemoryEventStore()
    for seq in range(4):
        store.append(CASE, seq, [note(f"#{seq}")])
    events = store.load(CASE)
    forged = Event(**{**events[2].to_dict(), "prev_hash": "e" * 64})
    store._streams[CASE] = [events[0], events[1], forged, events[3]]  # tampered in place
    feed = ChangeFeed(store, CASE)
    assert [e.seq for e in feed.poll()] == [1, 2]
    rewrite = feed.poll()
    assert isinstance(rewrite, HistoryRewritten) and rewrite.seq == 2


def test_a_wrong_start_position_is_a_rewrite_and_a_right_one_gets_only_news() -> None:
    store = MemoryEventStore()
    for seq in range(3):
        store.append(CASE, seq, [note(f"#{seq}")])
    second = store.load(CASE)[1]
    assert isinstance(ChangeFeed(store, CASE, 2, "0" * 64).poll(), HistoryRewritten)
    assert isinstance(ChangeFeed(store, CASE, 7, second.hash).poll(), HistoryRewritten)
    feed = ChangeFeed(store, CASE, 2, second.hash)
    assert [e.seq for e in feed.poll()] == [3]
    assert feed.poll() == []
    store.append(CASE, 3, [note("4")])
    store.append(CASE, 4, [note("5")])
    assert [e.seq for e in feed.poll()] == [4, 5]  # coalesced: one look, both events


# -- when LISTEN cannot work -------------------------------------------------------------------


def test_listen_unavailable_is_said_once_and_polling_delivers(sqlite_url: str) -> None:
    port = free_loopback_port()  # nothing listens there: connection refused, on loopback
    dead = f"postgresql+psycopg://feeder:s3cret-pw@127.0.0.1:{port}/casefile"
    attempts: list[float] = []

    def listener() -> Any:
        attempts.append(time.monotonic())
        return open_listener(dead)

    got = Collector()
    with SqlEventStore(sqlite_url) as store, SqlEventStore(sqlite_url) as writer:
        feed = ChangeFeed(
            store,
            CASE,
            poll_interval=0.2,
            relisten_interval=0.1,
            listener=listener,
            on_notice=got.on_notice,
        )
        with got.watcher(feed):
            for seq in range(1, 4):
                writer.append(CASE, seq - 1, [note(f"#{seq}")])
                assert wait_until(lambda s=seq: got.has(s))
            assert wait_until(lambda: len(attempts) >= 4), "LISTEN was never retried"
    assert got.seqs() == [1, 2, 3]
    assert len(got.notices) == 1, got.notices
    (notice,) = got.notices
    assert "LISTEN unavailable" in notice and "polling every 0.2 s" in notice
    assert f"127.0.0.1:{port}" in notice and "***" in notice
    assert "s3cret" not in notice


def test_a_failing_listener_factory_means_polling_not_failure() -> None:
    store = MemoryEventStore()
    calls: list[int] = []

    def refuse() -> Any:
        calls.append(1)
        raise ListenUnavailable("cannot LISTEN on postgresql://pool/db: pooler in between")

    got = Collector()
    feed = ChangeFeed(
        store, CASE, poll_interval=0.05, relisten_interval=0.05, listener=refuse,
        on_notice=got.on_notice,
    )  # fmt: skip
    with got.watcher(feed):
        store.append(CASE, 0, [note("x")])
        assert wait_until(lambda: got.has(1))
        assert wait_until(lambda: len(calls) >= 3)
    assert len(got.notices) == 1 and "pooler in between" in got.notices[0]
    assert got.errors == []


# -- errors ------------------------------------------------------------------------------------


class FlakyStore(MemoryEventStore):
    """A memory store whose reads fail with a raw (non-casefile) error while ``broken``."""

    url = "postgresql+psycopg://feeder:s3cret-pw@127.0.0.1:9/casefile"
    broken = False

    def change_token(self, case_id: str) -> object:
        if self.broken:
            raise OSError("connection reset talking to feeder:s3cret-pw@127.0.0.1:9")
        return super().change_token(case_id)

    def load(self, case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        if self.broken:
            raise OSError("connection reset talking to feeder:s3cret-pw@127.0.0.1:9")
        return super().load(case_id, upto, after=after)


def test_a_raw_store_failure_is_raised_from_the_iterator_as_a_store_error() -> None:
    store = FlakyStore()
    store.broken = True
    feed = ChangeFeed(store, CASE, listener=None)
    with pytest.raises(StoreError) as caught:
        next(iter(feed.batches(timeout=SLACK)))
    assert isinstance(caught.value.__cause__, OSError)
    assert "cannot read case" in str(caught.value) and "s3cret" not in str(caught.value)


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


# -- stopping ----------------------------------------------------------------------------------


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


def test_iteration_stops_promptly_when_stop_is_set(sqlite_url: str) -> None:
    stop = threading.Event()
    with SqlEventStore(sqlite_url) as store:
        feed = ChangeFeed(store, CASE, poll_interval=5)
        timer = threading.Timer(0.3, stop.set)
        timer.start()
        started = time.monotonic()
        assert list(feed.batches(stop=stop, timeout=60)) == []
        elapsed = time.monotonic() - started
        timer.join()
    assert 0.25 < elapsed < 2


_CTRL_C_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from casefile.app.feed import ChangeFeed
    from casefile.store.sql import SqlEventStore

    store = SqlEventStore(sys.argv[1])
    feed = ChangeFeed(store, sys.argv[2])
    try:
        for batch in feed.batches():
            print("following", batch[-1].seq, flush=True)
    except KeyboardInterrupt:
        # Still inside the handler, the traceback keeps the feed's frames alive: a listener
        # that was not closed explicitly would still be connected here.
        left = -1
        if store.dialect == "postgresql":
            from sqlalchemy import text
            for _ in range(100):
                with store.engine.connect() as conn:
                    left = conn.execute(text(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name ="
                        " 'casefile-feed' AND datname = current_database()"
                    )).scalar_one()
                if left == 0:
                    break
                time.sleep(0.05)
        print("interrupted", left, flush=True)
    finally:
        store.close()
    """
)


@pytest.mark.parametrize(
    "backend",
    ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def test_ctrl_c_ends_following_cleanly_and_closes_the_listener(
    backend: str, request: pytest.FixtureRequest
) -> None:
    url = str(request.getfixturevalue("sqlite_url" if backend == "sqlite" else "notify_url"))
    with SqlEventStore(url) as store:
        store.append(CASE, 0, [note("x")])
    proc = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_SCRIPT, url, CASE],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "following 1"
        if backend == "postgres":
            assert len(listener_backends(url)) == 1
        time.sleep(0.3)  # well inside the wait
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=SLACK)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out.strip() == ("interrupted 0" if backend == "postgres" else "interrupted -1")
    assert proc.returncode == 0 and "Traceback" not in err, err


class CtrlCMidRead:
    """A store whose next change-token read is hit by Ctrl-C half-way through, as a loaded
    machine makes likely: it counts the reads that began and the ones that ran to their end
    (a real store's read holds a pool's lock, which an exception raised inside it can leave
    held, and closing the store then waits for it forever)."""

    def __init__(self, store: MemoryEventStore) -> None:
        self._store = store
        self.began = 0
        self.finished = 0
        self.sent = False

    def change_token(self, case_id: str) -> object:
        self.began += 1
        if not self.sent:
            self.sent = True
            signal.raise_signal(signal.SIGINT)  # delivered to this, the main, thread
            for _ in range(1000):  # bytecodes at which Python runs signal handlers
                pass
        token = self._store.change_token(case_id)
        self.finished += 1
        return token

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class CountedListener:
    """A wake-up source that never fires, and says whether it was closed."""

    def __init__(self) -> None:
        self.closed = False

    def wait(self, timeout: float) -> list[str]:
        time.sleep(min(timeout, 0.01))
        raise StoreError("LISTEN connection lost")  # so the feed polls the change token

    def close(self) -> None:
        self.closed = True


def test_ctrl_c_during_a_store_read_lets_the_read_finish_then_ends_the_iteration() -> None:
    """SIGINT never raises inside the store: the read it lands in runs to its end, the loop
    stops, the listener is closed, and only then does ``KeyboardInterrupt`` leave."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    memory = MemoryEventStore()
    memory.append(CASE, 0, [note("x")])
    store = CtrlCMidRead(memory)
    listener = CountedListener()
    feed = ChangeFeed(
        store,  # type: ignore[arg-type]
        CASE,
        poll_interval=0.01,
        relisten_interval=3600,
        listener=lambda: listener,
        on_notice=lambda _message: None,
    )
    got: list[int] = []
    with python_ctrl_c():
        with pytest.raises(KeyboardInterrupt):
            for batch in feed.batches(timeout=SLACK):
                assert isinstance(batch, list)
                got += [e.seq for e in batch]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back
    assert store.sent, "the feed never read the change token"
    assert (store.began, store.finished) == (1, 1), "Ctrl-C raised inside the store's read"
    assert got == [1] and listener.closed


class _SetIsALock(threading.Event):
    """An event whose ``set`` a signal handler must never call: ``set`` takes the event's lock,
    which the interrupted main thread may be holding inside that event's ``wait``."""

    def set(self) -> None:
        raise AssertionError("the SIGINT handler took a lock (Event.set)")


def test_the_sigint_handler_takes_no_lock() -> None:
    """A follower once ignored Ctrl-C for good, one run in a few hundred: the handler called
    ``Event.set`` while the main thread held that event's lock in ``wait``, and waited for
    itself. The handler now only sets an attribute, and the loop sees it within a slice."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    also = _SetIsALock()
    with python_ctrl_c(), StopOnInterrupt(also) as interrupt:
        assert interrupt.installed and not interrupt.is_set()
        signal.raise_signal(signal.SIGINT)
        for _ in range(1000):  # bytecodes at which Python runs signal handlers
            pass
        assert interrupt.interrupted and interrupt.is_set()
        assert interrupt.wait(0.01)
    assert not also.is_set()


# -- the LISTEN side on its own ----------------------------------------------------------------


def test_libpq_conninfo_from_a_sqlalchemy_url() -> None:
    url = "postgresql+psycopg://us%40er:p%40ss%3Aw%20rd@127.0.0.1:6543/db?sslmode=disable"
    params = conninfo_to_dict(libpq_conninfo(url))
    assert params["user"] == "us@er" and params["password"] == "p@ss:w rd"
    assert (params["host"], params["port"], params["dbname"]) == ("127.0.0.1", "6543", "db")
    assert params["sslmode"] == "disable" and params["application_name"] == "casefile-feed"
    socket_dir = conninfo_to_dict(libpq_conninfo("postgresql+psycopg://me@/db?host=/run/pg"))
    assert socket_dir["host"] == "/run/pg" and "password" not in socket_dir
    with pytest.raises(StoreError):
        libpq_conninfo("sqlite:///x.db")


def test_mask_secrets_hides_the_password_in_every_form() -> None:
    url = "postgresql+psycopg://u:p%40ss@127.0.0.1/db"
    message = "failed for u:p@ss, p%40ss and host=x password='p@ss' password=other"
    masked = mask_secrets(message, url)
    assert "p@ss" not in masked and "p%40ss" not in masked and "other" not in masked
    assert masked.count("***") == 4


@pytest.mark.postgres
def test_listener_receives_payloads_and_says_when_its_connection_is_lost(
    notify_url: str,
) -> None:
    with open_listener(notify_url) as listener, SqlEventStore(notify_url) as store:
        assert listener.channel == NOTIFY_CHANNEL
        assert listener.wait(0.2) == []
        store.append("one", 0, [note("a")])
        store.append("two", 0, [note("b")])
        received: list[str] = []
        deadline = time.monotonic() + SLACK
        while len(received) < 2 and time.monotonic() < deadline:
            received.extend(listener.wait(0.2))
        assert sorted(received) == ["one", "two"]
        execute(notify_url, f"SELECT pg_terminate_backend({listener.backend_pid})")
        with pytest.raises(ListenUnavailable):
            for _ in range(50):
                listener.wait(0.2)


def test_a_rewrite_of_the_same_length_or_shorter_is_noticed_without_new_events() -> None:
    store = MemoryEventStore()
    for seq in range(3):
        store.append(CASE, seq, [note(f"#{seq}")])
    feed = ChangeFeed(store, CASE)
    assert len(feed.poll()) == 3
    other = MemoryEventStore()
    for seq in range(3):
        other.append(CASE, seq, [note(f"other #{seq}")])
    store._streams[CASE] = other.load(CASE)  # same length, another history
    rewrite = feed.poll()
    assert isinstance(rewrite, HistoryRewritten) and "seq 3 is now" in rewrite.found
    feed.resync(3, other.load(CASE)[2].hash)
    assert feed.poll() == []
    store._streams[CASE] = other.load(CASE)[:2]  # events taken away
    shorter = feed.poll()
    assert isinstance(shorter, HistoryRewritten) and "ends before seq 3" in shorter.found
