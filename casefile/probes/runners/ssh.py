"""Run a probe's command on another machine over SSH (paramiko).

Targets are written the way people type them to ``ssh``: ``[user@]host[:port]`` or a ``Host``
alias from ``~/.ssh/config`` (``HostName``, ``User``, ``Port``, ``IdentityFile``,
``IdentitiesOnly`` and ``ConnectTimeout`` are honoured; ``ProxyJump``/``ProxyCommand`` are refused
with a clear error rather than silently connecting somewhere else).

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

import base64
import getpass
import hashlib
import os
import select
import shlex
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import paramiko

from casefile.domain.events import utc_now
from casefile.errors import RunnerError
from casefile.probes.runners.fanout import DEFAULT_MAX_WORKERS, fan_out, fan_out_as_completed
from casefile.probes.runners.result import RunResult

SSH_PORT = 22
DEFAULT_CONNECT_TIMEOUT_S = 10.0
DEFAULT_COMMAND_TIMEOUT_S = 60.0
_READ_CHUNK = 1 << 16

PoolKey = tuple[str, str, int]


# ---------------------------------------------------------------------------------------------
# Targets


@dataclass(frozen=True, slots=True)
class SshTarget:
    """A target after ``~/.ssh/config`` has been applied: where to dial and as whom."""

    spec: str
    hostname: str
    port: int
    user: str
    identity_files: tuple[str, ...] = ()
    identities_only: bool = False
    connect_timeout_s: float | None = None

    @property
    def key(self) -> PoolKey:
        """The connection-pool key: one connection per (user, host, port)."""
        return (self.user, self.hostname, self.port)

    @property
    def address(self) -> str:
        """``user@host:port`` for messages."""
        return f"{self.user}@{_host_port(self.hostname, self.port)}"

    @property
    def known_hosts_name(self) -> str:
        """The name OpenSSH uses for this host in known_hosts (``[host]:port`` off port 22)."""
        return self.hostname if self.port == SSH_PORT else f"[{self.hostname}]:{self.port}"


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_target(spec: str) -> tuple[str | None, str, int | None]:
    """Split ``[user@]host[:port]`` (``[v6addr]:port`` for IPv6) into its parts."""
    text = spec.strip()
    user: str | None = None
    if "@" in text:
        user, _, text = text.rpartition("@")  # like ssh: the host is after the last '@'
        if not user:
            raise RunnerError(f"SSH target {spec!r}: empty user name before '@'")
    port_text: str | None = None
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise RunnerError(f"SSH target {spec!r}: expected [address]:port")
        port_text = rest[1:] if rest else None
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host = text  # a bare IPv6 address has several ':' and no port
    if not host:
        raise RunnerError(f"SSH target {spec!r}: no host name")
    port: int | None = None
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise RunnerError(f"SSH target {spec!r}: port {port_text!r} is not 1-65535")
        port = int(port_text)
    return user, host, port


def _load_ssh_config(path: Path) -> paramiko.SSHConfig:
    if not path.exists():
        return paramiko.SSHConfig()
    try:
        return paramiko.SSHConfig.from_path(str(path))
    except Exception as e:  # a syntax error or an unsupported Match keyword
        raise RunnerError(f"cannot read SSH config {path}: {e}") from e


def resolve_target(
    spec: str, *, ssh_config: paramiko.SSHConfig | None = None, config_path: Path | None = None
) -> SshTarget:
    """Apply the ssh config to ``spec``; explicit ``user@`` and ``:port`` win over the config."""
    user, host, port = parse_target(spec)
    if ssh_config is None:
        ssh_config = _load_ssh_config(config_path or default_ssh_config_path())
    try:
        options = ssh_config.lookup(host)
    except Exception as e:
        raise RunnerError(f"SSH target {spec!r}: cannot apply SSH config: {e}") from e
    for unsupported in ("proxyjump", "proxycommand"):
        if options.get(unsupported, "none").lower() != "none":
            raise RunnerError(
                f"SSH target {spec!r}: {unsupported} is set in the SSH config but casefile's SSH "
                "runner does not support jump hosts; run the probe on the jump host, or paste "
                "the output"
            )
    try:
        config_port = int(options.get("port", SSH_PORT))
        config_timeout = options.get("connecttimeout")
        connect_timeout = float(config_timeout) if config_timeout else None
    except ValueError as e:
        raise RunnerError(f"SSH target {spec!r}: bad value in SSH config: {e}") from e
    identity_files = tuple(
        os.path.expanduser(p) for p in options.get("identityfile", []) if isinstance(p, str)
    )
    return SshTarget(
        spec=spec,
        hostname=options.get("hostname", host),
        port=port if port is not None else config_port,
        user=user or options.get("user") or getpass.getuser(),
        identity_files=identity_files,
        identities_only=options.get("identitiesonly", "no").lower() == "yes",
        connect_timeout_s=connect_timeout,
    )


def default_ssh_config_path() -> Path:
    return Path.home() / ".ssh" / "config"


def default_known_hosts_path() -> Path:
    return Path.home() / ".ssh" / "known_hosts"


SYSTEM_KNOWN_HOSTS = Path("/etc/ssh/ssh_known_hosts")


# ---------------------------------------------------------------------------------------------
# Host keys


def fingerprint(key: paramiko.PKey) -> str:
    """The key's fingerprint as OpenSSH prints it: ``SHA256:`` + unpadded base64."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


class HostKeyUnknown(RunnerError):
    """The server's key is not in known_hosts and trusting it was not asked for."""

    def __init__(self, target: str, name: str, key: paramiko.PKey, known_hosts: Path) -> None:
        self.known_hosts_name = name
        self.key_type = key.get_name()
        self.fingerprint = fingerprint(key)
        super().__init__(
            f"host key for {target} ({name}) is not trusted: {self.key_type} {self.fingerprint} "
            f"is not in {known_hosts}; check the fingerprint with the host's owner, then trust it "
            f"with trust_host({target!r}) or trust_unknown_host=True"
        )


class HostKeyChanged(RunnerError):
    """known_hosts has a different key for this host: possibly a man in the middle."""

    def __init__(
        self,
        target: str,
        name: str,
        got: paramiko.PKey,
        expected: paramiko.PKey,
        known_hosts: Path,
    ) -> None:
        self.known_hosts_name = name
        self.key_type = got.get_name()
        self.fingerprint = fingerprint(got)
        self.expected_fingerprint = fingerprint(expected)
        super().__init__(
            f"host key CHANGED for {target} ({name}) - POSSIBLE MAN-IN-THE-MIDDLE ATTACK, refusing "
            f"to connect: server sent {self.key_type} {self.fingerprint}, {known_hosts} has "
            f"{expected.get_name()} {self.expected_fingerprint}; if the host was reinstalled, "
            f"remove the old key (ssh-keygen -R '{name}' -f {known_hosts}) and trust it again"
        )


_known_hosts_lock = threading.Lock()


def _append_known_host(path: Path, name: str, key: paramiko.PKey) -> None:
    """Append one entry, leaving the rest of the file (comments, hashed names) as it was."""
    line = paramiko.hostkeys.HostKeyEntry([name], key).to_line()
    if line is None:
        raise RunnerError(f"cannot write a known_hosts entry for {name}")
    with _known_hosts_lock:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        needs_newline = path.exists() and path.stat().st_size > 0 and not _ends_with_newline(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="ascii") as f:
            f.write(("\n" if needs_newline else "") + line)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


class _HostKeyPolicy(paramiko.MissingHostKeyPolicy):
    """Refuse unknown keys, or accept and save them when the caller explicitly trusts."""

    def __init__(self, target: str, known_hosts: Path, trust: bool) -> None:
        self._target = target
        self._known_hosts = known_hosts
        self._trust = trust

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        if not self._trust:
            raise HostKeyUnknown(self._target, hostname, key, self._known_hosts)
        client.get_host_keys().add(hostname, key.get_name(), key)
        _append_known_host(self._known_hosts, hostname, key)


@dataclass(frozen=True, slots=True)
class HostKeyInfo:
    """What :func:`trust_host` found: the key and whether it was newly added."""

    known_hosts_name: str
    key_type: str
    fingerprint: str
    added: bool


def trust_host(
    target: str,
    *,
    known_hosts_path: Path | None = None,
    ssh_config_path: Path | None = None,
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
) -> HostKeyInfo:
    """Fetch ``target``'s host key and append it to known_hosts unless it is already there.

    This is the explicit "I have checked the fingerprint" step. A host whose known key differs
    raises :class:`HostKeyChanged`; nothing is replaced. Other failures raise ``RunnerError``.
    """
    resolved = resolve_target(target, config_path=ssh_config_path)
    known_hosts = known_hosts_path or default_known_hosts_path()
    try:
        sock = socket.create_connection((resolved.hostname, resolved.port), connect_timeout_s)
    except OSError as e:
        raise RunnerError(f"cannot fetch the host key of {target}: {e}") from e
    transport = paramiko.Transport(sock)
    try:
        transport.banner_timeout = connect_timeout_s
        transport.start_client(timeout=connect_timeout_s)
        key = transport.get_remote_server_key()
    except (paramiko.SSHException, OSError, EOFError) as e:
        raise RunnerError(f"cannot fetch the host key of {target}: {e}") from e
    finally:
        transport.close()
    host_keys = paramiko.HostKeys()
    if known_hosts.exists():
        host_keys.load(str(known_hosts))
    name = resolved.known_hosts_name
    known = host_keys.lookup(name)
    info = HostKeyInfo(name, key.get_name(), fingerprint(key), added=known is None)
    if known is None:
        _append_known_host(known_hosts, name, key)
    elif known.get(key.get_name()) != key:
        expected = known.get(key.get_name()) or next(iter(known.values()))
        raise HostKeyChanged(target, name, key, expected, known_hosts)
    return info


# ---------------------------------------------------------------------------------------------
# Connection pool


class _ConnectFailure(Exception):
    """Internal: a connection attempt failed; carries what the RunResult should say."""

    def __init__(self, message: str, kind: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.timed_out = timed_out


@dataclass
class _PoolEntry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    client: paramiko.SSHClient | None = None
    attempts: int = 0
    last_failure: _ConnectFailure | None = None


class ConnectionPool:
    """Open SSH connections keyed by ``(user, host, port)``; thread-safe.

    Dialling happens under a per-key lock, so many threads asking for one new host share one
    connection, and a slow host never blocks the others. Threads that queued behind a failed
    attempt get that failure rather than dialling the dead host again one after another.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[PoolKey, _PoolEntry] = {}
        self.connect_count = 0  # TCP connections opened, for tests and benchmarks

    def acquire(
        self, key: PoolKey, connect: Callable[[], paramiko.SSHClient]
    ) -> paramiko.SSHClient:
        """The live connection for ``key``, dialling with ``connect`` if there is none."""
        with self._lock:
            entry = self._entries.setdefault(key, _PoolEntry())
            seen_attempts = entry.attempts
        with entry.lock:
            client = entry.client
            if client is not None and _is_alive(client):
                return client
            if entry.attempts != seen_attempts and entry.last_failure is not None:
                raise entry.last_failure
            if client is not None:
                client.close()
                entry.client = None
            entry.attempts += 1
            with self._lock:
                self.connect_count += 1
            try:
                entry.client = connect()
            except _ConnectFailure as failure:
                entry.last_failure = failure
                raise
            entry.last_failure = None
            return entry.client

    def discard(self, key: PoolKey, client: paramiko.SSHClient) -> None:
        """Close ``client`` and forget it, if it is still the pooled connection for ``key``."""
        with self._lock:
            entry = self._entries.get(key)
        client.close()
        if entry is not None:
            with entry.lock:
                if entry.client is client:
                    entry.client = None

    def transport(self, key: PoolKey) -> paramiko.Transport | None:
        """The pooled transport for ``key`` (to check reuse), or None."""
        with self._lock:
            entry = self._entries.get(key)
        client = entry.client if entry is not None else None
        return client.get_transport() if client is not None else None

    def close(self) -> None:
        """Close every pooled connection."""
        with self._lock:
            entries = list(self._entries.values())
            self._entries.clear()
        for entry in entries:
            with entry.lock:
                if entry.client is not None:
                    entry.client.close()
                    entry.client = None


def _key_exchange_done(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    if transport is None:
        return False
    try:
        transport.get_remote_server_key()
    except paramiko.SSHException:
        return False
    return True


def _is_alive(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    return transport is not None and transport.is_active()


# ---------------------------------------------------------------------------------------------
# The runner


class SshRunner:
    """Runs argv lists on SSH targets, reusing one connection per (user, host, port).

    Every failure (bad target, DNS, refused, timeout, auth, host key) comes back as a
    :class:`RunResult` with ``error`` and ``error_kind`` set and ``exit_status`` None; the kinds
    are ``config``, ``dns``, ``refused``, ``connect``, ``connect_timeout``, ``auth``,
    ``host_key_unknown``, ``host_key_changed``, ``ssh``, ``channel`` and ``no_exit_status``.
    """

    source = "ssh"

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
                self._ssh_config = _load_ssh_config(self._ssh_config_path)
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
            return _result(
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
            except _ConnectFailure as e:
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
        return _run_on_channel(channel, command, timeout, target, args, started_at, t0)

    def _connect(self, target: SshTarget, timeout: float) -> paramiko.SSHClient:
        """Dial, verify the host key and authenticate, all within ``timeout`` seconds or so."""
        deadline = time.monotonic() + timeout
        where = _host_port(target.hostname, target.port)
        try:
            sock = socket.create_connection((target.hostname, target.port), timeout)
        except socket.gaierror as e:
            raise _ConnectFailure(
                f"cannot resolve host {target.hostname}: {e.strerror}", "dns"
            ) from e
        except ConnectionRefusedError as e:
            raise _ConnectFailure(f"connection refused by {where}", "refused") from e
        except TimeoutError as e:
            raise _ConnectFailure(
                f"connecting to {where} timed out after {timeout:g}s", "connect_timeout", True
            ) from e
        except OSError as e:
            raise _ConnectFailure(f"cannot connect to {where}: {e.strerror or e}", "connect") from e

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
            raise _ConnectFailure(f"cannot read known_hosts: {e}", "config") from e
        client.set_missing_host_key_policy(
            _HostKeyPolicy(target.spec, self._known_hosts_path, self.trust_unknown_host)
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
            raise _ConnectFailure(str(e), "host_key_unknown") from e
        except paramiko.BadHostKeyException as e:
            client.close()
            changed = HostKeyChanged(
                target.spec, target.known_hosts_name, e.key, e.expected_key, self._known_hosts_path
            )
            raise _ConnectFailure(str(changed), "host_key_changed") from e
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
                raise _ConnectFailure(
                    f"authentication failed for {target.address} (tried {', '.join(tried)}): {e}",
                    "auth",
                ) from e
            if timed_out:
                raise _ConnectFailure(
                    f"{where} did not complete the SSH handshake within {timeout:g}s",
                    "connect_timeout",
                    True,
                ) from e
            raise _ConnectFailure(f"SSH handshake with {where} failed: {e}", "ssh") from e
        transport = client.get_transport()
        if transport is not None:
            transport.set_keepalive(30)  # keep pooled connections through idle NAT/firewalls
        return client

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
        runners = [self.target(t, connect_timeout_s=connect_timeout_s) for t in targets]
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
        runners = [self.target(t, connect_timeout_s=connect_timeout_s) for t in targets]
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


def _result(
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
        source=SshRunner.source,
        error_kind=error_kind,
    )


def _run_on_channel(
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
        return _result(
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
        return _result(
            target,
            argv,
            started_at,
            t0,
            stdout=b"".join(out),
            stderr=b"".join(err),
            error="remote command ended without an exit status (killed by a signal?)",
            error_kind="no_exit_status",
        )
    return _result(
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
    return _result(
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
