"""Snapshots of a fold are a cache, never truth: a stale, corrupted, lying, wrong-version or
forged one is ignored and rebuilt, every result is identical with and without it, and
``verify`` compares a stored snapshot with the events it claims to fold."""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from casefile.app import fold_cache, snapshot_seal
from casefile.app.library import verify
from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import dump_fold
from casefile.errors import CasefileError
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
        service.writer.assess(CASE, {"a": 0.3 + n / 30, "b": 0.5}, f"reading {n}")
        service.writer.note(CASE, f"note {n}")
    yield store
    store.close()


def state(store: SqlEventStore) -> dict[str, Any]:
    return fingerprint(fold_cache.fold_case(store, CASE)[0], trajectory=False)


def truth(store: SqlEventStore) -> dict[str, Any]:
    return fingerprint(project(store.load(CASE)), trajectory=False)


def status(store: SqlEventStore) -> dict[str, Any]:
    """A status as the CLI makes one: answered, then the snapshot written (flush)."""
    service = CaseService(store)
    view = service.reader.status(CASE).to_json()
    service.flush()
    return view


def save_sealed(store: SqlEventStore, seq: int, head_hash: str, engine: str, body: bytes) -> None:
    """Store ``body`` as a snapshot sealed with this user's key, as casefile writes them."""
    key = snapshot_seal.snapshot_key()
    assert key is not None
    store.save_snapshot(
        CASE, seq, head_hash, engine, snapshot_seal.seal(key, CASE, seq, head_hash, engine, body)
    )


def forge(sealed: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """What someone who can write the database can do: rewrite the fold inside a snapshot and
    recompute the codec's digest (but not the seal, whose key is not in the database)."""
    seal_line, _, fold = sealed.partition(b"\n")
    header, _, rest = fold.partition(b"\n")
    inflate = zlib.decompressobj()
    data = json.loads(inflate.decompress(rest))
    change(data)
    body = zlib.compress(json.dumps(data, separators=(",", ":")).encode()) + inflate.unused_data
    magic, engine, _digest = header.split(b" ")
    digest = hashlib.sha256(body).hexdigest().encode()
    return seal_line + b"\n" + b" ".join((magic, engine, digest)) + b"\n" + body


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
    answering.reader.status(CASE)
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
    save_sealed(
        store,
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
        save_sealed(store, head.seq, head.hash, key, b"\x00not a fold at all")
    elif damage == "stale":  # taken from a history whose event at that seq had another hash
        save_sealed(store, 3, "f" * 64, key, early)
    elif damage == "lying":  # the fold of seq 3 filed as the fold of the head
        save_sealed(store, head.seq, head.hash, key, early)
    elif damage == "beyond":
        save_sealed(store, head.seq + 5, head.hash, key, dump_fold(project(events)))
    else:
        save_sealed(store, head.seq, head.hash, "fold-0/casefile-0.0.0", early)
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


def _swap_leader(data: dict[str, Any]) -> None:
    """Swap the evidence of the first two hypotheses, reword the first, retitle the case."""
    question = data["questions"][0]
    question["sums"] = [question["sums"][1], question["sums"][0], *question["sums"][2:]]
    question["nodes"][0][2] = "FORGED: ruled out"
    data["case"][1] = "forged title"


def test_a_forged_snapshot_is_never_believed_and_verify_says_so(store: SqlEventStore) -> None:
    honest = status(store)  # writes a sealed snapshot at the head
    key = fold_cache.engine_key()
    saved = store.load_snapshot(CASE, key)
    assert saved is not None
    assert verify(store, CASE).ok
    assert "matches its events and its seal" in verify(store, CASE).notes[-1]
    store.save_snapshot(CASE, saved.seq, saved.head_hash, key, forge(saved.data, _swap_leader))
    assert state(store) == truth(store)
    assert status(store) == honest  # and the forged snapshot is replaced by an honest one
    store.save_snapshot(CASE, saved.seq, saved.head_hash, key, forge(saved.data, _swap_leader))
    checked = verify(store, CASE)
    assert not checked.ok and "does not match the events it claims" in checked.message
    assert store.load_snapshot(CASE, key) is None  # a cache that lied is dropped
    assert verify(store, CASE).ok


def test_a_write_is_never_decided_on_a_forged_prior(store: SqlEventStore) -> None:
    """The forged prior of the red team's poisoning: 'a' 0.5 → 0.05 in the cache. A rebalance
    decided on it would seal an event that no honest fold can take."""
    status(store)
    key = fold_cache.engine_key()
    saved = store.load_snapshot(CASE, key)
    assert saved is not None

    def lower_prior(data: dict[str, Any]) -> None:
        data["questions"][0]["nodes"][0][3] = 0.05

    store.save_snapshot(CASE, saved.seq, saved.head_hash, key, forge(saved.data, lower_prior))
    service = CaseService(store)
    with pytest.raises(CasefileError, match=r"has left \(0.2 of its 0.2\)"):
        service.writer.add_hypothesis(CASE, "C", "q", 0.6, "c", who=Who("mallory"))
    assert verify(store, CASE).ok is False  # the forgery is reported (and dropped) …
    assert state(store) == truth(store)  # … and nothing was decided on it


def test_a_snapshot_sealed_with_another_key_is_not_used(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(snapshot_seal.KEY_ENV, "a team's shared key, not mine")
    status(store)
    monkeypatch.delenv(snapshot_seal.KEY_ENV)
    checked = verify(store, CASE)
    assert checked.ok and "not sealed with this user's snapshot key" in checked.notes[-1]
    used = restores(monkeypatch)
    assert state(store) == truth(store) and used == []


def test_the_key_file_is_made_once_private_and_never_followed(
    store: SqlEventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(snapshot_seal.KEY_ENV, raising=False)
    path = snapshot_seal.key_path()
    first = snapshot_seal.snapshot_key()
    assert first is not None and path.stat().st_mode & 0o777 == 0o600
    assert snapshot_seal.snapshot_key() == first
    path.unlink()
    target = tmp_path / "elsewhere"
    target.write_text("k" * 64)
    path.symlink_to(target)
    assert snapshot_seal.snapshot_key() is None  # a link is not the user's key
    used = restores(monkeypatch)
    assert status(store) and used == []  # no key: nothing trusted, results the same
    assert state(store) == truth(store)


def test_a_key_too_short_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(snapshot_seal.KEY_ENV, "short")
    with pytest.raises(CasefileError, match="CASEFILE_SNAPSHOT_KEY is too short"):
        snapshot_seal.snapshot_key()
