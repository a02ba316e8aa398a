"""Run a probe's command on another machine over SSH (paramiko): SshRunner and SshTargetRunner.

This module dials, authenticates and hands each command to a channel; the rest lives beside it,
one job a module, and is re-exported here so callers import everything from this one place:

* :mod:`.ssh_targets`: what a target spec means (``[user@]host[:port]``, ``~/.ssh/config``).
* :mod:`.ssh_hostkeys`: known_hosts, fingerprints, the host-key errors and :func:`trust_host`.
* :mod:`.ssh_pool`: one reusable connection per ``(user, host, port)``.
* :mod:`.ssh_channel`: one command on one channel, with its deadline.

Security choices, and why:

* Host keys are verified against ``known_hosts`` by default. An unknown key is refused (the
  message names the host, key type and SHA256 fingerprint, and how to trust it); a *changed* key
  is refused louder and is never accepted automatically, not even with ``trust_unknown_host``,
  because that is exactly what a man in the middle looks like.
* The remote command is built by ``shlex.quote``-ing every argv element, so an argument such as
  ``$(touch /tmp/pwned)`` reaches the program as one literal string. This assumes a POSIX login
  shell on the remote side (the case for the Linux GPU hosts casefile targets).
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
"""

from __future__ import annotations

import shlex
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import paramiko

from casefile.domain.events import utc_now
from casefile.errors import RunnerError
from casefile.probes.runners.fanout import DEFAULT_MAX_WORKERS, fan_out, fan_out_as_completed
from casefile.probes.runners.result import RunResult
from casefile.probes.runners.ssh_channel import SOURCE, run_on_channel, ssh_result
from casefile.probes.runners.ssh_hostkeys import (
    SYSTEM_KNOWN_HOSTS,
    HostKeyChanged,
    HostKeyInfo,
    HostKeyPolicy,
    HostKeyUnknown,
    default_known_hosts_path,
    fingerprint,
    trust_host,
)
from casefile.probes.runners.ssh_pool import ConnectFailure, ConnectionPool
from casefile.probes.runners.ssh_targets import (
    DEFAULT_CONNECT_TIMEOUT_S,
    SSH_PORT,
    PoolKey,
    SshTarget,
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
    "SYSTEM_KNOWN_HOSTS",
    "ConnectionPool",
    "HostKeyChanged",
    "HostKeyInfo",
    "HostKeyUnknown",
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


class SshRunner:
    """Runs argv lists on SSH targets, reusing one connection per (user, host, port).

    Every failure (bad target, DNS, refused, timeout, auth, host key) comes back as a
    :class:`RunResult` with ``error`` and ``error_kind`` set and ``exit_status`` None; the kinds
    are ``config``, ``dns``, ``refused``, ``connect``, ``connect_timeout``, ``auth``,
    ``host_key_unknown``, ``host_key_changed``, ``ssh``, ``channel`` and ``no_exit_status``.
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
    ) -> None:
        """Paths default to ``~/.ssh/config`` and ``~/.ssh/known_hosts`` (plus the system file)."""
        self._ssh_config_path = ssh_config_path or default_ssh_config_path()
        self._known_hosts_path = known_hosts_path or default_known_hosts_path()
        self._use_system_known_hosts = known_hosts_path is None
        self.connect_timeout_s = connect_timeout_s
        self.default_timeout_s = default_timeout_s
        self.trust_unknown_host = trust_unknown_host
        self._allow_agent = allow_agent
        self._look_for_keys = look_for_keys
        self._identity_files = tuple(str(p) for p in identity_files)
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
        try:
            resolved = self.resolve(target)
        except RunnerError as e:
            return failed(str(e), "config")
        connect_timeout = connect_timeout_s or resolved.connect_timeout_s or self.connect_timeout_s
        timeout = self.default_timeout_s if timeout_s is None else timeout_s

        for attempt in range(2):
            try:
                client = self.pool.acquire(
                    resolved.key, lambda: self._connect(resolved, connect_timeout)
                )
            except ConnectFailure as e:
                return failed(str(e), e.kind, e.timed_out)
            transport = client.get_transport()
            try:
                if transport is None:
                    raise paramiko.SSHException("connection is closed")
                channel = transport.open_session(timeout=connect_timeout)
                break
            except (paramiko.SSHException, OSError, EOFError) as e:
                # A pooled connection the server has dropped since; dial once more.
                self.pool.discard(resolved.key, client)
                if attempt:
                    return failed(f"cannot open a session on {resolved.address}: {e}", "channel")
        command = " ".join(shlex.quote(a) for a in args)
        return run_on_channel(channel, command, timeout, target, args, started_at, t0)

    def _connect(self, target: SshTarget, timeout: float) -> paramiko.SSHClient:
        """Dial, verify the host key and authenticate, all within ``timeout`` seconds or so."""
        deadline = time.monotonic() + timeout
        where = host_port(target.hostname, target.port)
        try:
            sock = socket.create_connection((target.hostname, target.port), timeout)
        except socket.gaierror as e:
            raise ConnectFailure(
                f"cannot resolve host {target.hostname}: {e.strerror}", "dns"
            ) from e
        except ConnectionRefusedError as e:
            raise ConnectFailure(f"connection refused by {where}", "refused") from e
        except TimeoutError as e:
            raise ConnectFailure(
                f"connecting to {where} timed out after {timeout:g}s", "connect_timeout", True
            ) from e
        except OSError as e:
            raise ConnectFailure(f"cannot connect to {where}: {e.strerror or e}", "connect") from e

        # Without TCP_NODELAY, a channel-open written right after the previous channel's close
        # waits for the server's delayed ACK (Nagle): ~40 ms added to every pooled command.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = paramiko.SSHClient()
        host_keys = client.get_host_keys()
        try:
            if self._use_system_known_hosts and SYSTEM_KNOWN_HOSTS.exists():
                client.load_system_host_keys(str(SYSTEM_KNOWN_HOSTS))
            if self._known_hosts_path.exists():
                host_keys.load(str(self._known_hosts_path))
        except (OSError, paramiko.SSHException) as e:
            sock.close()
            raise ConnectFailure(f"cannot read known_hosts: {e}", "config") from e
        client.set_missing_host_key_policy(
            HostKeyPolicy(target.spec, self._known_hosts_path, self.trust_unknown_host)
        )
        key_files = [p for p in (*target.identity_files, *self._identity_files) if Path(p).exists()]
        use_defaults = not target.identities_only
        remaining = max(deadline - time.monotonic(), 0.1)
        try:
            client.connect(
                target.hostname,
                target.port,
                username=target.user,
                # paramiko takes a list here although its stubs only admit one path
                key_filename=cast(str, key_files) if key_files else None,
                allow_agent=self._allow_agent and use_defaults,
                look_for_keys=self._look_for_keys and use_defaults,
                sock=sock,
                timeout=remaining,
                banner_timeout=remaining,
                auth_timeout=remaining,
                channel_timeout=timeout,
                compress=False,
            )
        except HostKeyUnknown as e:
            client.close()
            raise ConnectFailure(str(e), "host_key_unknown") from e
        except paramiko.BadHostKeyException as e:
            client.close()
            changed = HostKeyChanged(
                target.spec, target.known_hosts_name, e.key, e.expected_key, self._known_hosts_path
            )
            raise ConnectFailure(str(changed), "host_key_changed") from e
        except Exception as e:  # SSHException, EOFError, socket errors mid-handshake …
            # paramiko often reports a failed login as the last key-loading error rather than
            # AuthenticationException, so the phase decides: past key exchange means auth failed.
            past_kex = _key_exchange_done(client)
            client.close()
            timed_out = time.monotonic() >= deadline - 0.05 or "banner" in str(e)
            if isinstance(e, paramiko.AuthenticationException) or (past_kex and not timed_out):
                tried = [f"identity files {key_files}" if key_files else "no identity files"]
                if self._look_for_keys and use_defaults:
                    tried.append("default keys in ~/.ssh")
                if self._allow_agent and use_defaults:
                    tried.append("the SSH agent")
                raise ConnectFailure(
                    f"authentication failed for {target.address} (tried {', '.join(tried)}): {e}",
                    "auth",
                ) from e
            if timed_out:
                raise ConnectFailure(
                    f"{where} did not complete the SSH handshake within {timeout:g}s",
                    "connect_timeout",
                    True,
                ) from e
            raise ConnectFailure(f"SSH handshake with {where} failed: {e}", "ssh") from e
        transport = client.get_transport()
        if transport is not None:
            transport.set_keepalive(30)  # keep pooled connections through idle NAT/firewalls
        return client

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


def _key_exchange_done(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    if transport is None:
        return False
    try:
        transport.get_remote_server_key()
    except paramiko.SSHException:
        return False
    return True
