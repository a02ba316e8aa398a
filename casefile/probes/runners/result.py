"""The one result type every runner returns (local, SSH, pasted, sampler)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Truncation:
    """One output stream that printed more than a runner keeps.

    The runner kept the first ``head_bytes`` and the last ``tail_bytes`` of ``total_bytes``
    (the raw output holds exactly those, head then tail); everything between was read and
    thrown away, so a probe that prints forever costs bounded memory, never the whole stream.
    """

    stream: str  # "stdout" or "stderr"
    total_bytes: int
    head_bytes: int
    tail_bytes: int

    @property
    def omitted_bytes(self) -> int:
        return self.total_bytes - self.head_bytes - self.tail_bytes

    def describe(self) -> str:
        """One line for a person: which stream, how much it printed, what was kept."""
        return (
            f"{self.stream} truncated: printed {self.total_bytes} bytes; kept the first "
            f"{self.head_bytes} and the last {self.tail_bytes} ({self.omitted_bytes} omitted)"
        )

    def to_dict(self) -> dict[str, int | str]:
        return {
            "stream": self.stream,
            "total_bytes": self.total_bytes,
            "head_bytes": self.head_bytes,
            "tail_bytes": self.tail_bytes,
            "omitted_bytes": self.omitted_bytes,
        }


@dataclass(frozen=True, slots=True)
class RunResult:
    """What happened when a command ran somewhere.

    A failure to connect or to start is data, not an exception: ``error`` says what went wrong
    and ``exit_status`` is ``None``. ``timed_out`` is True when the runner gave up waiting.
    Times are ISO 8601 UTC strings as casefile stores them.

    ``error_kind`` is a short machine-readable tag for ``error`` (``"not_found"``, ``"dns"``,
    ``"refused"``, ``"auth"``, ``"host_key_unknown"``, ``"host_key_changed"``, ``"cancelled"``
    …) so that callers can treat, say, an untrusted host key differently from a dead host
    without parsing the message. It defaults to ``None`` so results built before it existed
    still load.

    ``stdout`` and ``stderr`` are text for parsers (UTF-8, undecodable bytes replaced, a marker
    line where a truncated stream was cut). The bytes the command printed, exactly, are in
    ``stdout_bytes``/``stderr_bytes`` when a runner captured bytes; ``None`` means the text is
    all there is (pasted text, a sampler). ``truncated`` names each stream that printed more
    than the runner keeps, with its byte counts.
    """

    argv: tuple[str, ...]
    host: str
    exit_status: int | None
    stdout: str
    stderr: str
    started_at: str
    finished_at: str
    duration_s: float
    timed_out: bool = False
    error: str | None = None
    source: str = "local"
    error_kind: str | None = None
    stdout_bytes: bytes | None = None
    stderr_bytes: bytes | None = None
    truncated: tuple[Truncation, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.exit_status == 0

    @property
    def cancelled(self) -> bool:
        """Stopped because the user asked (Ctrl-C), not because the host failed."""
        return self.error_kind == "cancelled"

    def raw_stdout(self) -> bytes:
        """The bytes to keep as the stdout artifact: exactly what was captured."""
        return self.stdout_bytes if self.stdout_bytes is not None else self.stdout.encode("utf-8")

    def raw_stderr(self) -> bytes:
        """The bytes to keep as the stderr artifact: exactly what was captured."""
        return self.stderr_bytes if self.stderr_bytes is not None else self.stderr.encode("utf-8")
