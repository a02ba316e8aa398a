"""Removing a case: its events, its snapshots and the artifacts only it refers to, in one
transaction — on the in-memory store, SQLite and a real PostgreSQL (tests/store/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from casefile.domain.events import NewEvent
from casefile.errors import CaseNotFound, StoreError
from casefile.store.base import EventStore
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.verify import verify_stored_case


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def store(request: pytest.FixtureRequest) -> Iterator[EventStore]:
    if request.param == "memory":
        yield MemoryEventStore()
        return
    opened = SqlEventStore(str(request.getfixturevalue(f"{request.param}_url")))
    yield opened
    opened.close()


def run(store: EventStore, case_id: str, expected: int, stdout: bytes, stderr: bytes) -> None:
    out = store.put_artifact(stdout)
    err = store.put_artifact(stderr)
    payload = {
        "probe": "command",
        "argv": ["echo"],
        "host": "h",
        "source": "local",
        "stdout_artifact": out,
        "stderr_artifact": err,
    }
    store.append(case_id, expected, [NewEvent("probe.ran", payload)])


def make_cases(store: EventStore) -> None:
    for case_id in ("doomed", "kept"):
        store.append(case_id, 0, [NewEvent("case.opened", {"title": case_id})])
    run(store, "doomed", 1, b"only doomed's output", b"shared stderr")
    run(store, "kept", 1, b"kept's own output", b"shared stderr")
    store.append("doomed", 2, [NewEvent("note.added", {"text": "x"})])
    store.save_snapshot("doomed", 3, store.head("doomed")[1], "fold-test", b"cached")
    store.save_snapshot("kept", 2, store.head("kept")[1], "fold-test", b"cached too")


def test_remove_takes_the_case_and_what_only_it_refers_to(store: EventStore) -> None:
    make_cases(store)
    shared = store.load("kept")[1].payload["stderr_artifact"]
    own = store.load("doomed")[1].payload["stdout_artifact"]
    removed = store.remove_case("doomed")
    assert (removed.case_id, removed.events) == ("doomed", 3)
    assert (removed.artifacts_removed, removed.artifacts_kept) == (1, 1)
    assert store.load("doomed") == [] and store.head("doomed")[0] == 0
    assert store.case_ids() == ["kept"]
    assert store.load_snapshot("doomed", "fold-test") is None
    assert store.load_snapshot("kept", "fold-test") is not None
    assert set(store.artifact_digests([shared, own])) == {shared}
    # the other case is whole: every artifact it refers to is still there
    assert verify_stored_case(store, "kept").ok
    # the id is free again
    store.append("doomed", 0, [NewEvent("case.opened", {"title": "again"})])


def test_removing_a_case_that_is_not_there_changes_nothing(store: EventStore) -> None:
    make_cases(store)
    with pytest.raises(CaseNotFound, match="no case 'ghost'"):
        store.remove_case("ghost")
    assert store.case_ids() == ["doomed", "kept"]


def test_a_case_directory_refuses_to_delete_itself(tmp_path: object) -> None:
    from pathlib import Path

    from casefile.store.casedir import export_case

    source = MemoryEventStore()
    source.append("c1", 0, [NewEvent("case.opened", {"title": "on disk"})])
    target = Path(str(tmp_path)) / "c1"
    export_case(source.load("c1"), {}, target)
    directory = DirectoryEventStore(target)
    with pytest.raises(StoreError, match="delete it yourself"):
        directory.remove_case("c1")
    assert (target / "events.jsonl").exists()
