"""Safe access to an untrusted case directory: its lock, atomic writes and refusing reads.

Safety. Case directories arrive through ``git clone``, so their contents are untrusted: a
symlink placed in one must never make casefile write (or delete) outside it, and a FIFO or
device must never make a read hang. Writers therefore refuse a target directory,
``artifacts/``, ``events.jsonl``, ``events.head`` or ``README.md`` that is a symlink, write
through unique temporaries made as ``mkstemp`` makes them (random name, ``O_EXCL``, so a planted
name is never followed) renamed into place, open the lock file with ``O_NOFOLLOW``, and readers
open files with ``O_NOFOLLOW`` and read only regular files. A writer killed mid-write leaves its
temporary behind; the next writer removes it under the lock (:func:`remove_stale_temporaries`).

Concurrency. Every write of a directory (export, or an append through
:class:`~casefile.store.directory.DirectoryEventStore`) holds an exclusive ``flock`` on
``.casefile.lock`` in the directory for its whole read-check-write, so two writers cannot both
build on the same head. The lock file is removed before the lock is released (see
:func:`locked_case_dir`), so a directory at rest holds only the case's own files and exports
stay byte-identical. Readers take no lock: every file is replaced by an atomic rename, blobs are
written before the ``events.jsonl`` that references them and removed only after it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from casefile.errors import StoreError
from casefile.store.case_layout import ARTIFACTS_DIR, EVENTS_FILE, README_FILE
from casefile.store.head_file import HEAD_FILE

LOCK_FILE = ".casefile.lock"


def refuse_links(target: Path) -> None:
    """Raise :class:`StoreError` if the directory or a name casefile writes in it is a symlink.

    Writing through a link planted in a cloned case directory would overwrite (or, for
    ``artifacts/``, fill and prune) whatever it points at, anywhere the user can write.
    """
    names = (ARTIFACTS_DIR, EVENTS_FILE, HEAD_FILE, README_FILE)
    for path in (target, *(target / name for name in names)):
        if path.is_symlink():
            raise StoreError(
                f"refusing to write {path}: it is a symbolic link, "
                "and casefile never writes through one in a case directory"
            )
    blobs = target / ARTIFACTS_DIR
    if blobs.exists() and not blobs.is_dir():
        raise StoreError(f"cannot write {blobs}: it is not a directory")


@contextmanager
def locked_case_dir(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on a case directory; every writer of the directory takes it.

    The lock is ``flock`` on ``.casefile.lock``, which the holder unlinks before releasing, so
    no lock file is left to be committed with the case. A waiter that then wins the lock on the
    unlinked file notices that the name no longer refers to it and starts again on a fresh
    file; this keeps the lock exclusive while nothing lingers on disk. A crashed holder's lock
    is released by the kernel, and its left-over file is reused by the next writer.
    """
    path = directory / LOCK_FILE
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    while True:
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as error:
            raise StoreError(f"cannot lock {directory}: {path.name}: {error.strerror}") from error
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise StoreError(f"cannot lock {directory}: {path} is not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                current = os.lstat(path)
            except FileNotFoundError:
                current = None
        except OSError as error:
            os.close(fd)
            raise StoreError(f"cannot lock {directory}: {error.strerror}") from error
        except BaseException:
            os.close(fd)
            raise
        if current is not None and (current.st_dev, current.st_ino) == (
            opened.st_dev,
            opened.st_ino,
        ):
            break
        os.close(fd)  # the previous holder removed it: lock the fresh one instead
    try:
        yield
    finally:
        with suppress(OSError):
            os.unlink(path)  # still ours: only a holder unlinks, and we hold it
        os.close(fd)


def holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is already a regular file (not a link) with exactly ``data``."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        return read_regular(path) == data
    except (OSError, Unreadable):
        return False


def create_temporary(path: Path, mode: int = 0o666) -> tuple[int, Path]:
    """A new, unique, empty file beside ``path``: ``tempfile.mkstemp`` with a plain file's mode.

    Like ``mkstemp`` the name is random and created with ``O_EXCL`` (and ``O_NOFOLLOW``), so
    neither a concurrent writer nor a planted symlink can share it. Unlike ``mkstemp`` (0600)
    it is created 0666 less the umask by default, as ``open()`` would, so a directory shared
    between users stays readable; reading the umask instead would mean setting it,
    process-wide. A file that must stay private passes ``mode=0o600``: it is never readable by
    others, not even while it is still empty (a reader that opened it then would keep reading).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _attempt in range(100):
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            return os.open(temporary, flags, mode), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader (or crash) sees half a file.

    The temporary is unique and exclusively created (see :func:`create_temporary`), and
    ``os.replace`` swaps the name itself, never what a link there points at. The data is
    flushed to disk before the rename: a rename that outlives a power cut must not reveal an
    empty file.
    """
    fd, temporary = create_temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def sync_directory(directory: Path) -> None:
    """Make the renames in ``directory`` durable (where the platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


class Unreadable(Exception):
    """Why a file in a case directory was not read: a symlink or not a regular file."""


def read_regular(path: Path, *, limit: int | None = None) -> bytes:
    """The bytes of a regular file, refusing symlinks and anything else without blocking.

    ``O_NOFOLLOW`` refuses a link; ``O_NONBLOCK`` lets a FIFO open without a writer, and the
    ``fstat`` of the opened file (not of the name, which could change in between) then refuses
    it, a device such as ``/dev/zero``, or a directory. A file of more than ``limit`` bytes, if
    given, is refused too (read no further than one byte past it, in case it is still growing).
    Raises ``FileNotFoundError`` if absent, :class:`Unreadable` if refused and ``OSError`` for
    any other failure.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError:
        if path.is_symlink():
            raise Unreadable("is a symbolic link; casefile does not follow links here") from None
        raise
    # checked on the descriptor before it becomes a file object: fdopen itself refuses a
    # directory with an IsADirectoryError of its own
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Unreadable("is not a regular file")
    with os.fdopen(fd, "rb") as handle:
        if limit is None:
            return handle.read()
        data = handle.read(limit + 1)
        if len(data) > limit:
            raise Unreadable(f"is larger than {limit} bytes")
        return data


_TEMPORARY = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")


def remove_stale_temporaries(directory: Path, written: Callable[[str], bool]) -> int:
    """Remove left-over temporaries of :func:`write_atomically` in ``directory``: those for
    the file names casefile writes there (``written(name)`` is true).

    A writer killed between creating its temporary and renaming it (SIGKILL, a power cut)
    leaves a full-size ``.<name>.<random>.tmp`` that nothing would ever remove. Only a holder of
    :func:`locked_case_dir` may call this: every writer holds that lock while its temporary
    exists, so any temporary found then belongs to a writer that is gone. A name is removed
    only if it is exactly of the form :func:`create_temporary` makes for such a name
    (``unlink`` removes a planted link itself, never what it points at). Returns the count.
    """
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if not _TEMPORARY.fullmatch(entry.name):
            continue
        if not written(entry.name[1 : -len(".0123456789abcdef.tmp")]):
            continue
        if entry.is_dir(follow_symlinks=False):
            continue
        with suppress(FileNotFoundError):
            os.unlink(entry.path)
            removed += 1
    return removed
