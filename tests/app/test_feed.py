"""The change feed: every new event once, in order, without a gap, and nothing on top of a
rewritten history.

Subscriber processes follow SQLite, PostgreSQL and case directories while writer processes
race; a rewritten history, a batch broken mid-way, a wrong start position, a store that fails,
stop and Ctrl-C are each checked through the iterator (:meth:`ChangeFeed.batches`) and
:meth:`ChangeFeed.poll`. Every wait is generous; all traffic stays on loopback.
"""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from casefile.app.feed import ChangeFeed, HistoryRewritten
from casefile.app.interrupts import StopOnInterrupt
from casefile.domain.events import Event
from casefile.errors import IntegrityError, StoreError
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from tests.signals import default_signals, python_ctrl_c
from tests.store.workers import append_many, append_to_directory

from .feeds import (
    APPENDS_EACH,
    CASE,
    SLACK,
    WRITERS,
    FlakyStore,
    check_delivery,
    execute,
    follow_to_file,
    listener_backends,
    make_case_dir,
    note,
    read_batches,
    wait_until,
)


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


# -- errors ------------------------------------------------------------------------------------


def test_a_raw_store_failure_is_raised_from_the_iterator_as_a_store_error() -> None:
    store = FlakyStore()
    store.broken = True
    feed = ChangeFeed(store, CASE, listener=None)
    with pytest.raises(StoreError) as caught:
        next(iter(feed.batches(timeout=SLACK)))
    assert isinstance(caught.value.__cause__, OSError)
    assert "cannot read case" in str(caught.value) and "s3cret" not in str(caught.value)


# -- stopping ----------------------------------------------------------------------------------


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
