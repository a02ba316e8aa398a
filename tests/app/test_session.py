"""A case session: folds only what is new, and stays exactly what a fresh fold would give.

Every comparison is bit for bit (``tests/app/folds.py``): after other processes append, after
a lost race, after a failed write, and when the history is rewritten under it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from casefile.app.service import CaseService
from casefile.app.session import CaseSession
from casefile.app.who import Who
from casefile.domain.beliefs import project
from casefile.domain.events import NewEvent
from casefile.errors import ConcurrencyError, DomainError, StoreError
from casefile.store.base import EventStore
from casefile.store.casedir import export_case
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from tests.store.conftest import postgres_server, postgres_url  # noqa: F401

from .folds import fingerprint
from .processes import crowd, run_writers
from .writers import respond

CASE = "inc-1"
#: rounds of :func:`~tests.app.processes.crowd` each of the sixteen writers runs
CROWD_ROUNDS = 3


def seed(service: CaseService, case_id: str = CASE) -> None:
    service.writer.new_case("slow decode", symptom="11 tok/s", case_id=case_id)
    service.writer.add_question(case_id, "what limits decode?", "q", 0.1)
    service.writer.add_hypothesis(case_id, "PCIe-bound", "q", 0.5, "a")
    service.writer.add_hypothesis(case_id, "compute-bound", "q", 0.3, "b")
    service.writer.assess(case_id, {"a": 0.9}, "78 layers of all-reduce", kind="calculated")


@dataclass
class Backend:
    kind: str
    where: str
    open: Callable[[], EventStore]


@pytest.fixture(params=["sqlite", "postgres", "directory"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'cases.db'}"
        yield Backend("sqlite", url, lambda: SqlEventStore(url))
        return
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_url")
        yield Backend("postgres", url, lambda: SqlEventStore(url))
        return
    memory = MemoryEventStore()
    seed(CaseService(memory))
    directory = tmp_path / "case"
    events = memory.load(CASE)
    export_case(events, {}, directory)
    yield Backend("directory", str(directory), lambda: DirectoryEventStore(directory))


def seeded(backend: Backend) -> EventStore:
    store = backend.open()
    if backend.kind != "directory":
        seed(CaseService(store))
    return store


def full_fold(store: EventStore) -> dict[str, Any]:
    return fingerprint(project(store.load(CASE)))


def test_refresh_after_other_processes_append_equals_a_fresh_fold(
    backend: Backend, tmp_path: Path
) -> None:
    store = seeded(backend)
    reports = tmp_path / "reports"
    session = CaseSession(store, CASE)
    session.refresh()
    before = session.projection.last_seq
    run_writers(respond, [(backend.kind, backend.where, CASE, w, 4) for w in range(2)], reports)
    refreshed = session.refresh()
    assert not refreshed.rewritten
    assert [e.seq for e in refreshed.events] == list(range(before + 1, store.head(CASE)[0] + 1))
    assert fingerprint(session.projection) == full_fold(store)
    assert session.refresh().events == []  # nothing new: nothing folded
    store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres", "directory"], indirect=True)
def test_sixteen_writers_at_once_all_succeed_and_equal_a_fresh_fold(
    backend: Backend, tmp_path: Path
) -> None:
    """Every writer gets its appends in, however many write at once: a lost race must not
    send the loser back to the start (to fold the whole case again while the winner, its fold
    still warm, wins again) until its retries run out. The store holds the case for each
    writer's read–decide–append instead."""
    store = seeded(backend)
    session = CaseSession(store, CASE)
    session.refresh()
    before = session.projection.last_seq
    writers = [(backend.kind, backend.where, CASE, w, CROWD_ROUNDS) for w in range(16)]
    run_writers(crowd, writers, tmp_path / "reports")
    refreshed = session.refresh()
    assert not refreshed.rewritten
    per_writer = 2 * CROWD_ROUNDS + (CROWD_ROUNDS + 1) // 2 + 1  # notes, readings, children
    assert [e.seq for e in refreshed.events] == list(
        range(before + 1, before + 16 * per_writer + 1)
    )
    assert {f"a{w}" for w in range(16)} <= set(session.projection.hypothesis_question)
    fresh = backend.open()  # verifies the whole chain again, for a directory
    assert fingerprint(session.projection) == full_fold(fresh)
    fresh.close()
    store.close()


class RacingStore:
    """A store whose next appends first let another writer in, so they lose the race.

    It holds nothing while a writer decides (the hold of a directory or of PostgreSQL would
    make the other writer, in the same thread, wait for it forever): a race can be lost here.
    """

    def __init__(self, store: EventStore, before_append: Callable[[], None], times: int = 1):
        self._store = store
        self._before = before_append
        self.losses = times

    def writing(self, case_id: str) -> AbstractContextManager[None]:
        return nullcontext()

    def append(self, case_id: str, expected_seq: int, events: Any) -> Any:
        if self.losses > 0:
            self.losses -= 1
            self._before()
        return self._store.append(case_id, expected_seq, events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_lost_race_is_decided_again_on_the_refreshed_fold(backend: Backend) -> None:
    store = seeded(backend)
    other = CaseService(backend.open())
    racing = RacingStore(
        store, lambda: other.writer.assess(CASE, {"b": 0.9}, "someone else, first", Who("bob"))
    )
    service = CaseService(racing)  # type: ignore[arg-type]
    session = service.sessions.session(CASE, history=True)
    session.refresh()
    event = service.writer.assess(CASE, {"a": 0.2}, "mine, second", who=Who("alice"))
    assert racing.losses == 0
    assert event.actor == "alice" and event.seq == store.head(CASE)[0]
    session.refresh()
    assert fingerprint(session.projection) == full_fold(store)
    other.close()
    store.close()


class FailingStore:
    """A store whose next append fails after the verb has folded its draft."""

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self.fail = True

    def append(self, case_id: str, expected_seq: int, events: Any) -> Any:
        if self.fail:
            self.fail = False
            raise StoreError("disk full (injected)")
        return self._store.append(case_id, expected_seq, events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_failed_write_leaves_no_trace_in_the_fold(backend: Backend) -> None:
    store = seeded(backend)
    failing = FailingStore(store)
    service = CaseService(failing)  # type: ignore[arg-type]
    session = service.sessions.session(CASE, history=True)
    session.refresh()
    head = store.head(CASE)
    with pytest.raises(StoreError, match="injected"):
        service.writer.add_hypothesis(CASE, "memory-bound", "q", 0.05, "c")
    assert store.head(CASE) == head
    session.refresh()
    assert "c" not in session.projection.hypothesis_question
    assert fingerprint(session.projection) == full_fold(store)
    service.writer.add_hypothesis(CASE, "memory-bound", "q", 0.05, "c")  # and it works afterwards
    session.refresh()
    assert fingerprint(session.projection) == full_fold(store)
    store.close()


def test_a_verb_refused_half_way_through_its_draft_drops_the_fold() -> None:
    store = MemoryEventStore()
    service = CaseService(store)
    seed(service)
    session = service.sessions.session(CASE, history=True)
    session.refresh()

    def half(draft: Any) -> None:
        draft.add(NewEvent("note.added", {"text": "first of two"}))
        raise DomainError("the second event is refused")

    with pytest.raises(DomainError):
        session.execute(half, Who())
    assert not session.loaded  # the touched fold is never used again
    assert fingerprint(session.projection) == full_fold(store)


def test_a_verb_refused_before_its_first_event_keeps_the_fold() -> None:
    store = MemoryEventStore()
    service = CaseService(store)
    seed(service)
    session = service.sessions.session(CASE, history=True)
    session.refresh()
    with pytest.raises(DomainError):
        service.writer.add_hypothesis(CASE, "too big", "q", 0.9, "z")
    assert session.loaded
    assert fingerprint(session.projection) == full_fold(store)


def test_a_rewritten_history_is_detected_on_refresh(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cases.db'}"
    store = SqlEventStore(url)
    seed(CaseService(store))
    session = CaseSession(store, CASE)
    session.refresh()
    # Someone restores another history of the same case id, as long as the one held.
    other = MemoryEventStore()
    seed(CaseService(other))
    CaseService(other).writer.note(CASE, "a different past")
    CaseService(store).writer.note(CASE, "the present")
    with sqlite3.connect(tmp_path / "cases.db") as raw:
        raw.execute("DELETE FROM events WHERE case_id = ?", (CASE,))
    store.import_case(other.load(CASE), {})
    refreshed = session.refresh()
    assert refreshed.rewritten
    assert session.integrity_warnings and "rewritten" in session.integrity_warnings[-1]
    assert fingerprint(session.projection) == full_fold(store)
    store.close()


def test_a_rewritten_directory_is_detected_on_refresh(tmp_path: Path) -> None:
    first, second = MemoryEventStore(), MemoryEventStore()
    seed(CaseService(first))
    seed(CaseService(second))
    CaseService(second).writer.note(CASE, "another past")
    directory = tmp_path / "case"
    export_case(first.load(CASE), {}, directory)
    store = DirectoryEventStore(directory)
    session = CaseSession(store, CASE)
    session.refresh()
    replacement = tmp_path / "replacement"
    export_case(second.load(CASE), {}, replacement)
    (replacement / "events.jsonl").replace(directory / "events.jsonl")
    (replacement / "events.head").replace(directory / "events.head")  # as a `git pull` would
    refreshed = session.refresh()
    assert refreshed.rewritten
    assert fingerprint(session.projection) == fingerprint(project(second.load(CASE)))


def test_the_session_never_rereads_what_it_holds() -> None:
    store = MemoryEventStore()
    service = CaseService(store)
    seed(service)
    session = service.sessions.session(CASE, history=True)
    session.refresh()
    reads: list[int] = []
    original = store.load

    def counting(case_id: str, upto: int | None = None, *, after: int = 0) -> Any:
        events = original(case_id, upto, after=after)
        reads.append(len(events))
        return events

    store.load = counting  # type: ignore[method-assign]
    service.writer.note(CASE, "one more")
    session.refresh()
    assert reads == [2]  # the event held (to check it is still ours) and the new one
    with pytest.raises(ConcurrencyError):
        store.append(CASE, 1, [NewEvent("note.added", {"text": "stale"})])


def test_a_refresh_that_fails_half_way_drops_the_fold_and_is_never_saved() -> None:
    """An event the fold refuses (from another writer or an older build) must not leave a
    half-folded session behind, let alone a snapshot every later command would trust."""
    store = MemoryEventStore()
    service = CaseService(store)
    seed(service)
    session = service.sessions.session(CASE, history=False)
    session.refresh()
    session.snapshot_due = True  # as after folding a big case
    bad = NewEvent(
        "hypothesis.proposed",
        {"hypothesis_id": "z", "question_id": "q", "text": "too big", "prior": 0.95},
    )
    store.append(CASE, store.head(CASE)[0], [bad])
    with pytest.raises(DomainError, match="catch-all"):
        session.refresh()
    assert not session.loaded
    service.flush()
    assert store.load_snapshot(CASE, "any") is None and not store._snapshots  # type: ignore[attr-defined]
    with pytest.raises(DomainError, match="catch-all"):
        session.refresh()  # and every later use folds again, and refuses again


def test_an_append_landing_between_two_reads_is_not_taken_for_a_rewrite() -> None:
    store = MemoryEventStore()
    service = CaseService(store)
    seed(service)
    session = CaseSession(store, CASE)
    session.refresh()
    original = store.load

    def load_then_someone_appends(case_id: str, upto: int | None = None, *, after: int = 0) -> Any:
        events = original(case_id, upto, after=after)
        store.load = original  # type: ignore[method-assign]
        CaseService(store).writer.note(CASE, "landed just after our read")
        return events

    store.load = load_then_someone_appends  # type: ignore[method-assign]
    assert not session.refresh().rewritten
    assert session.integrity_warnings == []
    assert [e.seq for e in session.refresh().events] == [store.head(CASE)[0]]
    assert fingerprint(session.projection) == full_fold(store)


def test_a_failure_after_the_append_landed_drops_the_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    from casefile.domain.beliefs import Projection

    store = MemoryEventStore()
    service = CaseService(store)
    seed(service)
    session = service.sessions.session(CASE, history=True)
    session.refresh()

    def interrupted(self: Projection, sealed: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Projection, "adopt", interrupted)
    with pytest.raises(KeyboardInterrupt):
        service.writer.assess(CASE, {"a": 0.4}, "interrupted right after it was stored")
    assert not session.loaded  # its fold holds provisional hashes: never used again
    monkeypatch.undo()
    assert not session.refresh().rewritten and session.integrity_warnings == []
    assert fingerprint(session.projection) == full_fold(store)


def test_a_rewritten_history_reaches_the_status_view(tmp_path: Path) -> None:
    store = SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}")
    service = CaseService(store)
    seed(service)
    assert service.reader.status(CASE).integrity == ()
    other = MemoryEventStore()
    seed(CaseService(other))
    with sqlite3.connect(tmp_path / "cases.db") as raw:
        raw.execute("DELETE FROM events WHERE case_id = ?", (CASE,))
    store.import_case(other.load(CASE), {})
    view = service.reader.status(CASE)
    assert len(view.integrity) == 1 and "rewritten" in view.integrity[0]
    assert view.to_json()["integrity"] == list(view.integrity)
    store.close()


def test_a_fold_is_freed_by_reference_counting_alone() -> None:
    """One-shot commands pause the cyclic collector: a dropped fold must still be freed."""
    import weakref

    from casefile.domain.collector import collector_paused

    store = MemoryEventStore()
    seed(CaseService(store))
    with collector_paused():
        projection = project(store.load(CASE))
        alive = weakref.ref(projection)
        del projection
        assert alive() is None
