"""What the change-feed tests share: a collector for a watcher's callbacks, waits, SQL on the
side, and the subscriber process that follows a case into a file.

Every wait is generous (5-10x what it takes here); all traffic stays on loopback.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from casefile.app.feed import ChangeFeed, HistoryRewritten
from casefile.app.feed_watcher import FeedWatcher
from casefile.domain.events import GENESIS_HASH, Event, NewEvent
from casefile.errors import CasefileError
from casefile.store.casedir import export_case
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore

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


def make_case_dir(directory: Path, texts: list[str], case_id: str = CASE) -> list[Event]:
    memory = MemoryEventStore()
    for n, text_ in enumerate(texts):
        memory.append(case_id, n, [note(text_)])
    events = memory.load(case_id)
    export_case(events, {}, directory)
    return events


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
