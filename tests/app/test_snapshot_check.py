"""Checking a stored snapshot without a second whole fold of the case beside the caller's: the
fresh fold is read a page of events at a time, and a fold of the case the caller already holds
(a TUI's history) is compared instead of folding again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casefile.app import fold_cache
from casefile.app.library import verify
from casefile.app.service import CaseService
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.fold_codec import dump_fold
from casefile.store.sql import SqlEventStore

from .test_fold_cache import _swap_leader, forge, status
from .test_session import CASE, seed


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SqlEventStore]:
    """A case of 29 events whose fold is saved as a snapshot from its sixth event on."""
    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 5)
    store = SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}")
    service = CaseService(store)
    seed(service)
    for n in range(12):
        service.writer.assess(CASE, {"a": 0.3 + n / 30, "b": 0.5}, f"reading {n}")
        service.writer.note(CASE, f"note {n}")
    yield store
    store.close()


def folds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record each fresh fold the snapshot check makes (the seq it folds up to)."""
    made: list[int] = []
    original = fold_cache.state_by_pages

    def spy(held: SqlEventStore, case_id: str, upto: int, page: int = 5_000) -> Projection:
        made.append(upto)
        return original(held, case_id, upto, page)

    monkeypatch.setattr(fold_cache, "state_by_pages", spy)
    return made


def test_the_state_folded_by_pages_is_the_state_folded_at_once(store: SqlEventStore) -> None:
    head = len(store.load(CASE))
    whole = dump_fold(project(store.load(CASE), trajectory=False))
    for page in (1, 2, 5, head, head + 10):
        assert dump_fold(fold_cache.state_by_pages(store, CASE, head, page)) == whole
    middle = dump_fold(project(store.load(CASE, 9), trajectory=False))
    assert dump_fold(fold_cache.state_by_pages(store, CASE, 9, 4)) == middle


def test_a_held_history_fold_checks_the_snapshot_without_folding_again(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    status(store)  # a sealed snapshot at the head
    made = folds(monkeypatch)
    alone = verify(store, CASE)
    assert alone.ok and "matches its events and its seal" in alone.notes[-1]
    assert len(made) == 1
    history = project(store.load(CASE))
    assert verify(store, CASE, fold=history) == alone
    assert len(made) == 1  # the held fold was compared: no second fold


def test_a_held_fold_that_does_not_end_at_the_snapshot_is_not_used(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    status(store)
    made = folds(monkeypatch)
    shorter = project(store.load(CASE, 10))
    assert verify(store, CASE, fold=shorter).ok
    assert made == [len(store.load(CASE))]


def test_a_forged_snapshot_is_caught_with_a_held_fold_too(store: SqlEventStore) -> None:
    status(store)
    key = fold_cache.engine_key()
    saved = store.load_snapshot(CASE, key)
    assert saved is not None
    store.save_snapshot(CASE, saved.seq, saved.head_hash, key, forge(saved.data, _swap_leader))
    checked = verify(store, CASE, fold=project(store.load(CASE)))
    assert not checked.ok and "does not match the events it claims" in checked.message
    assert store.load_snapshot(CASE, key) is None


def grow(store: SqlEventStore, notes: int) -> None:
    """The case grows past its snapshot, as when a note is added from the CLI (no command
    saves a snapshot for fewer than ``SNAPSHOT_AFTER`` new events)."""
    service = CaseService(store)
    for n in range(notes):
        service.writer.note(CASE, f"later note {n}")


def test_a_held_fold_past_the_snapshot_carries_it_forward_without_folding_again(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TUI opened on a case that grew since its snapshot: the snapshot with the events after
    it folded on is compared with the history fold, not a second fold of the whole case (at
    100,000 events that fold took the TUI from 1.1 to 1.7 GB)."""
    status(store)
    at = fold_cache.engine_key()
    saved = store.load_snapshot(CASE, at)
    assert saved is not None
    grow(store, 3)
    made = folds(monkeypatch)
    history = project(store.load(CASE))
    assert history.last_seq == saved.seq + 3
    held = verify(store, CASE, fold=history)
    assert made == []
    assert held.ok
    assert held.notes[-1] == (
        f"the stored snapshot at seq {saved.seq} matches its events and its seal (with the 3 "
        "events after it folded on, it is the fold of the whole case)"
    )
    alone = verify(store, CASE)  # the exact check, a fresh fold up to the snapshot's seq
    assert made == [saved.seq]
    assert alone.ok and "matches its events and its seal" in alone.notes[-1]


@pytest.mark.parametrize("later", [1, 4])
def test_a_forged_snapshot_is_caught_when_the_case_grew_after_it(
    store: SqlEventStore, later: int
) -> None:
    status(store)
    key = fold_cache.engine_key()
    saved = store.load_snapshot(CASE, key)
    assert saved is not None
    store.save_snapshot(CASE, saved.seq, saved.head_hash, key, forge(saved.data, _swap_leader))
    grow(store, later)
    checked = verify(store, CASE, fold=project(store.load(CASE)))
    assert not checked.ok and "does not match the events it claims" in checked.message
    assert store.load_snapshot(CASE, key) is None


def test_a_snapshot_of_another_history_is_caught_with_a_held_fold_past_it(
    store: SqlEventStore,
) -> None:
    """A snapshot stored under a seq and hash it does not hold (copied from another seq)
    is refused before anything is folded onto it."""
    status(store)
    key = fold_cache.engine_key()
    saved = store.load_snapshot(CASE, key)
    assert saved is not None
    grow(store, 2)
    earlier = store.load(CASE, saved.seq - 1, after=saved.seq - 2)[0]
    store.save_snapshot(CASE, earlier.seq, earlier.hash, key, saved.data)
    checked = verify(store, CASE, fold=project(store.load(CASE)))
    assert not checked.ok and "does not match the events it claims" in checked.message
