"""Bounded capture of one output stream: the head and the tail, and a count of the rest.

A probe that prints without end (``yes``, a ``dmon`` left running, a debug flag that floods
stderr) must not cost memory without end: on main, ``yes`` for three seconds grew casefile to
5.4 GB and then failed to store anything. Each stream keeps at most ``limit`` bytes: the first
half as it arrives, the last half in a buffer that is trimmed as it grows, and the bytes between
are counted and dropped. The reading side keeps draining, so the command is never blocked on a
full pipe or SSH window, and its exit status still arrives.
"""

from __future__ import annotations

from casefile.probes.runners.result import Truncation

#: Bytes kept per stream by default: 10x the largest real probe output in the corpus (nccl-tests,
#: 0.4 MB), and small enough that 16 hosts printing garbage at once stay well under 512 MB.
DEFAULT_CAPTURE_BYTES = 4 * 1024 * 1024


class Capture:
    """The head and tail of a stream of bytes, at most ``limit`` bytes in all."""

    __slots__ = ("_head", "_head_limit", "_tail", "_tail_limit", "stream", "total")

    def __init__(self, stream: str, limit: int = DEFAULT_CAPTURE_BYTES) -> None:
        if limit < 2:
            raise ValueError("a capture keeps at least 2 bytes")
        self.stream = stream
        self._head_limit = limit // 2
        self._tail_limit = limit - self._head_limit
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Add what the stream printed next."""
        self.total += len(data)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            # Trim once the buffer holds twice what it keeps: amortised O(1) a byte.
            if len(self._tail) > 2 * self._tail_limit:
                del self._tail[: len(self._tail) - self._tail_limit]

    @property
    def truncated(self) -> bool:
        return self.total > self._head_limit + self._tail_limit

    def _kept_tail(self) -> bytes:
        return bytes(self._tail[-self._tail_limit :]) if self._tail else b""

    def value(self) -> bytes:
        """The bytes kept: the whole stream, or its head followed by its tail."""
        return bytes(self._head) + self._kept_tail()

    def truncation(self) -> Truncation | None:
        """What was dropped, or None when the whole stream was kept."""
        if not self.truncated:
            return None
        return Truncation(self.stream, self.total, len(self._head), len(self._kept_tail()))

    def text(self) -> str:
        """The kept bytes as text for a parser: UTF-8 with bad bytes replaced, and a marker line
        where a truncated stream was cut (so the head's last line and the tail's first line are
        never read as one)."""
        cut = self.truncation()
        if cut is None:
            return self.value().decode("utf-8", errors="replace")
        head = bytes(self._head).decode("utf-8", errors="replace")
        tail = self._kept_tail().decode("utf-8", errors="replace")
        marker = f"[casefile: {cut.omitted_bytes} bytes of {self.stream} omitted]"
        return f"{head}\n{marker}\n{tail}"
