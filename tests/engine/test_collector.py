"""The one helper that pauses the cyclic garbage collector: paused inside, as found after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from casefile.domain.collector import collector_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_inside_and_back_on_after(collector_on: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_back_on_after_an_error(collector_on: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_pause_inside_a_pause_leaves_the_outer_one_paused(collector_on: None) -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_the_fold_pauses_the_collector_and_restores_it(collector_on: None) -> None:
    from casefile.domain.beliefs import project
    from casefile.domain.events import Event

    seen: list[bool] = []

    class Watching(list[Event]):
        def __iter__(self) -> Iterator[Event]:
            seen.append(gc.isenabled())
            return super().__iter__()

    project(Watching())
    assert seen == [False]
    assert gc.isenabled()
