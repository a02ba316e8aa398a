"""What an SSH target spec means: parse ``[user@]host[:port]`` and apply the SSH config.

Targets are written the way people type them to ``ssh``: ``[user@]host[:port]`` or a ``Host``
alias. The options come from OpenSSH itself where it is installed (see :mod:`.ssh_config`), so
``Include``, ``Match`` and ``/etc/ssh/ssh_config`` count as they do for ``ssh``. Honoured:
``HostName``, ``User``, ``Port``, ``IdentityFile``, ``IdentitiesOnly``, ``IdentityAgent``,
``ConnectTimeout``, ``ProxyJump``, and for host keys ``UserKnownHostsFile``,
``GlobalKnownHostsFile``, ``StrictHostKeyChecking``, ``HostKeyAlias`` and ``HashKnownHosts``
(what :mod:`.ssh_hostkeys` does with them); ``ProxyCommand`` is refused with a clear error rather
than silently connecting somewhere else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import paramiko

from casefile.errors import RunnerError
from casefile.probes.runners.ssh_config import OpenSshConfig, expand_home, local_user, ssh_home

SSH_PORT = 22
DEFAULT_CONNECT_TIMEOUT_S = 10.0

#: ``(user, host, port, route)``: ``route`` is the ProxyJump chain (``""`` when dialled directly),
#: so a host reached through a jump never shares a connection with the same host dialled direct.
PoolKey = tuple[str, str, int, str]

#: The most ProxyJump hops behind one target, counting the hops' own jump hosts.
MAX_JUMP_HOPS = 8

#: ``IdentityAgent none``: do not ask any agent.
NO_AGENT = "none"

#: The known_hosts files ``ssh`` reads when the config names none (``UserKnownHostsFile``,
#: ``GlobalKnownHostsFile``); ``~`` is :func:`~.ssh_config.ssh_home`.
DEFAULT_USER_KNOWN_HOSTS = ("~/.ssh/known_hosts", "~/.ssh/known_hosts2")
SYSTEM_KNOWN_HOSTS_FILES = ("/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2")

#: ``StrictHostKeyChecking`` as casefile reads it, by the spellings ssh_config and ``ssh -G``
#: use. ``ask`` refuses an unknown key as ``yes`` does (nobody is asked: ``--trust-host`` is the
#: answer); ``no`` (or ``off``) is taken as ``accept-new``: an unknown key is accepted and
#: recorded, a changed key still refused, since casefile always verifies host keys.
STRICT_HOST_KEY_CHECKING = {
    "yes": "yes",
    "true": "yes",
    "ask": "ask",
    "accept-new": "accept-new",
    "no": "no",
    "off": "no",
    "false": "no",
}


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
    #: ProxyJump hops, first dialled first; empty when the host is dialled directly.
    proxy_jump: tuple[str, ...] = ()
    #: Agent socket path, :data:`NO_AGENT`, or None for ``$SSH_AUTH_SOCK`` (the default).
    identity_agent: str | None = None
    #: ``HashKnownHosts yes``: names written to known_hosts are hashed.
    hash_known_hosts: bool = False
    #: ``UserKnownHostsFile``: read, and an accepted key recorded in the first; () for ``none``.
    user_known_hosts: tuple[Path, ...] = field(
        default_factory=lambda: known_hosts_files(None, DEFAULT_USER_KNOWN_HOSTS)
    )
    #: ``GlobalKnownHostsFile``: read, never written.
    global_known_hosts: tuple[Path, ...] = field(
        default_factory=lambda: known_hosts_files(None, SYSTEM_KNOWN_HOSTS_FILES)
    )
    #: ``StrictHostKeyChecking``: a value of :data:`STRICT_HOST_KEY_CHECKING`.
    strict_host_key_checking: str = "ask"
    #: ``HostKeyAlias``: the name host keys are looked up and recorded under, if set.
    host_key_alias: str | None = None

    @property
    def key(self) -> PoolKey:
        """The connection-pool key: one connection per (user, host, port, jump route)."""
        return (self.user, self.hostname, self.port, ",".join(self.proxy_jump))

    @property
    def address(self) -> str:
        """``user@host:port`` for messages."""
        return f"{self.user}@{host_port(self.hostname, self.port)}"

    @property
    def dialled_name(self) -> str:
        """``host``, or ``[host]:port`` off port 22: the name paramiko checks host keys under."""
        return self.hostname if self.port == SSH_PORT else f"[{self.hostname}]:{self.port}"

    @property
    def known_hosts_name(self) -> str:
        """The name OpenSSH uses for this host in known_hosts: ``HostKeyAlias`` as it is (no
        port added, as OpenSSH uses it), else :attr:`dialled_name`."""
        return self.host_key_alias or self.dialled_name

    @property
    def accepts_new_keys(self) -> bool:
        """Whether ``StrictHostKeyChecking`` lets an unknown key in (and recorded) unasked."""
        return self.strict_host_key_checking in ("accept-new", "no")


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


def load_ssh_config(path: Path | None) -> paramiko.SSHConfig:
    """The SSH config file ``path`` names, read alone as ``ssh -F`` reads it, whatever its path;
    None means what plain ``ssh`` reads (``~/.ssh/config``, then ``/etc/ssh/ssh_config``).

    A named path is never compared with a default to decide that it "is" the default: that once
    compared it with ``$HOME/.ssh/config`` while ``ssh`` reads the passwd home's, so a file named
    with ``--ssh-config`` under a ``$HOME`` that is not the passwd home was not read (R3-M4).
    """
    return OpenSshConfig(path)


def resolve_target(
    spec: str, *, ssh_config: paramiko.SSHConfig | None = None, config_path: Path | None = None
) -> SshTarget:
    """Apply the ssh config to ``spec``; explicit ``user@`` and ``:port`` win over the config."""
    user, host, port = parse_target(spec)
    if ssh_config is None:
        ssh_config = load_ssh_config(config_path)
    try:
        options = ssh_config.lookup(host)
    except RunnerError as e:
        raise RunnerError(f"SSH target {spec!r}: {e}") from e
    except Exception as e:
        raise RunnerError(f"SSH target {spec!r}: cannot apply SSH config: {e}") from e
    if str(options.get("proxycommand", "none")).lower() != "none":
        raise RunnerError(
            f"SSH target {spec!r}: proxycommand is set in the SSH config but casefile's SSH "
            "runner does not run proxy commands; use ProxyJump instead, run the probe on the "
            "jump host, or paste the output"
        )
    checking = str(options.get("stricthostkeychecking", "ask"))
    try:
        config_port = int(options.get("port", SSH_PORT))
        connect_timeout = _timeout(options.get("connecttimeout"))
        strict = STRICT_HOST_KEY_CHECKING[checking.lower()]
    except ValueError as e:
        raise RunnerError(f"SSH target {spec!r}: bad value in SSH config: {e}") from e
    except KeyError as e:
        raise RunnerError(
            f"SSH target {spec!r}: bad value in SSH config: StrictHostKeyChecking {checking!r} "
            "(yes, accept-new, no, off or ask)"
        ) from e
    identity_files = tuple(
        expand_home(p) for p in options.get("identityfile", []) if isinstance(p, str)
    )
    return SshTarget(
        spec=spec,
        hostname=options.get("hostname", host),
        port=port if port is not None else config_port,
        user=user or options.get("user") or local_user(),
        identity_files=identity_files,
        identities_only=str(options.get("identitiesonly", "no")).lower() == "yes",
        connect_timeout_s=connect_timeout,
        proxy_jump=parse_proxy_jump(spec, str(options.get("proxyjump", "none"))),
        identity_agent=identity_agent(options.get("identityagent")),
        hash_known_hosts=str(options.get("hashknownhosts", "no")).lower() == "yes",
        user_known_hosts=known_hosts_files(
            options.get("userknownhostsfile"), DEFAULT_USER_KNOWN_HOSTS
        ),
        global_known_hosts=known_hosts_files(
            options.get("globalknownhostsfile"), SYSTEM_KNOWN_HOSTS_FILES
        ),
        strict_host_key_checking=strict,
        host_key_alias=str(options.get("hostkeyalias") or "") or None,
    )


def _timeout(value: object) -> float | None:
    if value is None or str(value).lower() == "none":
        return None
    seconds = float(str(value))
    return seconds if seconds > 0 else None


def parse_proxy_jump(spec: str, value: str) -> tuple[str, ...]:
    """ProxyJump's comma-separated hops (``[user@]host[:port]`` or ``ssh://…``), each checked."""
    if value.strip().lower() in ("", "none"):
        return ()
    hops: list[str] = []
    for raw in value.split(","):
        hop = raw.strip()
        if hop.lower().startswith("ssh://"):
            hop = hop[len("ssh://") :].rstrip("/")
        try:
            parse_target(hop)
        except RunnerError as e:
            raise RunnerError(f"SSH target {spec!r}: bad ProxyJump hop {raw.strip()!r}: {e}") from e
        hops.append(hop)
    return tuple(hops)


def identity_agent(value: object) -> str | None:
    """IdentityAgent as a socket path, :data:`NO_AGENT`, or None for ``$SSH_AUTH_SOCK``.

    ``SSH_AUTH_SOCK`` and ``$NAME`` name environment variables (an unset one means no agent, as
    for OpenSSH); ``~`` and ``${NAME}`` are expanded in a path.
    """
    if value is None:
        return None
    text = str(value).strip()
    if text == "SSH_AUTH_SOCK" or not text:
        return None
    if text.lower() == NO_AGENT:
        return NO_AGENT
    if text.startswith("$") and not text.startswith("${"):
        return os.environ.get(text[1:]) or NO_AGENT
    return expand_home(os.path.expandvars(text))


def known_hosts_files(value: object, default: tuple[str, ...]) -> tuple[Path, ...]:
    """A ``UserKnownHostsFile``/``GlobalKnownHostsFile`` value as paths: ``default`` when unset,
    none for ``none``; ``~`` expanded (the user file's TOKENS already are, see
    :mod:`.ssh_config`)."""
    text = str(value).strip() if value is not None else " ".join(default)
    if text.lower() == "none":
        return ()
    return tuple(Path(expand_home(path)) for path in text.split())


def default_known_hosts_path() -> Path:
    """The known_hosts file ``ssh`` records keys in when the config names none."""
    return known_hosts_files(None, DEFAULT_USER_KNOWN_HOSTS)[0]


def default_ssh_config_path() -> Path:
    """The user's config file that plain ``ssh`` reads (under :func:`ssh_home`, not ``$HOME``)."""
    return ssh_home() / ".ssh" / "config"
