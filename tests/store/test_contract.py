"""The EventStore contract, written once and run against every backend (see conftest).

A case directory holds exactly one case and keeps no snapshots: the tests that need several
cases, an import, an empty store or snapshots skip it (see :mod:`.backends`).
"""

from __future__ import annotations

import re
import threading

import pytest

from casefile.domain.events import GENESIS_HASH, Event, NewEvent, sha256_hex, verify_chain
from casefile.errors import ConcurrencyError, IntegrityError, InvalidEvent, StoreError
from casefile.store.base import EventStore, StoredSnapshot
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.verify import verify_stored_case

from .backends import (
    Backend,
    only_when_empty_at_first,
    only_with_several_cases,
    only_with_snapshots,
)


def opened(title: str = "decode is slow") -> NewEvent:
    return NewEvent("case.opened", {"title": title, "symptom": "12 tok/s, expected 40"})


def note(text: str) -> NewEvent:
    return NewEvent("note.added", {"text": text})


def test_append_then_load_round_trips(store: EventStore) -> None:
    sealed = store.append("c1", 0, [opened(), note("PCIe-bound? — µs ✓")])
    loaded = store.load("c1")
    assert loaded == sealed
    assert [e.seq for e in loaded] == [1, 2]
    assert loaded[0].prev_hash == GENESIS_HASH
    assert loaded[1].prev_hash == loaded[0].hash
    assert verify_chain(loaded) is None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", loaded[0].recorded_at)
    # The store keeps the normalised payload (defaults filled in), so replay never re-derives it.
    assert loaded[0].payload == {
        "title": "decode is slow",
        "symptom": "12 tok/s, expected 40",
        "environment": {},
    }
    assert [e.to_line() for e in store.load("c1")] == [e.to_line() for e in sealed]


def test_load_upto_and_unknown_case(store: EventStore) -> None:
    store.append("c1", 0, [opened(), note("a"), note("b")])
    assert [e.seq for e in store.load("c1", upto=2)] == [1, 2]
    assert store.load("c1", upto=0) == []
    assert store.load("nope") == []


def seqs(events: list[Event]) -> list[int]:
    return [e.seq for e in events]


def test_load_after(store: EventStore) -> None:
    sealed = store.append("c1", 0, [opened(), note("a"), note("b"), note("c")])
    assert store.load("c1", after=0) == sealed
    assert store.load("c1", after=-3) == sealed
    assert store.load("c1", after=4) == []
    assert store.load("c1", after=2) == sealed[2:]
    assert store.load("c1", after=9) == []
    assert store.load("nope", after=1) == []


def test_load_after_and_upto_together(store: EventStore) -> None:
    sealed = store.append("c1", 0, [opened(), note("a"), note("b"), note("c"), note("d")])
    assert store.load("c1", 4, after=1) == sealed[1:4]
    assert seqs(store.load("c1", upto=3, after=2)) == [3]
    assert store.load("c1", upto=2, after=2) == []
    assert store.load("c1", upto=1, after=3) == []
    assert store.load("c1", 99, after=3) == sealed[3:]
    assert store.load("c1", 0, after=0) == []
    # upto stays positional: existing callers pass it that way.
    assert store.load("c1", 2) == sealed[:2]
    # What a reader holding seq 1..3 fetches after another append is exactly what is new.
    more = store.append("c1", 5, [note("e")])
    assert store.load("c1", after=5) == more
    assert store.load("c1", after=3) == [*sealed[3:], *more]


def test_head(store: EventStore) -> None:
    assert store.head("c1") == (0, GENESIS_HASH)
    sealed = store.append("c1", 0, [opened(), note("a")])
    assert store.head("c1") == (2, sealed[-1].hash)
    assert store.head("other") == (0, GENESIS_HASH)


def test_case_ids_oldest_first(store: EventStore) -> None:
    only_with_several_cases(store)
    assert store.case_ids() == []
    store.append("zeta", 0, [opened()])
    store.append("alpha", 0, [opened()])
    store.append("zeta", 1, [note("more")])
    assert store.case_ids() == ["zeta", "alpha"]


def test_stale_expected_seq_is_refused_and_changes_nothing(store: EventStore) -> None:
    store.append("c1", 0, [opened(), note("a")])
    before = store.load("c1")
    for stale in (0, 1, 3):
        with pytest.raises(ConcurrencyError) as caught:
            store.append("c1", stale, [note("lost")])
        assert caught.value.expected_seq == stale
        assert isinstance(caught.value, StoreError)
    assert store.load("c1") == before


def test_multi_event_append_is_all_or_nothing(store: EventStore) -> None:
    store.append("c1", 0, [opened()])
    bad = NewEvent(
        "hypothesis.proposed",
        {"hypothesis_id": "h1", "question_id": "q", "text": "PCIe-bound", "prior": 2.0},
    )
    with pytest.raises(InvalidEvent, match="prior"):
        store.append("c1", 1, [note("one"), note("two"), bad])
    assert [e.seq for e in store.load("c1")] == [1]
    assert store.append("c1", 1, [note("one"), note("two")])[-1].seq == 3


def test_unknown_type_and_version_are_refused(store: EventStore) -> None:
    store.append("c1", 0, [opened()])
    with pytest.raises(InvalidEvent, match="unknown event type"):
        store.append("c1", 1, [NewEvent("case.exploded", {})])
    with pytest.raises(InvalidEvent, match="version"):
        store.append("c1", 1, [NewEvent("note.added", {"text": "x"}, version=9)])
    assert seqs(store.load("c1")) == [1]


def test_a_refused_first_append_creates_no_case(store: EventStore) -> None:
    only_when_empty_at_first(store)
    with pytest.raises(InvalidEvent, match="unknown event type"):
        store.append("c1", 0, [NewEvent("case.exploded", {})])
    assert store.case_ids() == []
    assert store.append("c1", 0, []) == []
    assert store.case_ids() == []


def test_empty_append_writes_nothing(store: EventStore) -> None:
    sealed = store.append("c1", 0, [opened()])
    token = store.change_token("c1")
    assert store.append("c1", 1, []) == []
    assert store.load("c1") == sealed
    assert store.change_token("c1") == token


def test_actor_occurred_at_and_floats_survive(store: EventStore) -> None:
    probe = NewEvent(
        "probe.ran",
        {
            "probe": "nvidia-smi",
            "argv": ["nvidia-smi", "-q"],
            "host": "gpu-node-1",
            "source": "local",
            "duration_s": 0.1 + 0.2,
        },
        actor="alice",
        occurred_at="2025-01-02T03:04:05.000006Z",
    )
    sealed = store.append("c1", 0, [probe])[0]
    loaded = store.load("c1")[0]
    assert loaded == sealed
    assert loaded.actor == "alice"
    assert loaded.occurred_at == "2025-01-02T03:04:05.000006Z"
    assert loaded.payload["duration_s"] == 0.1 + 0.2
    assert loaded.compute_hash() == loaded.hash


def test_artifacts_are_stored_once(store: EventStore) -> None:
    store.append("c1", 0, [opened()])
    data = b"\x00\xffraw nvidia-smi output\n"
    digest = store.put_artifact(data)
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert store.put_artifact(data) == digest
    assert store.get_artifact(digest) == data
    with pytest.raises(KeyError):
        store.get_artifact("0" * 64)
    other = store.put_artifact(b"")
    assert store.artifact_digests([digest, other, "f" * 64]) == {digest: data, other: b""}
    assert store.artifact_digests([]) == {}


def test_import_case_round_trips(store: EventStore) -> None:
    only_with_several_cases(store)
    source = MemoryEventStore()
    digest = source.put_artifact(b"output")
    source.append("c1", 0, [opened()])
    source.append(
        "c1",
        1,
        [
            NewEvent(
                "probe.ran",
                {
                    "probe": "lspci",
                    "argv": ["lspci"],
                    "host": "h",
                    "source": "pasted",
                    "stdout_artifact": digest,
                },
            )
        ],
    )
    events = source.load("c1")
    store.import_case(events, {digest: b"output"})
    assert store.load("c1") == events
    assert store.get_artifact(digest) == b"output"
    assert verify_stored_case(store, "c1").ok
    # The stream continues from the imported head.
    assert store.append("c1", 2, [note("after import")])[0].prev_hash == events[-1].hash


def test_import_refuses_an_existing_case_and_changes_nothing(store: EventStore) -> None:
    only_with_several_cases(store)
    store.append("c1", 0, [opened("already here")])
    before = store.load("c1")
    source = MemoryEventStore()
    source.append("c1", 0, [opened("incoming"), note("x")])
    blob = b"never stored"
    digest = sha256_hex(blob)
    with pytest.raises(StoreError, match="already exists"):
        store.import_case(source.load("c1"), {digest: blob})
    assert store.load("c1") == before
    assert store.artifact_digests([digest]) == {}


def test_import_refuses_a_broken_chain(store: EventStore) -> None:
    only_with_several_cases(store)
    source = MemoryEventStore()
    events = source.append("c1", 0, [opened(), note("a"), note("b")])
    forged = [events[0], events[2], events[1]]
    with pytest.raises(IntegrityError):
        store.import_case(forged, {})
    tampered = Event(**{**events[1].to_dict(), "payload": {"text": "changed"}})
    with pytest.raises(IntegrityError) as caught:
        store.import_case([events[0], tampered, events[2]], {})
    assert caught.value.seq == 2
    assert store.case_ids() == []


def test_threads_sharing_one_store_serialise(store: EventStore) -> None:
    def writer(worker: int) -> None:
        for n in range(25):
            while True:
                seq, _ = store.head("c1")
                try:
                    store.append("c1", seq, [note(f"t{worker} #{n}")])
                    break
                except ConcurrencyError:
                    continue

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    events = store.load("c1")
    assert [e.seq for e in events] == list(range(1, 101))
    assert verify_chain(events) is None
    assert len({e.payload["text"] for e in events}) == 100


def test_a_large_append_lands_whole(store: EventStore) -> None:
    store.append("big", 0, [opened()])
    sealed = store.append("big", 1, [note(f"n{n}") for n in range(2500)])
    assert [e.seq for e in sealed] == list(range(2, 2502))
    assert store.load("big") == [store.load("big")[0], *sealed]
    assert verify_chain(store.load("big")) is None
    with pytest.raises(InvalidEvent):
        store.append("big", 2501, [*(note(f"m{n}") for n in range(2400)), note("")])
    assert store.head("big")[0] == 2501


# -- change tokens ----------------------------------------------------------------------------


def test_change_token_is_equal_until_something_is_appended(store: EventStore) -> None:
    store.append("c1", 0, [opened()])
    token = store.change_token("c1")
    store.load("c1")
    store.head("c1")
    assert store.change_token("c1") == token
    store.append("c1", 1, [note("new")])
    moved = store.change_token("c1")
    assert moved != token
    assert store.change_token("c1") == moved


def test_change_token_sees_another_writer(backend: Backend, store: EventStore) -> None:
    if backend.name == "memory":
        pytest.skip("memory has no other writer than itself")
    store.append("c1", 0, [opened()])
    token = store.change_token("c1")
    other = backend.open()
    try:
        assert other.change_token("c1") is not None
        other.append("c1", 1, [note("from elsewhere")])
    finally:
        other.close()
    assert store.change_token("c1") != token
    assert seqs(store.load("c1", after=1)) == [2]


# -- snapshots (a cache: bytes in, bytes out) --------------------------------------------------


def test_snapshot_round_trips(store: EventStore) -> None:
    only_with_snapshots(store)
    sealed = store.append("c1", 0, [opened(), note("a")])
    data = b'{"fold": "\xc2\xb5"}\x00\xff' + bytes(range(256))
    store.save_snapshot("c1", 2, sealed[-1].hash, "fold-v1", data)
    assert store.load_snapshot("c1", "fold-v1") == StoredSnapshot(
        2, sealed[-1].hash, "fold-v1", data
    )
    loaded = store.load_snapshot("c1", "fold-v1")
    assert loaded is not None and type(loaded.data) is bytes


def test_a_snapshot_replaces_the_last_one(store: EventStore) -> None:
    only_with_snapshots(store)
    store.save_snapshot("c1", 2, "a" * 64, "fold-v1", b"two")
    store.save_snapshot("c1", 5, "b" * 64, "fold-v1", b"five")
    assert store.load_snapshot("c1", "fold-v1") == StoredSnapshot(5, "b" * 64, "fold-v1", b"five")
    # The last save wins, even one at a lower seq: whoever saves has just checked its fold.
    store.save_snapshot("c1", 3, "c" * 64, "fold-v1", b"")
    assert store.load_snapshot("c1", "fold-v1") == StoredSnapshot(3, "c" * 64, "fold-v1", b"")


def test_snapshots_are_kept_per_engine_and_case(store: EventStore) -> None:
    only_with_snapshots(store)
    store.save_snapshot("c1", 2, "a" * 64, "fold-v1", b"v1")
    store.save_snapshot("c1", 2, "a" * 64, "fold-v2", b"v2")
    store.save_snapshot("c2", 7, "d" * 64, "fold-v1", b"other case")
    assert store.load_snapshot("c1", "fold-v1") == StoredSnapshot(2, "a" * 64, "fold-v1", b"v1")
    assert store.load_snapshot("c1", "fold-v2") == StoredSnapshot(2, "a" * 64, "fold-v2", b"v2")
    assert store.load_snapshot("c2", "fold-v1") == StoredSnapshot(
        7, "d" * 64, "fold-v1", b"other case"
    )
    assert store.load_snapshot("c2", "fold-v2") is None
    store.drop_snapshots("c1")
    assert store.load_snapshot("c1", "fold-v1") is None
    assert store.load_snapshot("c1", "fold-v2") is None
    assert store.load_snapshot("c2", "fold-v1") is not None
    store.save_snapshot("c1", 2, "a" * 64, "fold-v1", b"v1")
    store.drop_snapshots()
    assert store.load_snapshot("c1", "fold-v1") is None
    assert store.load_snapshot("c2", "fold-v1") is None


def test_no_snapshot_for_an_unknown_case_or_engine(store: EventStore) -> None:
    only_with_snapshots(store)
    store.append("c1", 0, [opened()])
    assert store.load_snapshot("c1", "fold-v1") is None
    assert store.load_snapshot("nope", "fold-v1") is None
    store.drop_snapshots("nope")  # nothing to drop is no error


def test_snapshots_never_touch_the_events(store: EventStore) -> None:
    only_with_snapshots(store)
    sealed = store.append("c1", 0, [opened(), note("a")])
    token = store.change_token("c1")
    store.save_snapshot("c1", 2, sealed[-1].hash, "fold-v1", b"state")
    store.drop_snapshots("c1")
    assert store.load("c1") == sealed
    assert store.head("c1") == (2, sealed[-1].hash)
    assert verify_stored_case(store, "c1").ok
    if not isinstance(store, SqlEventStore):  # SQLite's data_version may move: "look"
        assert store.change_token("c1") == token


def test_a_snapshot_survives_reopening(sql_url: str) -> None:
    with SqlEventStore(sql_url) as store:
        sealed = store.append("c1", 0, [opened()])
        store.save_snapshot("c1", 1, sealed[0].hash, "fold-v1", b"\x00state")
    with SqlEventStore(sql_url) as store:
        assert store.load_snapshot("c1", "fold-v1") == StoredSnapshot(
            1, sealed[0].hash, "fold-v1", b"\x00state"
        )


def test_a_failed_snapshot_save_is_a_store_error(sql_store: SqlEventStore) -> None:
    sql_store.engine.dispose()
    with sql_store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE snapshots")
    with pytest.raises(StoreError, match="cannot save a snapshot of case c1 in "):
        sql_store.save_snapshot("c1", 1, "a" * 64, "fold-v1", b"x")
    with pytest.raises(StoreError, match="cannot read a snapshot of case c1 in "):
        sql_store.load_snapshot("c1", "fold-v1")


def test_a_snapshot_that_breaks_a_constraint_is_a_store_error(sql_store: SqlEventStore) -> None:
    with pytest.raises(StoreError, match="cannot save a snapshot of case c1") as caught:
        sql_store.save_snapshot("c1", 1, None, "fold-v1", b"x")  # type: ignore[arg-type]
    assert not isinstance(caught.value, ConcurrencyError)
    assert sql_store.load_snapshot("c1", "fold-v1") is None


def test_sqlite_change_token_moves_when_another_connection_commits(sqlite_url: str) -> None:
    # data_version moves for any commit by another connection, even one that touches no
    # event: an unequal token means "look", not "there is something new".
    with SqlEventStore(sqlite_url) as store, SqlEventStore(sqlite_url) as other:
        store.append("c1", 0, [opened()])
        token = store.change_token("c1")
        assert store.change_token("c1") == token
        other.put_artifact(b"unrelated")
        assert store.change_token("c1") != token
        assert store.head("c1")[0] == 1
