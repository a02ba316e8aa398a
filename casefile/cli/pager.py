"""Long output through a pager on a terminal, as git does.

Which pager: ``$CASEFILE_PAGER``, else the config file's ``pager``, else ``$PAGER``, else
``less -FRX`` (``-F``: quit at once when it fits on one screen, ``-R``: pass colour through,
``-X``: leave the text on the screen afterwards). ``LESS=FRX`` is set for it unless ``LESS``
is already set. An empty value or ``cat`` means no pager. The command is split with
:func:`shlex.split` and run as an argument list, never through a shell.

Never paged: output that is not a terminal (a pipe, a file), ``log --follow`` (it never ends),
and anything run with ``--no-pager``. A pager that cannot be started is not an error: the text
is printed directly, after a one-line warning.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from typing import TextIO, cast

from casefile.errors import CasefileError

DEFAULT_PAGER = "less -FRX"


def pager_argv(environ: Mapping[str, str], configured: str | None = None) -> list[str] | None:
    """The pager's argument list, or None for no pager."""
    text = environ.get("CASEFILE_PAGER")
    if text is None:
        text = configured
    if text is None:
        text = environ.get("PAGER", DEFAULT_PAGER)
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise CasefileError(f"cannot split the pager command {text!r}: {error}") from None
    if not argv or argv == ["cat"]:
        return None
    return argv


class _Pipe(io.RawIOBase):  # a RawIOBase, so BufferedWriter may wrap it
    """The write end of the pager's pipe; once the pager has quit (the reader pressed ``q``),
    what is still written is dropped rather than raised, so the command ends as it would have."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.broken = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        size = len(data)
        if self.broken:
            return size
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except BrokenPipeError:
            self.broken = True
        return size

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


class Pager:
    """A running pager and the text stream that feeds it."""

    def __init__(self, process: subprocess.Popen[bytes], stream: io.TextIOWrapper) -> None:
        self.process = process
        self.stream = stream

    @classmethod
    def start(cls, argv: list[str], like: TextIO, environ: Mapping[str, str]) -> Pager | None:
        """Start ``argv`` reading what is written to :attr:`stream` (encoded as ``like``);
        None, after a warning, when it cannot be started."""
        env = dict(environ)
        env.setdefault("LESS", "FRX")
        try:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, env=env)
        except OSError as error:
            reason = error.strerror or str(error)
            warning = f"casefile: warning: cannot start the pager {argv[0]!r}: {reason}"
            print(warning, file=sys.stderr)
            return None
        assert process.stdin is not None
        fd = os.dup(process.stdin.fileno())
        process.stdin.close()  # the stream below owns the pipe now
        raw = _Pipe(fd)
        stream = io.TextIOWrapper(
            io.BufferedWriter(cast("io.RawIOBase", raw)),  # typeshed wants a FileIO-like
            encoding=getattr(like, "encoding", None) or "utf-8",
            errors="replace",
            write_through=False,
        )
        return cls(process, stream)

    def finish(self) -> None:
        """Close the pipe and wait for the reader to quit the pager."""
        with contextlib.suppress(OSError):  # BrokenPipeError included
            self.stream.close()
        while True:
            try:
                self.process.wait()
                return
            except KeyboardInterrupt:
                continue  # Ctrl-C is the pager's to handle (less ignores it); wait for it
