"""Logging in on a dialled SSH connection: the host key checked, the keys offered, and a failed
handshake named by its cause.

:class:`~casefile.probes.runners.ssh.SshRunner` decides where to connect and dials (directly or
through its ProxyJump hops); :func:`login` takes the socket or jump channel it got and returns
an authenticated client, or raises :class:`~.ssh_pool.ConnectFailure` whose kind says what went
wrong: ``host_key_unknown``, ``host_key_changed``, ``host_key_revoked``, ``auth``, ``closed``,
``connect_timeout``, ``config`` (unreadable known_hosts) or ``ssh``. Kept apart from the runner
because it is the one place that reads paramiko's authentication and host-key errors, which
need the phase of the handshake to tell a refused login from a dropped connection.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import paramiko

from casefile.errors import RunnerError
from casefile.probes.runners.ssh_agent import agent_at
from casefile.probes.runners.ssh_config import ssh_home
from casefile.probes.runners.ssh_dial import (
    closed_by_peer,
    default_keys_elsewhere,
    key_exchange_done,
)
from casefile.probes.runners.ssh_hostkeys import (
    HostKeyChanged,
    HostKeyPolicy,
    HostKeyRevoked,
    HostKeyUnknown,
    KnownHostsFiles,
)
from casefile.probes.runners.ssh_known_hosts import load_known_hosts
from casefile.probes.runners.ssh_pool import ConnectFailure
from casefile.probes.runners.ssh_targets import NO_AGENT, SshTarget, host_port

__all__ = ["LoginOptions", "login"]


@dataclass(frozen=True, slots=True)
class LoginOptions:
    """What a runner was told about host keys and identities (see
    :class:`~casefile.probes.runners.ssh.SshRunner`)."""

    known_hosts_path: Path | None
    trust_unknown_host: bool
    allow_agent: bool
    look_for_keys: bool
    identity_files: tuple[str, ...]


def login(
    target: SshTarget,
    sock: socket.socket | paramiko.Channel,
    options: LoginOptions,
    *,
    timeout: float,
    deadline: float,
) -> paramiko.SSHClient:
    """Verify ``target``'s host key and authenticate over ``sock`` by ``deadline`` (a
    :func:`time.monotonic` time); ``timeout`` is the connection's own, for channels and
    messages."""
    where = host_port(target.hostname, target.port)
    name = target.known_hosts_name
    files = KnownHostsFiles.for_target(target, options.known_hosts_path)
    try:
        known = load_known_hosts(files.read)
    except RunnerError as e:
        sock.close()
        raise ConnectFailure(str(e), "config") from e
    client = paramiko.SSHClient()
    # revoked keys left out (see the policy); filed under the name paramiko looks up
    known.for_host(name, into=client.get_host_keys(), stored_as=target.dialled_name)
    client.set_missing_host_key_policy(
        HostKeyPolicy(
            target.spec,
            name,
            files,
            options.trust_unknown_host or target.accepts_new_keys,
            known=known,
            hash_names=target.hash_known_hosts,
        )
    )
    key_files = [p for p in (*target.identity_files, *options.identity_files) if Path(p).exists()]
    use_defaults = not target.identities_only
    look_for_keys = options.look_for_keys and use_defaults
    default_keys = default_keys_elsewhere() if look_for_keys else None
    if default_keys is not None:  # paramiko would look under $HOME: name them instead
        look_for_keys = False
    allow_agent = options.allow_agent and use_defaults and target.identity_agent != NO_AGENT
    agent_note = ""
    if allow_agent and target.identity_agent is not None:
        agent, agent_note = agent_at(target.identity_agent)
        # paramiko asks only $SSH_AUTH_SOCK's agent unless one is in place before connect().
        setattr(client, "_agent", agent)  # noqa: B010
    remaining = max(deadline - time.monotonic(), 0.1)
    all_keys = [*key_files, *(k for k in default_keys or () if k not in key_files)]
    try:
        client.connect(
            target.hostname,
            target.port,
            username=target.user,
            # paramiko takes a list here although its stubs only admit one path
            key_filename=cast(str, all_keys) if all_keys else None,
            allow_agent=allow_agent,
            look_for_keys=look_for_keys,
            sock=cast(socket.socket, sock),  # a Channel is a socket as far as paramiko cares
            timeout=remaining,
            banner_timeout=remaining,
            auth_timeout=remaining,
            channel_timeout=timeout,
            compress=False,
        )
    except HostKeyUnknown as e:
        client.close()
        raise ConnectFailure(str(e), "host_key_unknown") from e
    except HostKeyRevoked as e:
        client.close()
        raise ConnectFailure(str(e), "host_key_revoked") from e
    except paramiko.BadHostKeyException as e:
        client.close()
        revoked_by = known.revoked_by(name, e.key)
        if revoked_by is not None:
            revoked = HostKeyRevoked(target.spec, name, e.key, revoked_by.source)
            raise ConnectFailure(str(revoked), "host_key_revoked") from e
        expected = e.expected_key
        listed_in = known.source_of(name, expected) or files.read[0]
        changed = HostKeyChanged(target.spec, name, e.key, expected, listed_in)
        raise ConnectFailure(str(changed), "host_key_changed") from e
    except Exception as e:  # SSHException, EOFError, socket errors mid-handshake …
        # paramiko often reports a failed login as the last key-loading error rather than
        # AuthenticationException, so the phase decides: past key exchange means auth failed.
        past_kex = key_exchange_done(client)
        client.close()
        closed = closed_by_peer(e)
        timed_out = not closed and (time.monotonic() >= deadline - 0.05 or "banner" in str(e))
        if isinstance(e, paramiko.AuthenticationException) or (past_kex and not timed_out):
            tried = [f"identity files {key_files}" if key_files else "no identity files"]
            if options.look_for_keys and use_defaults:
                tried.append(f"default keys in {ssh_home() / '.ssh'}")
            if allow_agent:
                at = target.identity_agent
                tried.append(f"the SSH agent at {at}{agent_note}" if at else "the SSH agent")
            detail = str(e) or ("the server closed the connection" if closed else repr(e))
            raise ConnectFailure(
                f"authentication failed for {target.address} (tried {', '.join(tried)}): {detail}",
                "auth",
            ) from e
        if closed:
            banner = "banner" in str(e)
            phase = "before sending its SSH banner" if banner else "during key exchange"
            raise ConnectFailure(
                f"connection closed by {where} {phase} (the server dropped the connection: "
                "sshd's MaxStartups or access rules, or not an SSH server)",
                "closed",
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
