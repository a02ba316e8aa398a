"""The one result type every runner returns (local, SSH, pasted, sampler)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RunResult:
    """What happened when a command ran somewhere.

    A failure to connect or to start is data, not an exception: ``error`` says what went wrong
    and ``exit_status`` is ``None``. ``timed_out`` is True when the runner gave up waiting.
    Times are ISO 8601 UTC strings as casefile stores them.
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

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.exit_status == 0
