"""Run a probe's command on this machine.

The command is an argv list handed straight to the kernel (never ``shell=True``), so nothing in a
probe argument is ever interpreted by a shell. The child gets its own process group so that a
timeout can kill everything it started (``nvidia-smi dmon`` style tools fork helpers), not just
the direct child.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from casefile.domain.events import utc_now
from casefile.probes.runners.result import RunResult

#: How long to wait for pipes to drain after the process group was killed. A grandchild that
#: escaped the group (``setsid``) could hold the pipes open forever; we stop waiting instead.
_DRAIN_AFTER_KILL_S = 2.0


def _decode(data: bytes | str | None) -> str:
    """Text as casefile stores it: UTF-8, with undecodable bytes replaced rather than fatal."""
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="replace")


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
    ) -> None:
        """``default_timeout_s`` applies when :meth:`run` gets none; ``None`` waits forever."""
        self.default_timeout_s = default_timeout_s
        self._env = dict(env) if env is not None else None
        self._cwd = cwd

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> RunResult:
        """Run ``argv`` and return what happened; failures to start are data, not exceptions."""
        args = tuple(argv)
        timeout = self.default_timeout_s if timeout_s is None else timeout_s
        started_at = utc_now()
        t0 = time.monotonic()

        def result(
            *,
            exit_status: int | None = None,
            stdout: bytes | str | None = None,
            stderr: bytes | str | None = None,
            timed_out: bool = False,
            error: str | None = None,
            error_kind: str | None = None,
        ) -> RunResult:
            return RunResult(
                argv=args,
                host=self.host,
                exit_status=exit_status,
                stdout=_decode(stdout),
                stderr=_decode(stderr),
                started_at=started_at,
                finished_at=utc_now(),
                duration_s=time.monotonic() - t0,
                timed_out=timed_out,
                error=error,
                source=self.source,
                error_kind=error_kind,
            )

        if not args:
            return result(error="empty command", error_kind="invalid")
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

        out: bytes | None
        err: bytes | None
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                # communicate() keeps what it already read, so this returns the partial output.
                out, err = proc.communicate(timeout=_DRAIN_AFTER_KILL_S)
            except subprocess.TimeoutExpired as e:
                out, err = e.stdout, e.stderr
                proc.kill()
            return result(
                exit_status=None,
                stdout=out,
                stderr=err,
                timed_out=True,
            )
        except BaseException:
            _kill_group(proc)  # e.g. KeyboardInterrupt: never leave the probe running behind us
            proc.wait()
            raise
        return result(exit_status=proc.returncode, stdout=out, stderr=err)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's whole process group; it may already be gone."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
