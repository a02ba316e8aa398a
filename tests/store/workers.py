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


#: The raw outputs every churning worker draws from: few, so that cases share them.
SHARED_OUTPUTS = tuple(f"GPU0 X SYS NODE {n}\n".encode() * 50 for n in range(3))


def probe_ran(digest: str) -> NewEvent:
    """A probe run whose raw output is the artifact ``digest``."""
    payload = {
        "probe": "command",
        "argv": ["nvidia-smi", "topo", "-m"],
        "host": "h",
        "source": "local",
        "stdout_artifact": digest,
    }
    return NewEvent("probe.ran", payload)


def churn(url: str, worker: int, rounds: int, seed: int) -> None:
    """Open a case, record a run of an output shared with the other workers' cases (put, a
    pause, append, as a probe does), check the case before that is whole, and remove it: the
    removals race the other workers' put–append windows. Raises (exit code 1) on a case that
    does not verify."""
    from casefile.store.verify import verify_stored_case

    rng = random.Random(seed)
    store = SqlEventStore(url)
    try:
        previous: str | None = None
        for n in range(rounds):
            case_id = f"w{worker}-{n}"
            store.append(case_id, 0, [NewEvent("case.opened", {"title": case_id})])
            digest = store.put_artifact(SHARED_OUTPUTS[rng.randrange(len(SHARED_OUTPUTS))])
            time.sleep(rng.uniform(0, 0.02))
            store.append(case_id, 1, [probe_ran(digest)])
            if previous is not None:
                report = verify_stored_case(store, previous)
                if not report.ok:
                    raise AssertionError(f"{previous}: {report.message}")
                store.remove_case(previous)
            previous = case_id
    finally:
        store.close()


def upgrade_at_once(url: str, barrier: Any) -> None:
    """Upgrade the database at the same moment as the other processes waiting on ``barrier``."""
    from casefile.store.sql_schema import DatabaseSchema

    barrier.wait(timeout=120)
    with DatabaseSchema(url) as schema:
        schema.upgrade()
