"""A snapshot is a cache: saving one never keeps a command waiting on another writer."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from casefile.errors import StoreError
from casefile.store.sql import SNAPSHOT_BUSY_MS, SqlEventStore


def test_a_snapshot_save_gives_up_quickly_while_another_writer_holds_the_lock(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cases.db"
    store = SqlEventStore(f"sqlite:///{path}")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    with pytest.raises(StoreError, match="locked"):
        store.save_snapshot("c", 1, "a" * 64, "engine", b"fold")
    waited = time.monotonic() - started
    assert waited < 10 * SNAPSHOT_BUSY_MS / 1000  # not the 30 s an append would wait
    other.execute("ROLLBACK")
    store.save_snapshot("c", 1, "a" * 64, "engine", b"fold")  # the lock is back to normal
    saved = store.load_snapshot("c", "engine")
    assert saved is not None and saved.data == b"fold"
    other.close()
    store.close()
