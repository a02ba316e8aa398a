"""Run a probe's command on another machine over SSH (paramiko): SshRunner and SshTargetRunner.

This module decides where each connection goes (directly, or through ProxyJump hops), keeps it
in the pool and hands each command to a channel; the rest lives beside it, one job a module,
and the names callers use are re-exported here so they import everything from this one place:

* :mod:`.ssh_targets`: what a target spec means (``[user@]host[:port]``, ``~/.ssh/config``).
* :mod:`.ssh_config`: a host's options as OpenSSH computes them (``ssh -G``, or paramiko's
  parser with ``Include`` expanded where there is no ``ssh``).
* :mod:`.ssh_hostkeys`: the host-key policy, fingerprints, the host-key errors
  (unknown, changed, revoked) and :func:`trust_host`.
* :mod:`.ssh_known_hosts`: known_hosts read as OpenSSH reads it (``@revoked``,
  ``@cert-authority``, hashed names, patterns), and the lines written to it.
* :mod:`.ssh_agent`: the agent an ``IdentityAgent`` option names (paramiko knows only
  ``$SSH_AUTH_SOCK``'s).
* :mod:`.ssh_dial`: the TCP connection, the default keys to offer, and how a handshake ended.
* :mod:`.ssh_login`: the host key checked and the login on a dialled connection, each failure
  named by its cause.
* :mod:`.ssh_pool`: one reusable connection per ``(user, host, port)``.
* :mod:`.ssh_channel`: one command on one channel, with its deadline.

A failure is a result, never an exception; its ``error_kind`` is one of those listed on
:class:`SshRunner` (``closed``, ``jump`` and ``host_key_revoked`` among them).

Security choices, and why:

* Host keys are always verified, against the known_hosts files the SSH config names
  (``UserKnownHostsFile``, ``GlobalKnownHostsFile``, under ``HostKeyAlias`` if set), as ``ssh``
  reads them. An unknown key is refused (the message names the host, key type and SHA256
  fingerprint, and how to trust it) unless ``trust_unknown_host`` or the config's
  ``StrictHostKeyChecking accept-new`` (``no`` is taken as ``accept-new``) lets it in, recorded
  where ``ssh`` will find it; a *changed* key is refused louder and is never accepted
  automatically, because that is exactly what a man in the middle looks like; nor is a key
  known_hosts marks ``@revoked`` (``host_key_revoked``).
* The remote command is built by ``shlex.quote``-ing every argv element, so an argument such as
  ``$(touch /tmp/pwned)`` reaches the program as one literal string, with stdin from
  ``/dev/null`` (``ssh_channel.remote_command``). This assumes a POSIX login shell on the
  remote side (the case for the Linux GPU hosts casefile targets).
* Passwords are not supported and keys are never read by casefile itself: paramiko loads them
  from the agent, ``IdentityFile`` paths and the default ``~/.ssh/id_*`` files. Messages name key
  *paths*, never key material.

Connections are pooled per ``(user, host, port)``: consecutive commands to one host share one
TCP connection and SSH transport, each command on a new channel. A command that times out has
its channel closed (after a best-effort ``signal KILL``, which OpenSSH ignores for root logins)
but its connection stays in the pool and is reused; the remote process may outlive the channel,
ending when it next writes to its closed output (SIGPIPE) or on its own. A pooled connection
found dead when the next command needs it is discarded and dialled again, once.

TCP_NODELAY is set on every connection: without it each pooled command waited ~40 ms for the
server's delayed ACK (see benchmarks/README.ssh.md).

Every wait after the connection is bounded (see :mod:`.ssh_channel`), output is kept in bounded
captures, and a runner built with a :class:`~.cancel.CancelToken` stops within a poll interval
once it is cancelled. paramiko's own threads log what goes wrong on a dead connection (a silent
host's missing banner, with its traceback) to the ``paramiko`` logger; with no handler anywhere,
Python's last-resort handler printed those tracebacks on stderr. A :class:`logging.NullHandler`
on that logger keeps them off the terminal; an application that configures logging still gets
them through propagation.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import paramiko

from casefile.domain.events import utc_now
from casefile.errors import RunnerError
from casefile.probes.runners.cancel import CANCELLED, CancelToken
from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES
from casefile.probes.runners.fanout import DEFAULT_MAX_WORKERS, fan_out, fan_out_as_completed
from casefile.probes.runners.result import RunResult
from casefile.probes.runners.ssh_channel import (
    SOURCE,
    Limits,
    remote_command,
    run_on_channel,
    ssh_result,
)
from casefile.probes.runners.ssh_dial import dial
from casefile.probes.runners.ssh_hostkeys import (
    HostKeyChanged,
    HostKeyInfo,
    HostKeyRevoked,
    HostKeyUnknown,
    KnownHostsFiles,
    fingerprint,
    trust_host,
)
from casefile.probes.runners.ssh_login import LoginOptions, login
from casefile.probes.runners.ssh_pool import ConnectFailure, ConnectionPool
from casefile.probes.runners.ssh_targets import (
    DEFAULT_CONNECT_TIMEOUT_S,
    MAX_JUMP_HOPS,
    SSH_PORT,
    SYSTEM_KNOWN_HOSTS_FILES,
    PoolKey,
    SshTarget,
    default_known_hosts_path,
    default_ssh_config_path,
    host_port,
    load_ssh_config,
    parse_target,
    resolve_target,
)

__all__ = [
    "DEFAULT_COMMAND_TIMEOUT_S",
    "DEFAULT_CONNECT_TIMEOUT_S",
    "SSH_PORT",
    "SYSTEM_KNOWN_HOSTS_FILES",
    "ConnectionPool",
    "HostKeyChanged",
    "HostKeyInfo",
    "HostKeyRevoked",
    "HostKeyUnknown",
    "KnownHostsFiles",
    "PoolKey",
    "SshRunner",
    "SshTarget",
    "SshTargetRunner",
    "default_known_hosts_path",
    "default_ssh_config_path",
    "fingerprint",
    "parse_target",
    "resolve_target",
    "trust_host",
]

DEFAULT_COMMAND_TIMEOUT_S = 60.0

logging.getLogger("paramiko").addHandler(logging.NullHandler())


class SshRunner:
    """Runs argv lists on SSH targets, reusing one connection per (user, host, port).

    Every failure (bad target, DNS, refused, timeout, auth, host key, jump host) comes back as a
    :class:`RunResult` with ``error`` and ``error_kind`` set and ``exit_status`` None; the kinds
    are ``invalid`` (an empty command), ``config``, ``dns``, ``refused``, ``connect``,
    ``connect_timeout``, ``closed`` (the server dropped the connection before or during key
    exchange), ``auth``, ``host_key_unknown``, ``host_key_changed``, ``host_key_revoked``
    (known_hosts marks the key ``@revoked``; never accepted, not even when trusting), ``jump``
    (a ProxyJump hop could not reach the target; a hop that fails to connect itself gives its
    own kind), ``ssh``, ``channel``, ``exec_timeout``, ``no_exit_status`` and ``cancelled``.

    Options come from the SSH config as OpenSSH computes them (:mod:`.ssh_config`), host keys
    from known_hosts as OpenSSH reads it (:mod:`.ssh_known_hosts`) and agent keys from the
    agent that ``IdentityAgent`` names (:mod:`.ssh_agent`).
    """

    source = SOURCE

    def __init__(
        self,
        *,
        ssh_config_path: Path | None = None,
        known_hosts_path: Path | None = None,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        default_timeout_s: float | None = DEFAULT_COMMAND_TIMEOUT_S,
        trust_unknown_host: bool = False,
        allow_agent: bool = True,
        look_for_keys: bool = True,
        identity_files: Sequence[str | Path] = (),
        capture_bytes: int = DEFAULT_CAPTURE_BYTES,
        cancel: CancelToken | None = None,
    ) -> None:
        """Without ``ssh_config_path``, the config is what plain ``ssh`` reads (``~/.ssh/config``
        and ``/etc/ssh/ssh_config``); a path is read alone, as ``ssh -F`` reads it. Without
        ``known_hosts_path``, each target's host keys are in the files its config names
        (``UserKnownHostsFile``, default ``~/.ssh/known_hosts``, and ``GlobalKnownHostsFile``);
        a path replaces them all (see :class:`~.ssh_hostkeys.KnownHostsFiles`). ``~`` is the
        passwd home, as for ``ssh`` (see :func:`~.ssh_config.ssh_home`). ``trust_unknown_host``
        accepts an unknown key and records it, as ``StrictHostKeyChecking accept-new`` in the
        config does for its hosts; a changed or revoked key is refused all the same.

        ``capture_bytes`` bounds what is kept of each stream; ``cancel``, once cancelled, stops
        every command of this runner (results say ``cancelled``).
        """
        self._ssh_config_path = ssh_config_path
        self._known_hosts_path = known_hosts_path
        self.connect_timeout_s = connect_timeout_s
        self.default_timeout_s = default_timeout_s
        self.trust_unknown_host = trust_unknown_host
        self._allow_agent = allow_agent
        self._look_for_keys = look_for_keys
        self._identity_files = tuple(str(p) for p in identity_files)
        self._capture_bytes = capture_bytes
        self.cancel = cancel
        self._ssh_config: paramiko.SSHConfig | None = None
        self._config_lock = threading.Lock()
        self._resolved: dict[str, SshTarget] = {}
        self.pool = ConnectionPool()

    def __enter__(self) -> SshRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close all pooled connections."""
        self.pool.close()

    def resolve(self, target: str) -> SshTarget:
        """Apply the runner's ssh config to ``target`` (raises ``RunnerError`` if unusable)."""
        with self._config_lock:
            resolved = self._resolved.get(target)
            if resolved is not None:
                return resolved
            if self._ssh_config is None:
                self._ssh_config = load_ssh_config(self._ssh_config_path)
            # Cached: paramiko's lookup costs ~0.3 ms, a noticeable share of a pooled command.
            resolved = resolve_target(target, ssh_config=self._ssh_config)
            self._resolved[target] = resolved
            return resolved

    def target(self, target: str, *, connect_timeout_s: float | None = None) -> SshTargetRunner:
        """A :class:`~casefile.probes.runners.fanout.Runner` bound to one target."""
        return SshTargetRunner(self, target, connect_timeout_s)

    def transport(self, target: str) -> paramiko.Transport | None:
        """The pooled transport for ``target``, if a connection is open (for reuse checks)."""
        return self.pool.transport(self.resolve(target).key)

    def run(
        self,
        target: str,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        connect_timeout_s: float | None = None,
    ) -> RunResult:
        """Run ``argv`` on ``target`` and return what happened; never raises for a bad host."""
        started_at = utc_now()
        t0 = time.monotonic()
        args = tuple(argv)

        def failed(message: str, kind: str, timed_out: bool = False) -> RunResult:
            return ssh_result(
                target, args, started_at, t0, error=message, error_kind=kind, timed_out=timed_out
            )

        if not args:
            return failed("empty command", "invalid")
        cancel = self.cancel
        if cancel is not None and cancel.cancelled:
            return failed(cancel.message(0.0), CANCELLED)
        try:
            resolved = self.resolve(target)
        except RunnerError as e:
            return failed(str(e), "config")
        connect_timeout = connect_timeout_s or resolved.connect_timeout_s or self.connect_timeout_s
        timeout = self.default_timeout_s if timeout_s is None else timeout_s

        with self.pool.running(resolved.key):  # counted from the first look at the connection
            return self._run_on(
                resolved, args, target, started_at, t0, timeout, connect_timeout, failed
            )

    def _run_on(
        self,
        resolved: SshTarget,
        args: tuple[str, ...],
        target: str,
        started_at: str,
        t0: float,
        timeout: float | None,
        connect_timeout: float,
        failed: Callable[..., RunResult],
    ) -> RunResult:
        """One command on ``resolved``'s pooled connection (dialled if need be); ``failed``
        builds the run's failure, as :meth:`run` does."""
        cancel = self.cancel
        for attempt in range(2):
            try:
                client = self.pool.acquire(
                    resolved.key, lambda: self._connect(resolved, connect_timeout)
                )
            except ConnectFailure as e:
                return failed(str(e), e.kind, e.timed_out)
            if cancel is not None and cancel.cancelled:  # the connect itself cannot be stopped
                return failed(cancel.message(time.monotonic() - t0), CANCELLED)
            transport = client.get_transport()
            try:
                if transport is None:
                    raise paramiko.SSHException("connection is closed")
                channel = transport.open_session(timeout=connect_timeout)
                break
            except (paramiko.SSHException, OSError, EOFError) as e:
                alive = transport is not None and transport.is_active()
                dropped = isinstance(e, OSError | EOFError) or not alive
                if not dropped and self.pool.in_use(resolved.key) > 1:
                    # Other commands are running on this connection, so it works (a channel
                    # open timed out on a loaded host): closing it would end theirs too. Try
                    # once more on it, then fail this command alone.
                    if attempt:
                        why = f"cannot open a session on {resolved.address}: {e}"
                        return failed(why, "channel", "timeout" in str(e).lower())
                    continue
                # A pooled connection the server has dropped since (or whose path went
                # silent, with nobody else on it); dial once more.
                self.pool.discard(resolved.key, client)
                if attempt:
                    return failed(f"cannot open a session on {resolved.address}: {e}", "channel")
        command = remote_command(args)
        limits = Limits(timeout, connect_timeout, self._capture_bytes, cancel)
        return run_on_channel(channel, command, limits, target, args, started_at, t0)

    def _connect(
        self, target: SshTarget, timeout: float, chain: tuple[PoolKey, ...] = ()
    ) -> paramiko.SSHClient:
        """Dial (directly, or through the target's ProxyJump hops), verify the host key and
        authenticate, within ``timeout`` seconds or so for each connection (a hop, then the
        target through it).

        ``chain`` holds the pool keys of the connections waiting on this one (the hosts this is
        a jump host for), to refuse a ProxyJump loop instead of waiting on ourselves.
        """
        deadline = time.monotonic() + timeout
        sock: socket.socket | paramiko.Channel
        if target.proxy_jump:
            sock = self._through_jump(target, timeout, (*chain, target.key))
            # the handshake through the hop has its own timeout, as a hop's connection has
            deadline = time.monotonic() + timeout
        else:
            sock = dial(target, timeout)
        options = LoginOptions(
            known_hosts_path=self._known_hosts_path,
            trust_unknown_host=self.trust_unknown_host,
            allow_agent=self._allow_agent,
            look_for_keys=self._look_for_keys,
            identity_files=self._identity_files,
        )
        return login(target, sock, options, timeout=timeout, deadline=deadline)

    def _through_jump(
        self, target: SshTarget, timeout: float, chain: tuple[PoolKey, ...]
    ) -> paramiko.Channel:
        """A ``direct-tcpip`` channel to ``target`` from its last ProxyJump hop.

        As with OpenSSH, the hops before the last are the last hop's own jump chain, and the
        first hop is dialled as its own config says (its own ProxyJump included). Each hop is an
        ordinary pooled connection, its host key verified like any other.
        """
        started = time.monotonic()
        *before, last = target.proxy_jump
        where = host_port(target.hostname, target.port)
        try:
            jump = self.resolve(last)
        except RunnerError as e:
            raise ConnectFailure(f"jump host {last} for {target.spec}: {e}", "config") from e
        if before:
            jump = dataclasses.replace(jump, proxy_jump=tuple(before))
        if jump.key in chain or len(chain) > MAX_JUMP_HOPS:
            raise ConnectFailure(
                f"ProxyJump for {target.spec} loops back through {jump.address} (or is longer "
                f"than {MAX_JUMP_HOPS} hops); check ProxyJump in the SSH config",
                "config",
            )

        def dial_jump() -> paramiko.SSHClient:
            return self._connect(jump, max(timeout - (time.monotonic() - started), 0.1), chain)

        for attempt in range(2):
            try:
                client = self.pool.acquire(jump.key, dial_jump)
            except ConnectFailure as e:
                raise ConnectFailure(f"jump host {last}: {e}", e.kind, e.timed_out) from e
            # Each hop has the whole timeout, as OpenSSH's ConnectTimeout applies to each
            # connection: what is left after waiting for a jump connection another target was
            # dialling (the fan-out shares it) could be a tenth of a second on a loaded host.
            left = timeout
            transport = client.get_transport()
            try:
                if transport is None:
                    raise paramiko.SSHException("connection is closed")
                return transport.open_channel(
                    "direct-tcpip", (target.hostname, target.port), ("127.0.0.1", 0), timeout=left
                )
            except paramiko.ChannelException as e:
                raise ConnectFailure(
                    f"jump host {last} could not connect to {where}: {e.text}", "jump"
                ) from e
            except (paramiko.SSHException, OSError, EOFError) as e:
                alive = transport is not None and transport.is_active()
                if not attempt and alive and not isinstance(e, OSError | EOFError):
                    # the jump connection carries the other targets' connections: a channel
                    # that timed out on a loaded host is tried once more before closing them
                    continue
                self.pool.discard(jump.key, client)  # dropped since it was pooled: dial again
                if attempt:
                    raise ConnectFailure(
                        f"cannot open a channel to {where} through jump host {last}: {e}", "jump"
                    ) from e
        raise AssertionError("unreachable")

    def _bind(
        self, targets: Sequence[str], connect_timeout_s: float | None
    ) -> list[SshTargetRunner]:
        return [self.target(t, connect_timeout_s=connect_timeout_s) for t in targets]

    def fan_out(
        self,
        targets: Sequence[str],
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        connect_timeout_s: float | None = None,
        max_workers: int = DEFAULT_MAX_WORKERS,
    ) -> list[RunResult]:
        """Run ``argv`` on every target concurrently; results in the order of ``targets``."""
        runners = self._bind(targets, connect_timeout_s)
        return fan_out(runners, argv, timeout_s=timeout_s, max_workers=max_workers)

    def fan_out_as_completed(
        self,
        targets: Sequence[str],
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        connect_timeout_s: float | None = None,
        max_workers: int = DEFAULT_MAX_WORKERS,
    ) -> Iterator[RunResult]:
        """Yield each target's result as soon as it exists (``result.host`` is the target)."""
        runners = self._bind(targets, connect_timeout_s)
        for _, result in fan_out_as_completed(
            runners, argv, timeout_s=timeout_s, max_workers=max_workers
        ):
            yield result


@dataclass(frozen=True, slots=True)
class SshTargetRunner:
    """One SSH target bound to a runner, so it fits wherever a local runner does."""

    runner: SshRunner
    target: str
    connect_timeout_s: float | None = None
    source = "ssh"

    @property
    def host(self) -> str:
        return self.target

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> RunResult:
        return self.runner.run(
            self.target, argv, timeout_s=timeout_s, connect_timeout_s=self.connect_timeout_s
        )
