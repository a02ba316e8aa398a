"""One command on one open SSH channel: execute, drain both streams, stop at the deadline.

A command that times out has its channel closed (after a best-effort ``signal KILL``, which
OpenSSH ignores for root logins) but its connection stays in the pool and is reused; the remote
process may outlive the channel, ending when it next writes to its closed output (SIGPIPE) or on
its own.
"""

from __future__ import annotations

import select
import time

import paramiko

from casefile.domain.events import utc_now
from casefile.probes.runners.result import RunResult

SOURCE = "ssh"
_READ_CHUNK = 1 << 16


def ssh_result(
    target: str,
    argv: tuple[str, ...],
    started_at: str,
    t0: float,
    *,
    exit_status: int | None = None,
    stdout: bytes = b"",
    stderr: bytes = b"",
    timed_out: bool = False,
    error: str | None = None,
    error_kind: str | None = None,
) -> RunResult:
    """A :class:`RunResult` for ``target``, finished now; output is decoded as UTF-8."""
    return RunResult(
        argv=argv,
        host=target,
        exit_status=exit_status,
        stdout=stdout.decode("utf-8", errors="replace"),
        stderr=stderr.decode("utf-8", errors="replace"),
        started_at=started_at,
        finished_at=utc_now(),
        duration_s=time.monotonic() - t0,
        timed_out=timed_out,
        error=error,
        source=SOURCE,
        error_kind=error_kind,
    )


def run_on_channel(
    channel: paramiko.Channel,
    command: str,
    timeout: float | None,
    target: str,
    argv: tuple[str, ...],
    started_at: str,
    t0: float,
) -> RunResult:
    """Execute on an open channel, reading stdout and stderr together until exit or deadline.

    Both streams share one SSH flow-control window, so they are drained as data arrives (reading
    one to its end first could stall the remote side on the other).
    """
    out: list[bytes] = []
    err: list[bytes] = []
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        channel.exec_command(command)
        channel.shutdown_write()  # stdin at EOF, so a command that reads it does not hang
        wakeup = channel.fileno()  # readable when either stream has data, or at EOF/close
        while True:
            at_eof = channel.eof_received or channel.closed  # checked first: data precedes EOF
            while channel.recv_ready():
                out.append(channel.recv(_READ_CHUNK))
            while channel.recv_stderr_ready():
                err.append(channel.recv_stderr(_READ_CHUNK))
            if at_eof:
                break
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return _timed_out(channel, target, argv, started_at, t0, out, err)
            select.select([wakeup], [], [], remaining)
        remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        if not channel.status_event.wait(remaining):
            return _timed_out(channel, target, argv, started_at, t0, out, err)
        status = channel.exit_status
    except (paramiko.SSHException, OSError, EOFError) as e:
        channel.close()
        return ssh_result(
            target,
            argv,
            started_at,
            t0,
            stdout=b"".join(out),
            stderr=b"".join(err),
            error=f"SSH channel to {target} failed: {e}",
            error_kind="channel",
        )
    channel.close()
    if status < 0:  # closed without exit-status: killed by a signal (exit-signal) or dropped
        return ssh_result(
            target,
            argv,
            started_at,
            t0,
            stdout=b"".join(out),
            stderr=b"".join(err),
            error="remote command ended without an exit status (killed by a signal?)",
            error_kind="no_exit_status",
        )
    return ssh_result(
        target, argv, started_at, t0, exit_status=status, stdout=b"".join(out), stderr=b"".join(err)
    )


def _timed_out(
    channel: paramiko.Channel,
    target: str,
    argv: tuple[str, ...],
    started_at: str,
    t0: float,
    out: list[bytes],
    err: list[bytes],
) -> RunResult:
    """Stop waiting: ask the server to kill the command, close the channel, keep the output."""
    _send_kill(channel)
    while channel.recv_ready():
        out.append(channel.recv(_READ_CHUNK))
    while channel.recv_stderr_ready():
        err.append(channel.recv_stderr(_READ_CHUNK))
    channel.close()
    return ssh_result(
        target, argv, started_at, t0, stdout=b"".join(out), stderr=b"".join(err), timed_out=True
    )


def _send_kill(channel: paramiko.Channel) -> None:
    """Best effort RFC 4254 §6.9 ``signal`` request; paramiko has no public call for it.

    OpenSSH honours it only where the session runs under privilege separation, i.e. not for
    root logins ("session signalling requires privilege separation"); there the command keeps
    running after the channel closes until it next writes (SIGPIPE) or finishes.
    """
    if channel.closed:
        return
    try:
        message = paramiko.Message()
        message.add_byte(bytes([paramiko.common.MSG_CHANNEL_REQUEST]))
        message.add_int(channel.remote_chanid)
        message.add_string("signal")
        message.add_boolean(False)
        message.add_string("KILL")
        getattr(channel.transport, "_send_user_message")(message)  # noqa: B009
    except Exception:
        pass  # the channel is closed next anyway; the remote process then dies of SIGPIPE
