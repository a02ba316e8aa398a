"""Writers that lose a race back off before trying again, so heavy contention gives up nothing.

A losing append on PostgreSQL raises :class:`~casefile.errors.ConcurrencyError` at once, and the
service retries it (eight times) on the new head. Without a pause in between, sixteen threads
of one process on a couple of cores keep waking to lose again, and a quarter to a half of their
writes used up every retry. The store now backs off, with jitter, before it reports the loss.
"""

from __future__ import annotations

import threading

import pytest

from casefile.app.service import CaseService
from casefile.errors import ConcurrencyError
from casefile.store.sql import SqlEventStore

WRITERS = 16
APPENDS_EACH = 200


def _race(url: str, case_id: str) -> tuple[int, list[BaseException]]:
    """16 threads × 200 notes, each through a service on a store of its own (a connection pool
    of its own too: one shared pool has fewer than 16 connections); how many writes gave up,
    and any other error."""
    store = SqlEventStore(url)
    CaseService(store).writer.new_case("contention", case_id=case_id)
    start = threading.Barrier(WRITERS)
    gave_up = [0] * WRITERS
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        service = CaseService(SqlEventStore(url))
        try:
            start.wait(timeout=60)
            for n in range(APPENDS_EACH):
                try:
                    service.writer.note(case_id, f"w{worker} #{n}")
                except ConcurrencyError:
                    gave_up[worker] += 1
        except BaseException as error:  # reported by the test
            errors.append(error)
        finally:
            service.close()

    threads = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    try:
        written = store.head(case_id)[0] - 1
        assert written + sum(gave_up) == WRITERS * APPENDS_EACH or errors
    finally:
        store.close()
    return sum(gave_up), errors


@pytest.mark.postgres
def test_sixteen_writers_in_one_process_give_up_no_write_on_postgres(postgres_url: str) -> None:
    gave_up, errors = _race(postgres_url, "race")
    assert errors == []
    assert gave_up == 0, f"{gave_up} of {WRITERS * APPENDS_EACH} writes gave up"
