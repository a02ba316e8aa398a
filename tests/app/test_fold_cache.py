"""Snapshots of a fold are a cache, never truth: a stale, corrupted, lying or wrong-version one
is ignored and rebuilt, and every result is identical with and without it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casefile.app import fold_cache
from casefile.app.service import CaseService
from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import dump_fold
from casefile.store.sql import SqlEventStore

from .folds import fingerprint
from .test_session import CASE, seed


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SqlEventStore]:
    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 5)
    store = SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}")
    service = CaseService(store)
    seed(service)
    for n in range(12):
        service.assess(CASE, {"a": 0.3 + n / 30, "b": 0.5}, f"reading {n}")
        service.note(CASE, f"note {n}")
    yield store
    store.close()


def state(store: SqlEventStore) -> dict[str, Any]:
    return fingerprint(fold_cache.fold_case(store, CASE)[0], trajectory=False)


def truth(store: SqlEventStore) -> dict[str, Any]:
    return fingerprint(project(store.load(CASE)), trajectory=False)


def status(store: SqlEventStore) -> dict[str, Any]:
    """A status as the CLI makes one: answered, then the snapshot written (flush)."""
    service = CaseService(store)
    view = service.status(CASE).to_json()
    service.flush()
    return view


def restores(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the seq of every snapshot the cache actually uses."""
    from casefile.domain.beliefs import fold_codec

    used: list[int] = []
    original = fold_codec.restore_fold

    def spy(data: bytes) -> Any:
        restored = original(data)
        used.append(restored.last_seq)
        return restored

    monkeypatch.setattr(fold_codec, "restore_fold", spy)
    return used


def test_the_first_fold_writes_a_snapshot_and_the_next_one_starts_from_it(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert store.load_snapshot(CASE, fold_cache.engine_key()) is None
    answering = CaseService(store)
    answering.status(CASE)
    assert store.load_snapshot(CASE, fold_cache.engine_key()) is None  # answered first …
    answering.flush()
    assert store.load_snapshot(CASE, fold_cache.engine_key()) is not None  # … then written
    store.drop_snapshots(CASE)
    cold = status(store)
    saved = store.load_snapshot(CASE, fold_cache.engine_key())
    assert saved is not None and saved.seq == store.head(CASE)[0]
    used = restores(monkeypatch)
    assert status(store) == cold
    assert used == [saved.seq]
    assert state(store) == truth(store)


def test_a_snapshot_behind_the_head_is_used_for_the_start_and_the_tail_folded(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = store.load(CASE)
    middle = events[len(events) // 2]
    store.save_snapshot(
        CASE,
        middle.seq,
        middle.hash,
        fold_cache.engine_key(),
        dump_fold(project(events[: middle.seq])),
    )
    used = restores(monkeypatch)
    assert state(store) == truth(store)
    assert used == [middle.seq]


@pytest.mark.parametrize("damage", ["corrupt", "stale", "lying", "beyond", "other-engine"])
def test_a_bad_snapshot_is_ignored_and_rebuilt(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    expected_status = status(store)  # also writes a good snapshot, which each case replaces
    store.drop_snapshots(CASE)
    events = store.load(CASE)
    head = events[-1]
    key = fold_cache.engine_key()
    early = dump_fold(project(events[:3]))
    if damage == "corrupt":
        store.save_snapshot(CASE, head.seq, head.hash, key, b"\x00not a fold at all")
    elif damage == "stale":  # taken from a history whose event at that seq had another hash
        store.save_snapshot(CASE, 3, "f" * 64, key, early)
    elif damage == "lying":  # the fold of seq 3 filed as the fold of the head
        store.save_snapshot(CASE, head.seq, head.hash, key, early)
    elif damage == "beyond":
        store.save_snapshot(CASE, head.seq + 5, head.hash, key, dump_fold(project(events)))
    else:
        store.save_snapshot(CASE, head.seq, head.hash, "fold-0/casefile-0.0.0", early)
    used = restores(monkeypatch)
    assert state(store) == truth(store)
    assert used == [] or (damage == "lying" and used == [3])
    assert status(store) == expected_status
    rebuilt = store.load_snapshot(CASE, key)
    assert rebuilt is not None and rebuilt.seq == head.seq and rebuilt.head_hash == head.hash


def test_status_is_identical_with_and_without_snapshots(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = status(store)
    store.drop_snapshots(CASE)
    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 10**9)
    assert status(store) == without
    assert store.load_snapshot(CASE, fold_cache.engine_key()) is None
