"""The case list after an engine upgrade: every saved fold refused, a long case is listed
without its leaders rather than folded whole (a fold keeps every event it folds), so a list
never holds all of a long case's events decoded at once; a short case, or one whose fold this
engine saved, is listed with them."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from casefile.app import case_library, fold_cache
from casefile.app.service import CaseService
from casefile.app.views import build_case_row
from casefile.domain.beliefs import project
from casefile.domain.event_types import new_event
from casefile.domain.event_types.case import NoteAdded
from casefile.store.sql import SqlEventStore

from .test_session import CASE, seed

T = TypeVar("T")
NOTES = 3_000


def traced_peak(work: Callable[[], T]) -> tuple[T, int]:
    """What ``work`` returns, and the most memory it held at once beyond what it started with."""
    gc.collect()
    tracemalloc.start()
    try:
        result = work()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqlEventStore]:
    """A short case and a long one (thousands of notes, each 1 KB: events the state does not
    keep), their saved folds another engine's."""
    store = SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}")
    service = CaseService(store)
    seed(service, "short")
    seed(service)
    head = store.head(CASE)[0]
    for _ in range(NOTES // 500):  # batches of 500: one transaction each
        notes = [new_event(NoteAdded, text=f"reading {n}: " + "x" * 1_000) for n in range(500)]
        head = store.append(CASE, head, notes)[-1].seq
    for n in range(12):
        service.writer.assess(CASE, {"a": 0.3 + n / 30, "b": 0.5}, f"reading {n}")
    yield store
    store.close()


def test_listing_with_stale_folds_does_not_fold_a_long_case(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(case_library, "GLANCE_MOST", NOTES // 2)
    # folds saved by the engine before this one, as after an upgrade: each is refused
    monkeypatch.setattr(fold_cache, "engine_key", lambda: "fold-old/casefile-test")
    before = CaseService(store)
    before.reader.status(CASE)
    before.flush()
    assert store.load_snapshot(CASE, "fold-old/casefile-test") is not None
    monkeypatch.setattr(fold_cache, "engine_key", lambda: "fold-new/casefile-test")
    _, decoded = traced_peak(lambda: store.load(CASE))  # the long case's events, decoded

    rows, listing = traced_peak(lambda: CaseService(store).library.cases(with_leaders=True))

    # a fold of the long case holds every one of its events (and its state) at its peak
    assert listing < decoded / 4, (listing, decoded)
    by_id = {row.id: row for row in rows}
    assert by_id[CASE].leaders is None  # shown as "—", its id, title and length as ever
    assert by_id[CASE].events == store.head(CASE)[0]
    assert by_id["short"].leaders == leaders_of(store, "short")


def test_a_long_case_has_its_leaders_once_its_fold_is_saved(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(case_library, "GLANCE_MOST", NOTES // 2)
    service = CaseService(store)
    assert {row.id: row.leaders for row in service.library.cases(with_leaders=True)}[CASE] is None
    service.reader.status(CASE)  # a fold of every event, saved when the command ends
    service.flush()
    service = CaseService(store)
    service.writer.note(CASE, "one more")  # a tail after the saved fold: folded for the list
    by_id = {row.id: row for row in service.library.cases(with_leaders=True)}
    assert by_id[CASE].leaders is not None
    assert by_id[CASE].leaders == leaders_of(store, CASE)
    assert by_id[CASE].events == store.head(CASE)[0]


def test_a_case_held_folded_is_listed_with_its_leaders_whatever_its_length(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(case_library, "GLANCE_MOST", 1)
    service = CaseService(store)
    service.reader.status(CASE)  # the case is held folded by this service (a TUI's open case)
    by_id = {row.id: row for row in service.library.cases(with_leaders=True)}
    assert by_id[CASE].leaders == leaders_of(store, CASE)
    assert by_id["short"].leaders is None


def leaders_of(store: SqlEventStore, case_id: str) -> object:
    whole = project(store.load(case_id), trajectory=False)
    return build_case_row(case_id, None, 0, None, None, whole).leaders
