"""One command on one open SSH channel: execute, drain both streams, stop at the deadline.

Every wait here is bounded. paramiko's ``exec_command`` waits for the server's answer to the
exec request without any limit, so a host that accepts a session and then never answers hung
``casefile probe`` forever; the request is sent here as ``exec_command`` sends it, and the
answer is awaited until the deadline (the command's, or the connect timeout, whichever comes
first) or a cancel. Output goes into bounded captures (:mod:`.capture`), read a bounded number
of chunks at a time so that a flood never keeps the loop from looking at the clock.

A command that times out has its channel closed (after a best-effort ``signal KILL``, which
OpenSSH ignores for root logins) but its connection stays in the pool and is reused; the remote
process may outlive the channel, ending when it next writes to its closed output (SIGPIPE) or on
its own.
"""

from __future__ import annotations

import select
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import paramiko
from paramiko.common import cMSG_CHANNEL_REQUEST

from casefile.domain.events import utc_now
from casefile.probes.runners.cancel import CANCELLED, CancelToken, poll_interval
from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES, Capture
from casefile.probes.runners.result import RunResult

SOURCE = "ssh"
_READ_CHUNK = 1 << 16
#: Chunks read from one stream before the deadline and the token are looked at again.
_CHUNKS_PER_LOOK = 64


@dataclass(frozen=True, slots=True)
class Limits:
    """How long one command may take and how much of its output is kept."""

    timeout_s: float | None
    #: the longest wait for the server to accept the exec request (the connect timeout)
    exec_timeout_s: float
    capture_bytes: int = DEFAULT_CAPTURE_BYTES
    cancel: CancelToken | None = None


def ssh_result(
    target: str,
    argv: tuple[str, ...],
    started_at: str,
    t0: float,
    *,
    exit_status: int | None = None,
    out: Capture | None = None,
    err: Capture | None = None,
    timed_out: bool = False,
    error: str | None = None,
    error_kind: str | None = None,
) -> RunResult:
    """A :class:`RunResult` for ``target``, finished now, with the captured bytes kept."""
    out = out or Capture("stdout")
    err = err or Capture("stderr")
    return RunResult(
        argv=argv,
        host=target,
        exit_status=exit_status,
        stdout=out.text(),
        stderr=err.text(),
        started_at=started_at,
        finished_at=utc_now(),
        duration_s=time.monotonic() - t0,
        timed_out=timed_out,
        error=error,
        source=SOURCE,
        error_kind=error_kind,
        stdout_bytes=out.value(),
        stderr_bytes=err.value(),
        truncated=tuple(c for c in (out.truncation(), err.truncation()) if c is not None),
    )


class _Stopped(Exception):
    """Internal: the deadline passed or the token was cancelled while waiting."""

    def __init__(self, reason: str, waited_s: float = 0.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.waited_s = waited_s


def remote_command(argv: Sequence[str]) -> str:
    """The command line the server's shell runs: each word quoted, stdin from /dev/null so
    a command that reads it ends instead of waiting for input nobody sends."""
    return " ".join(shlex.quote(a) for a in argv) + " </dev/null"


def run_on_channel(
    channel: paramiko.Channel,
    command: str,
    limits: Limits,
    target: str,
    argv: tuple[str, ...],
    started_at: str,
    t0: float,
) -> RunResult:
    """Execute on an open channel, reading stdout and stderr together until exit or deadline.

    Both streams share one SSH flow-control window, so they are drained as data arrives (reading
    one to its end first could stall the remote side on the other).
    """
    out = Capture("stdout", limits.capture_bytes)
    err = Capture("stderr", limits.capture_bytes)
    # The command's own time starts now: connecting was bounded by the connect timeout.
    deadline = None if limits.timeout_s is None else time.monotonic() + limits.timeout_s
    cancel = limits.cancel

    def stop_reason() -> str | None:
        if cancel is not None and cancel.cancelled:
            return CANCELLED
        if deadline is not None and time.monotonic() >= deadline:
            return "timeout"
        return None

    def remaining() -> float | None:
        return None if deadline is None else max(deadline - time.monotonic(), 0.0)

    try:
        # stdin is /dev/null on the remote side (see remote_command), so no EOF is sent here:
        # paramiko builds an EOF under the channel's lock but sends it after, so a command
        # that ends at once could see the server's CLOSE answered first and our EOF arrive
        # for a channel the server has freed, and OpenSSH then drops the whole connection
        # (every other command on it too).
        _exec(channel, command, limits.exec_timeout_s, deadline, stop_reason)
        wakeup = channel.fileno()  # readable when either stream has data, or at EOF/close
        while True:
            at_eof = channel.eof_received or channel.closed  # checked first: data precedes EOF
            more = _read_some(channel, out, err)
            if at_eof and not more:
                break
            reason = stop_reason()
            if reason is not None:
                return _stopped(channel, reason, limits, target, argv, started_at, t0, out, err)
            if not more:
                select.select([wakeup], [], [], poll_interval(cancel, remaining()))
        while not channel.status_event.wait(poll_interval(cancel, remaining())):
            reason = stop_reason()
            if reason is not None:
                return _stopped(channel, reason, limits, target, argv, started_at, t0, out, err)
        status = channel.exit_status
    except _Stopped as stopped:
        if stopped.reason == "exec_timeout":
            channel.close()
            return ssh_result(
                target,
                argv,
                started_at,
                t0,
                timed_out=True,
                error=f"{target} accepted the session but did not start the command within "
                f"{stopped.waited_s:.1f}s",
                error_kind="exec_timeout",
            )
        return _stopped(channel, stopped.reason, limits, target, argv, started_at, t0, out, err)
    except (paramiko.SSHException, OSError, EOFError) as e:
        reason = stop_reason()
        if reason is not None:
            # The deadline (or a cancel) had come when the channel failed: under a flood the
            # failure is that stop's echo, and the run is what the stop makes it.
            return _stopped(channel, reason, limits, target, argv, started_at, t0, out, err)
        channel.close()
        return ssh_result(
            target,
            argv,
            started_at,
            t0,
            out=out,
            err=err,
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
            out=out,
            err=err,
            error="remote command ended without an exit status (killed by a signal?)",
            error_kind="no_exit_status",
        )
    return ssh_result(target, argv, started_at, t0, exit_status=status, out=out, err=err)


def _exec(
    channel: paramiko.Channel,
    command: str,
    exec_timeout_s: float,
    deadline: float | None,
    stop_reason: Callable[[], str | None],
) -> None:
    """Send the exec request and wait, bounded, for the server to accept it.

    This is ``Channel.exec_command`` with a limit on its wait (the RFC 4254 §6.5 request with
    want-reply set); paramiko offers no bounded form. Raises :class:`_Stopped` with
    ``exec_timeout`` when no answer came in time, ``SSHException`` when the server refused.
    """
    if channel.closed or not channel.active:
        raise paramiko.SSHException("the channel is not open")
    transport = channel.transport
    if transport is None:
        raise paramiko.SSHException("the connection is closed")
    message = paramiko.Message()
    message.add_byte(cMSG_CHANNEL_REQUEST)
    message.add_int(channel.remote_chanid)
    message.add_string("exec")
    message.add_boolean(True)
    message.add_string(command)
    asked = time.monotonic()
    limit = asked + exec_timeout_s
    if deadline is not None:
        limit = min(limit, deadline)
    getattr(channel, "_event_pending")()  # noqa: B009 (what exec_command does first)
    getattr(transport, "_send_user_message")(message)  # noqa: B009
    while not channel.event.wait(max(min(limit - time.monotonic(), 0.05), 0.0)):
        reason = stop_reason()
        if reason == CANCELLED:
            raise _Stopped(CANCELLED)
        if time.monotonic() >= limit:
            raise _Stopped("exec_timeout", time.monotonic() - asked)
    if not getattr(channel, "event_ready", False):
        error = transport.get_exception()
        raise error if error is not None else paramiko.SSHException("exec request refused")


def _read_some(channel: paramiko.Channel, out: Capture, err: Capture) -> bool:
    """Read what is buffered on both streams, a bounded amount; True if anything was read."""
    more = False
    for _ in range(_CHUNKS_PER_LOOK):
        got = False
        if channel.recv_ready():
            out.feed(channel.recv(_READ_CHUNK))
            got = True
        if channel.recv_stderr_ready():
            err.feed(channel.recv_stderr(_READ_CHUNK))
            got = True
        if not got:
            break
        more = True
    return more


def _stopped(
    channel: paramiko.Channel,
    reason: str,
    limits: Limits,
    target: str,
    argv: tuple[str, ...],
    started_at: str,
    t0: float,
    out: Capture,
    err: Capture,
) -> RunResult:
    """Stop waiting: ask the server to kill the command, close the channel, keep the output."""
    _send_kill(channel)
    _read_some(channel, out, err)
    channel.close()
    if reason == CANCELLED:
        assert limits.cancel is not None
        message = limits.cancel.message(time.monotonic() - t0)
        return ssh_result(
            target, argv, started_at, t0, out=out, err=err, error=message, error_kind=CANCELLED
        )
    return ssh_result(target, argv, started_at, t0, out=out, err=err, timed_out=True)


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
        message.add_byte(cMSG_CHANNEL_REQUEST)
        message.add_int(channel.remote_chanid)
        message.add_string("signal")
        message.add_boolean(False)
        message.add_string("KILL")
        getattr(channel.transport, "_send_user_message")(message)  # noqa: B009
    except Exception:
        pass  # the channel is closed next anyway; the remote process then dies of SIGPIPE
