"""Many writer processes, and a writer killed mid-stream, never leave a gap or a torn event."""

from __future__ import annotations

import multiprocessing
import os
import signal

from casefile.domain.events import NewEvent
from casefile.store.sql import SqlEventStore
from casefile.store.verify import verify_stored_case
from tests.waiting import WAIT_S, wait_until

from .workers import append_forever, append_many

WRITERS = 8
APPENDS_EACH = 250


def test_concurrent_writer_processes_lose_and_duplicate_nothing(sql_url: str) -> None:
    SqlEventStore(sql_url).close()  # create the tables once, before the race starts
    spawn = multiprocessing.get_context("spawn")
    writers = [
        spawn.Process(target=append_many, args=(sql_url, "race", worker, APPENDS_EACH))
        for worker in range(WRITERS)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=180)
    assert [w.exitcode for w in writers] == [0] * WRITERS

    with SqlEventStore(sql_url) as store:
        events = store.load("race")
        assert [e.seq for e in events] == list(range(1, WRITERS * APPENDS_EACH + 1))
        texts = sorted(e.payload["text"] for e in events)
        expected = sorted(f"w{w} #{n}" for w in range(WRITERS) for n in range(APPENDS_EACH))
        assert texts == expected
        assert verify_stored_case(store, "race").ok


def test_writer_killed_mid_stream_leaves_a_verifiable_store(sql_url: str) -> None:
    SqlEventStore(sql_url).close()
    spawn = multiprocessing.get_context("spawn")
    writer = spawn.Process(target=append_forever, args=(sql_url, "crash"))
    writer.start()
    with SqlEventStore(sql_url) as store:

        def well_under_way() -> bool:  # mid-stream: a few appends in, appending still
            assert writer.is_alive()
            return store.head("crash")[0] >= 10

        wait_until(well_under_way, what="the writer appended ten events")
        assert writer.pid is not None
        os.kill(writer.pid, signal.SIGKILL)
        writer.join(timeout=WAIT_S)
        assert writer.exitcode == -signal.SIGKILL

    with SqlEventStore(sql_url) as store:
        head, _ = store.head("crash")
        assert head > 1
        events = store.load("crash")
        assert [e.seq for e in events] == list(range(1, head + 1))
        assert store.count_events("crash") == head
        report = verify_stored_case(store, "crash")
        assert report.ok, report.message
        after = store.append("crash", head, [NewEvent("note.added", {"text": "after crash"})])
        assert after[0].seq == head + 1
        assert verify_stored_case(store, "crash").ok
