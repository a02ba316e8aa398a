"""The one result type every runner returns (local, SSH, pasted, sampler)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RunResult:
    """What happened when a command ran somewhere.

    A failure to connect or to start is data, not an exception: ``error`` says what went wrong
    and ``exit_status`` is ``None``. ``timed_out`` is True when the runner gave up waiting.
    Times are ISO 8601 UTC strings as casefile stores them.

    ``error_kind`` is a short machine-readable tag for ``error`` (``"not_found"``, ``"dns"``,
    ``"refused"``, ``"auth"``, ``"host_key_unknown"``, ``"host_key_changed"`` …) so that callers
    can treat, say, an untrusted host key differently from a dead host without parsing the
    message. It defaults to ``None`` so results built before it existed still load.
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

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.exit_status == 0
