"""Writer processes for the concurrency and crash tests (spawned, so kept importable)."""

from __future__ import annotations

import random
import time
from typing import Any

from casefile.domain.events import NewEvent
from casefile.errors import ConcurrencyError
from casefile.store.sql import SqlEventStore


def append_with_retry(store: SqlEventStore, case_id: str, new: NewEvent) -> int:
    """Re-read the head and retry until the append wins; return how many attempts lost."""
    lost = 0
    while True:
        seq, _ = store.head(case_id)
        try:
            store.append(case_id, seq, [new])
            return lost
        except ConcurrencyError:
            lost += 1
            # Jittered backoff, as any real retry loop has: without it eight writers on two
            # cores spend most of their time waking each other up to lose again.
            time.sleep(random.uniform(0, 0.0005) * min(lost, 8))


def append_many(url: str, case_id: str, worker: int, count: int) -> None:
    store = SqlEventStore(url)
    try:
        for n in range(count):
            append_with_retry(store, case_id, NewEvent("note.added", {"text": f"w{worker} #{n}"}))
    finally:
        store.close()


def append_forever(url: str, case_id: str) -> None:
    """Append until killed; each event carries a payload big enough to span pages."""
    store = SqlEventStore(url)
    n = 0
    while True:
        text = f"#{n} " + "x" * (2000 + n % 5000)
        append_with_retry(store, case_id, NewEvent("note.added", {"text": text}))
        n += 1
        if n % 500 == 0:
            time.sleep(0)


def append_to_directory(directory: str, worker: int, count: int) -> None:
    """Append ``count`` notes to a case directory, each through a freshly read store half the
    time (as separate CLI runs do) and through a long-lived one the other half."""
    from casefile.store.directory import DirectoryEventStore

    kept = DirectoryEventStore(directory)
    try:
        for n in range(count):
            store = kept if n % 2 else DirectoryEventStore(directory)
            new = NewEvent("note.added", {"text": f"w{worker} #{n}"})
            lost = 0
            while True:
                seq, _ = store.head(store.case_id)
                try:
                    store.append(store.case_id, seq, [new])
                    break
                except ConcurrencyError:
                    lost += 1
                    time.sleep(random.uniform(0, 0.002) * min(lost, 8))
    finally:
        kept.close()


def open_at_once(url: str, barrier: Any) -> None:
    """Open the store at the same moment as the other processes waiting on ``barrier``."""
    barrier.wait(timeout=120)
    SqlEventStore(url).close()
