"""Reading a file a person names (a paste, a transcript, a timing file) without hanging on it.

A FIFO waits for a writer forever and a device such as ``/dev/zero`` never ends, so a file is
opened without blocking and checked on the opened descriptor (a name swapped in between cannot
slip past), then read up to a limit: whatever a person points at costs one clear line, never a
hang or memory run out. The CLI and the TUI both read through here.
"""

from __future__ import annotations

import os
import stat

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
