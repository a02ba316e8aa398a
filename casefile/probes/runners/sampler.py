"""The sampler runner: a probe that collects in-process (NVML) for a window of seconds.

Like every runner it returns a :class:`RunResult`, so a sampler's output is stored, parsed and
judged exactly like a command's, and a sampler that cannot start is a recorded failure.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from casefile.domain.events import utc_now
from casefile.probes.runners.result import RunResult

if TYPE_CHECKING:
    from casefile.probes.api import Probe

SOURCE = "sampler"


def sample(probe: Probe, window_s: float) -> RunResult:
    """Run the probe's in-process sampler as a runner would: a failure is data."""
    assert probe.sampler is not None
    started, t0 = utc_now(), time.monotonic()
    try:
        output, error = probe.sampler(window_s), None
    except Exception as exc:  # a sampler failure is data, like a dead host
        output, error = "", f"{type(exc).__name__}: {exc}"
    return RunResult(
        argv=(probe.name, f"--window={window_s:g}"),
        host="localhost",
        exit_status=0 if error is None else None,
        stdout=output,
        stderr="",
        started_at=started,
        finished_at=utc_now(),
        duration_s=time.monotonic() - t0,
        error=error,
        source=SOURCE,
    )
