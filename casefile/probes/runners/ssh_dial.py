"""Reaching an SSH server: the TCP connection, the keys to offer, and why a handshake failed.

:class:`~casefile.probes.runners.ssh.SshRunner` decides what to connect to and pools what it
connected; these are the pieces that talk to the operating system and read paramiko's errors,
kept apart so the runner reads as the connection's life and not its plumbing: a dial whose
failures are named by cause (a dead host is a timeout, a closed port a refusal, a name that
does not resolve DNS), the default keys ``ssh`` would offer where paramiko would look elsewhere,
and whether a failed handshake got past the key exchange or was hung up on.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import paramiko

from casefile.probes.runners.ssh_config import ssh_home
from casefile.probes.runners.ssh_pool import ConnectFailure
from casefile.probes.runners.ssh_targets import SshTarget, host_port

__all__ = [
    "PARAMIKO_DEFAULT_KEYS",
    "closed_by_peer",
    "default_keys_elsewhere",
    "dial",
    "key_exchange_done",
]


def dial(target: SshTarget, timeout: float) -> socket.socket:
    """A TCP connection to the target, failures named by cause (DNS, refused, timeout)."""
    where = host_port(target.hostname, target.port)
    try:
        sock = socket.create_connection((target.hostname, target.port), timeout)
    except socket.gaierror as e:
        raise ConnectFailure(f"cannot resolve host {target.hostname}: {e.strerror}", "dns") from e
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
    return sock


#: The default keys paramiko's ``look_for_keys`` tries (the types it can use), in its order.
PARAMIKO_DEFAULT_KEYS = ("id_rsa", "id_ecdsa", "id_ed25519")


def default_keys_elsewhere() -> list[str] | None:
    """The default keys ``ssh`` would try, where paramiko's ``look_for_keys`` would not find
    them: it looks under ``$HOME``, ``ssh`` under the passwd home (:func:`ssh_home`), the one
    home casefile uses for every SSH file. They are then named as identity files, which
    paramiko tries before the agent rather than after it. None when the two homes are the same
    directory: paramiko's own search is then the right one, in its usual place."""
    home = ssh_home()
    if os.path.realpath(Path.home()) == os.path.realpath(home):
        return None
    paths = (home / ".ssh" / name for name in PARAMIKO_DEFAULT_KEYS)
    return [str(p) for p in paths if p.is_file() and os.access(p, os.R_OK)]


def closed_by_peer(error: BaseException) -> bool:
    """Whether the server hung up: paramiko wraps the EOF (a banner read that hit EOF becomes
    "Error reading SSH protocol banner"), so the whole cause/context chain is looked at."""
    seen: BaseException | None = error
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, EOFError | ConnectionResetError | BrokenPipeError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def key_exchange_done(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    if transport is None:
        return False
    try:
        transport.get_remote_server_key()
    except paramiko.SSHException:
        return False
    return True
