"""What an SSH target spec means: parse ``[user@]host[:port]`` and apply ``~/.ssh/config``.

Targets are written the way people type them to ``ssh``: ``[user@]host[:port]`` or a ``Host``
alias from ``~/.ssh/config`` (``HostName``, ``User``, ``Port``, ``IdentityFile``,
``IdentitiesOnly`` and ``ConnectTimeout`` are honoured; ``ProxyJump``/``ProxyCommand`` are refused
with a clear error rather than silently connecting somewhere else).
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass
from pathlib import Path

import paramiko

from casefile.errors import RunnerError

SSH_PORT = 22
DEFAULT_CONNECT_TIMEOUT_S = 10.0

PoolKey = tuple[str, str, int]


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
        return f"{self.user}@{host_port(self.hostname, self.port)}"

    @property
    def known_hosts_name(self) -> str:
        """The name OpenSSH uses for this host in known_hosts (``[host]:port`` off port 22)."""
        return self.hostname if self.port == SSH_PORT else f"[{self.hostname}]:{self.port}"


def host_port(host: str, port: int) -> str:
    """``host:port``, bracketing an IPv6 address."""
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


def load_ssh_config(path: Path) -> paramiko.SSHConfig:
    """Read an ssh config file (an empty config if it does not exist)."""
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
        ssh_config = load_ssh_config(config_path or default_ssh_config_path())
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
