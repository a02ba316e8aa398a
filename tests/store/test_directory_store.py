"""A case directory as a store: reads that cost one ``lstat`` and snapshots that stay out."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.fold_cache import fold_case, save_snapshot
from casefile.domain.events import NewEvent
from casefile.store import directory as directory_module
from casefile.store.base import SnapshotStore
from casefile.store.casedir import export_case, read_case_dir
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore


def make_case(path: Path, notes: int = 3) -> None:
    source = MemoryEventStore()
    source.append("c1", 0, [NewEvent("case.opened", {"title": "slow decode"})])
    for n in range(notes):
        source.append("c1", n + 1, [NewEvent("note.added", {"text": f"note {n}"})])
    export_case(source.load("c1"), {}, path)


def files(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def test_load_after_rereads_only_when_the_file_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_case(tmp_path / "case")
    reads: list[Path] = []

    def counting(directory: Path) -> object:
        reads.append(directory)
        return read_case_dir(directory)

    monkeypatch.setattr(directory_module, "read_case_dir", counting)
    store = DirectoryEventStore(tmp_path / "case")
    assert len(reads) == 1
    for _ in range(3):
        assert store.load("c1", after=4) == []
        assert [e.seq for e in store.load("c1", after=2)] == [3, 4]
        assert [e.seq for e in store.load("c1", 3, after=1)] == [2, 3]
    assert len(reads) == 1  # the signature was unchanged: no re-read

    other = DirectoryEventStore(tmp_path / "case")
    other.append("c1", 4, [NewEvent("note.added", {"text": "from another process"})])
    new = store.load("c1", after=4)
    assert [(e.seq, e.payload["text"]) for e in new] == [(5, "from another process")]
    assert len(reads) == 3  # the other store's open, then this one's re-read
    assert store.load("c1", after=5) == []
    assert len(reads) == 3


def test_snapshots_are_not_written_into_the_directory(tmp_path: Path) -> None:
    make_case(tmp_path / "case")
    store = DirectoryEventStore(tmp_path / "case")
    before = files(tmp_path / "case")
    assert not isinstance(store, SnapshotStore)  # so a fold is never cached in it
    projection, _due = fold_case(store, "c1")
    assert not save_snapshot(store, projection)
    assert files(tmp_path / "case") == before


def test_change_token_is_the_events_file_signature(tmp_path: Path) -> None:
    make_case(tmp_path / "case")
    store = DirectoryEventStore(tmp_path / "case")
    token = store.change_token("c1")
    assert token is not None and store.change_token("c1") == token
    assert store.change_token("another case") is None
    store.append("c1", 4, [NewEvent("note.added", {"text": "more"})])
    assert store.change_token("c1") not in (None, token)
    assert store.change_token("another case") is None
