"""Output that ran somewhere casefile could not reach, pasted in by the user.

Often the machine under investigation is behind a bastion, in a customer's lab, or only reachable
by a colleague; the output still counts as evidence if we know which command produced it, on
which host, and when. The result has ``source="pasted"``, no duration, and the capture time as
both start and finish, so nothing pretends casefile ran the command itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TextIO

from casefile.domain.events import format_time
from casefile.errors import RunnerError
from casefile.probes.runners.result import RunResult

SOURCE = "pasted"


def capture_time(moment: str | datetime) -> str:
    """Normalise the capture time; a time without a zone is refused rather than guessed."""
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment.strip())
        except ValueError as e:
            raise RunnerError(
                f"pasted output: taken_at {moment!r} is not an ISO 8601 time "
                "(e.g. 2024-05-01T12:00:00Z)"
            ) from e
    if moment.tzinfo is None:
        raise RunnerError(
            "pasted output: taken_at has no time zone; add one (e.g. 'Z' or '+02:00') so the "
            "evidence lines up with the rest of the case"
        )
    return format_time(moment)


def _decode(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


def from_text(
    argv: Sequence[str],
    output: str | bytes,
    *,
    host: str,
    taken_at: str | datetime,
    exit_status: int | None = None,
    stderr: str | bytes = "",
) -> RunResult:
    """A result for ``output`` that ``argv`` printed on ``host`` at ``taken_at``."""
    args = tuple(argv)
    if not args:
        raise RunnerError("pasted output: say which command produced it (argv is empty)")
    if not host.strip():
        raise RunnerError("pasted output: say which host it was taken on")
    when = capture_time(taken_at)
    return RunResult(
        argv=args,
        host=host,
        exit_status=exit_status,
        stdout=_decode(output),
        stderr=_decode(stderr),
        started_at=when,
        finished_at=when,
        duration_s=0.0,
        source=SOURCE,
        # pasted bytes are kept exactly as the raw output; only the parsers' text is decoded
        stdout_bytes=bytes(output) if isinstance(output, bytes) else None,
        stderr_bytes=bytes(stderr) if isinstance(stderr, bytes) else None,
    )


def from_file(
    argv: Sequence[str],
    path: str | Path,
    *,
    host: str,
    taken_at: str | datetime,
    exit_status: int | None = None,
) -> RunResult:
    """Like :func:`from_text`, reading the output from a file (bytes decoded as UTF-8)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise RunnerError(f"pasted output: cannot read {path}: {e.strerror or e}") from e
    return from_text(argv, data, host=host, taken_at=taken_at, exit_status=exit_status)


def from_stream(
    argv: Sequence[str],
    stream: TextIO,
    *,
    host: str,
    taken_at: str | datetime,
    exit_status: int | None = None,
) -> RunResult:
    """Like :func:`from_text`, reading the output from a stream such as ``sys.stdin``."""
    return from_text(argv, stream.read(), host=host, taken_at=taken_at, exit_status=exit_status)
