"""SQLite's writers take turns: a lock file beside the database, held for one read–decide–append.

Writers that decide on what they read (the application service's sessions) and then append
race each other; the loser has to read and fold the case again, which takes longer than the
winner's next append, so with many processes writing at once the same ones kept losing until
their retries ran out. SQLite's own write lock cannot be held across the decision (it would
stop every other case and every snapshot save meanwhile), so writers hold ``flock`` on
``<database>-writers.lock`` instead: processes wait their turn, threads too (each hold opens
the file anew, and ``flock`` locks belong to the open file), and a hold nested in the same
thread passes straight through. The file stays beside the database, as SQLite's ``-wal`` and
``-shm`` do; it holds nothing.

A wait is bounded, as SQLite's busy timeout bounds its own: a writer that holds the case past
it (a stuck process) makes the others fail with one line instead of hanging. Ctrl-C interrupts
a wait as it interrupts anything else.
"""

from __future__ import annotations

import fcntl
import os
import random
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from casefile.errors import StoreError

__all__ = ["WAIT_S", "writers_lock"]

WAIT_S = 30.0
"""The longest a writer waits for its turn (SQLite's busy timeout is the same)."""

_held = threading.local()


def _lock_path(database: str | None) -> str | None:
    if database in (None, "", ":memory:") or str(database).startswith("file::memory:"):
        return None
    return f"{database}-writers.lock"


@contextmanager
def writers_lock(database: str | None, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold the database's writers' lock (nothing for an in-memory database); re-entrant
    within a thread."""
    path = _lock_path(database)
    depth = getattr(_held, "depth", 0)
    if path is None or depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth -= 1
        return
    fd = _open(path)
    try:
        _take(fd, path, wait_s)
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _open(path: str) -> int:
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as error:
        raise StoreError(f"cannot lock {path}: {error.strerror}") from error
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StoreError(f"cannot lock {path}: not a regular file")
    return fd


def _take(fd: int, path: str, wait_s: float) -> None:
    """``flock`` without blocking, tried again after short random pauses until ``wait_s``."""
    deadline = time.monotonic() + wait_s
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        except OSError as error:
            raise StoreError(f"cannot lock {path}: {error.strerror}") from error
        if time.monotonic() >= deadline:
            raise StoreError(
                f"another writer has held {os.path.basename(path)} for over {wait_s:g} s; "
                "try again (a writer that hangs holding it can be ended)"
            )
        time.sleep(random.uniform(0, pause))
        pause = min(pause * 2, 0.05)
