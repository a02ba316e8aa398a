"""Reading and writing a file a person names, outside any case directory.

Reading (a paste, a transcript, a timing file): a FIFO waits for a writer forever and a device
such as ``/dev/zero`` never ends, so a file is opened without blocking and checked on the
opened descriptor (a name swapped in between cannot slip past), then read up to a limit:
whatever a person points at costs one clear line, never a hang or memory run out.

Writing (a report, its chart, a redaction map): casefile writes regular files only. A file is
written whole to a temporary beside it and renamed over the name, so no reader and no failure
sees half of it; and because a rename replaces whatever has the name, a name that is anything
but a regular file (a device, a FIFO, a symbolic link, a directory, a socket) is refused
before anything is written. As root, ``-o /dev/null`` once replaced the system's ``/dev/null``
with a report; following a link instead would write wherever a planted link points. Standard
output is the way to stream (``-o -``). The CLI and the TUI both read and write through here.
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

from casefile.errors import CasefileError

#: The most bytes a paste or ``parse`` reads (far above any probe's output).
INPUT_LIMIT = 64 * 1024 * 1024
#: The largest transcript read (a 10,000-command session is a few MiB).
TRANSCRIPT_LIMIT = 256 * 1024 * 1024


def read_regular_file(path: str, limit: int, label: str | None = None, hint: str = "") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; anything else is a
    :class:`CasefileError` of one line naming ``label`` (default: the path). ``hint`` follows
    "not a regular file" (the CLI adds that ``-`` reads stdin)."""
    name = path if label is None else label
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise CasefileError(f"cannot read {name}: {error.strerror}") from None
    # checked on the descriptor before it becomes a file object: fdopen itself refuses a
    # directory with an exception of its own
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CasefileError(f"cannot read {name}: not a regular file{hint}")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise CasefileError(f"cannot read {name}: {error.strerror}") from None
    if len(data) > limit:
        raise CasefileError(f"cannot read {name}: more than {limit} bytes")
    return data


#: what each kind of file that is not a regular one is called when it is refused
_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)

#: the mode of a file that only its owner may read (a redaction map holds the originals)
PRIVATE_MODE = 0o600


def writable_mode(path: Path) -> int | None:
    """The read, write and execute bits of the regular file at ``path`` (None: no file).

    Anything else at the name is refused with a :class:`CasefileError` of one line, since
    :func:`write_regular_file` would replace it: ``lstat``, so a symbolic link is itself
    refused, whatever it points at. A caller writing several files checks each name with this
    first, so that one refused name leaves every other file unwritten.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CasefileError(f"cannot write {path}: {error.strerror or error}") from None
    if stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode) & 0o777  # never a set-user-ID bit onto a report
    kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
    raise CasefileError(
        f"refusing to write {path}: it is {kind}, and casefile writes only regular files "
        "(it never replaces or writes through anything else)"
    )


def write_regular_file(path: Path, data: bytes, *, private: bool = False) -> None:
    """Write ``data`` as the regular file ``path``, whole or not at all (see the module).

    A file replaced keeps its permission bits; a new one gets 0666 less the umask, as ``open``
    would give it. ``private`` makes it :data:`PRIVATE_MODE` whatever was there, and the
    temporary is created so from the start. The name is checked again just before the rename,
    which narrows (it cannot close) the window in which another process could swap something
    else in; even then the rename replaces only the name, never what a link points at. On any
    failure the temporary is removed and the old file is left as it was; an ``OSError`` becomes
    a :class:`CasefileError` of one line.
    """
    # imported here: the store's modules load the event model, which reading never needs
    from casefile.store.safe_files import create_temporary, sync_directory

    kept = writable_mode(path)
    try:
        fd, temporary = create_temporary(path, PRIVATE_MODE if private else 0o666)
    except OSError as error:
        raise CasefileError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            mode = PRIVATE_MODE if private else kept
            if mode is not None:  # fchmod ignores the umask: exactly these bits
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        writable_mode(path)
        os.replace(temporary, path)
        sync_directory(path.parent)
    except BaseException as error:
        with suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise CasefileError(f"cannot write {path}: {error.strerror or error}") from None
        raise


def read_transcript(path: str, what: str = "transcript", limit: int = TRANSCRIPT_LIMIT) -> bytes:
    """The bytes of a transcript (or its timing file), refused in one line as the CLI refuses
    it: the same reader for every front end."""
    return read_regular_file(path, limit, label=f"the {what} {path}")
