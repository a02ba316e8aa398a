"""The SSH agent that ``IdentityAgent`` names, for paramiko (which only knows $SSH_AUTH_SOCK).

A socket that cannot be reached is not an error, as for OpenSSH: no agent keys are offered, and
the reason is kept for the authentication-failure message.
"""

from __future__ import annotations

import socket

import paramiko
from paramiko.agent import AgentSSH


class SocketAgent(AgentSSH):
    """The agent listening on one Unix socket (keys are listed once, when it is opened)."""

    def __init__(self, path: str | None) -> None:
        super().__init__()
        if path is None:
            return
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            getattr(self, "_connect")(conn)  # noqa: B009 - paramiko's stubs omit it
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        """Close the agent connection (paramiko's SSHClient calls this on close)."""
        getattr(self, "_close")()  # noqa: B009 - paramiko's stubs omit it


def agent_at(path: str) -> tuple[SocketAgent, str]:
    """The agent at ``path``, or an empty one and why (``" (cannot connect: …)"``)."""
    try:
        return SocketAgent(path), ""
    except (OSError, paramiko.SSHException) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return SocketAgent(None), f" (cannot connect: {reason})"
