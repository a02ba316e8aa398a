"""Run a probe's command on this machine.

The command is an argv list handed straight to the kernel (never ``shell=True``), so nothing in a
probe argument is ever interpreted by a shell. The child gets its own process group so that a
timeout can kill everything it started (``nvidia-smi dmon`` style tools fork helpers), not just
the direct child.

Output is read as it arrives into bounded captures (:mod:`.capture`): a command that prints
without end costs at most the capture limit per stream, and still ends at its timeout. The
bytes are kept exactly as printed (the text for parsers is decoded with replacement).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from casefile.domain.events import utc_now
from casefile.probes.runners.cancel import CANCELLED, CancelToken, poll_interval
from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES, Capture
from casefile.probes.runners.result import RunResult

#: How long to wait for pipes to drain after the process group was killed. A grandchild that
#: escaped the group (``setsid``) could hold the pipes open forever; we stop waiting instead.
_DRAIN_AFTER_KILL_S = 2.0
#: The same after a cancel, which must answer within a second.
_DRAIN_AFTER_CANCEL_S = 0.2
_READ_CHUNK = 1 << 16
#: Chunks read from one pipe before the deadline is looked at again (a flood never starves it).
_CHUNKS_PER_LOOK = 64


class LocalRunner:
    """Runs commands as subprocesses of this process; ``host`` is always ``"localhost"``."""

    host = "localhost"
    source = "local"

    def __init__(
        self,
        *,
        default_timeout_s: float | None = 60.0,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        capture_bytes: int = DEFAULT_CAPTURE_BYTES,
        cancel: CancelToken | None = None,
    ) -> None:
        """``default_timeout_s`` applies when :meth:`run` gets none; ``None`` waits forever.

        ``capture_bytes`` bounds what is kept of each stream (head and tail); ``cancel``, once
        cancelled, stops a running command within :data:`~.cancel.POLL_S` seconds.
        """
        self.default_timeout_s = default_timeout_s
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._capture_bytes = capture_bytes
        self._cancel = cancel

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> RunResult:
        """Run ``argv`` and return what happened; failures to start are data, not exceptions."""
        args = tuple(argv)
        timeout = self.default_timeout_s if timeout_s is None else timeout_s
        started_at = utc_now()
        t0 = time.monotonic()
        out = Capture("stdout", self._capture_bytes)
        err = Capture("stderr", self._capture_bytes)

        def result(
            *,
            exit_status: int | None = None,
            timed_out: bool = False,
            error: str | None = None,
            error_kind: str | None = None,
        ) -> RunResult:
            cuts = tuple(c for c in (out.truncation(), err.truncation()) if c is not None)
            return RunResult(
                argv=args,
                host=self.host,
                exit_status=exit_status,
                stdout=out.text(),
                stderr=err.text(),
                started_at=started_at,
                finished_at=utc_now(),
                duration_s=time.monotonic() - t0,
                timed_out=timed_out,
                error=error,
                source=self.source,
                error_kind=error_kind,
                stdout_bytes=out.value(),
                stderr_bytes=err.value(),
                truncated=cuts,
            )

        if not args:
            return result(error="empty command", error_kind="invalid")
        if self._cancel is not None and self._cancel.cancelled:
            return result(error=self._cancel.message(0.0), error_kind=CANCELLED)
        try:
            proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env,
                cwd=self._cwd,
                start_new_session=True,  # own process group, so a timeout kills its children too
            )
        except FileNotFoundError:
            return result(error=f"command not found: {args[0]}", error_kind="not_found")
        except PermissionError:
            return result(error=f"permission denied: {args[0]}", error_kind="permission")
        except OSError as e:
            return result(error=f"cannot start {args[0]}: {e.strerror or e}", error_kind="start")

        deadline = None if timeout is None else t0 + timeout
        try:
            stopped = self._drain(proc, out, err, deadline)
            if stopped is None:
                stopped = self._wait(proc, deadline)
        except BaseException:
            _kill_group(proc)  # e.g. KeyboardInterrupt: never leave the probe running behind us
            proc.wait()
            _close_pipes(proc)
            raise
        if stopped is None:
            _close_pipes(proc)
            return result(exit_status=proc.returncode)
        _kill_group(proc)
        # Keep what the group printed before it died, but never wait on an escaped grandchild.
        drain_s = _DRAIN_AFTER_CANCEL_S if stopped == CANCELLED else _DRAIN_AFTER_KILL_S
        self._drain(proc, out, err, time.monotonic() + drain_s, stoppable=False)
        proc.wait()
        _close_pipes(proc)
        if stopped == CANCELLED:
            assert self._cancel is not None
            message = self._cancel.message(time.monotonic() - t0)
            return result(error=message, error_kind=CANCELLED)
        return result(timed_out=True)

    def _stop_reason(self, deadline: float | None) -> str | None:
        if self._cancel is not None and self._cancel.cancelled:
            return CANCELLED
        if deadline is not None and time.monotonic() >= deadline:
            return "timeout"
        return None

    def _drain(
        self,
        proc: subprocess.Popen[bytes],
        out: Capture,
        err: Capture,
        deadline: float | None,
        *,
        stoppable: bool = True,
    ) -> str | None:
        """Read both pipes into their captures until both are at EOF (None), or until the
        deadline or a cancel (the reason); with ``stoppable`` False only the deadline counts."""
        pipes: list[tuple[IO[bytes] | None, Capture]] = [(proc.stdout, out), (proc.stderr, err)]
        with selectors.DefaultSelector() as selector:
            for pipe, capture in pipes:
                if pipe is not None and not pipe.closed:
                    selector.register(pipe, selectors.EVENT_READ, capture)
            while selector.get_map():
                if stoppable:
                    reason = self._stop_reason(deadline)
                    if reason is not None:
                        return reason
                elif deadline is not None and time.monotonic() >= deadline:
                    return "timeout"
                remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                wait = poll_interval(self._cancel if stoppable else None, remaining)
                for key, _ in selector.select(wait):
                    capture = key.data
                    fd = key.fd
                    for _ in range(_CHUNKS_PER_LOOK):
                        data = os.read(fd, _READ_CHUNK)
                        if not data:
                            selector.unregister(key.fileobj)
                            break
                        capture.feed(data)
                        if len(data) < _READ_CHUNK:
                            break  # the pipe is empty for now
        return None

    def _wait(self, proc: subprocess.Popen[bytes], deadline: float | None) -> str | None:
        """Wait for the process to exit after it closed its output (it may linger)."""
        while True:
            reason = self._stop_reason(deadline)
            if reason is not None:
                return reason
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                proc.wait(timeout=poll_interval(self._cancel, remaining))
                return None
            except subprocess.TimeoutExpired:
                continue


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's whole process group; it may already be gone."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
