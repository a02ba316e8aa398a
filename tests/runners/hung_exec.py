"""An SSH server on loopback that lets a client in, opens its session, and never answers exec.

This is the host that hung ``casefile probe`` forever on main: paramiko's ``exec_command`` waits
for the reply to the exec request without any limit. The server is paramiko's own server side
(OpenSSH cannot be told to stall a request); it accepts any public key, so the runner logs in
with the sshd fixture's user key, and it presents the fixture's host key, so a known_hosts line
for its port is all a client needs to trust it.
"""

from __future__ import annotations

import socket
import threading

import paramiko
from paramiko.common import (
    AUTH_SUCCESSFUL,
    OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED,
    OPEN_SUCCEEDED,
)


class _StallingInterface(paramiko.ServerInterface):
    def __init__(self, release: threading.Event) -> None:
        self._release = release
        self.exec_requests = 0

    def get_allowed_auths(self, username: str) -> str:
        return "publickey"

    def check_auth_publickey(self, username: str, key: paramiko.PKey) -> int:
        return AUTH_SUCCESSFUL

    def check_channel_request(self, kind: str, chanid: int) -> int:
        if kind == "session":
            return OPEN_SUCCEEDED
        return OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_exec_request(self, channel: paramiko.Channel, command: bytes) -> bool:
        self.exec_requests += 1
        self._release.wait()  # the reply never comes while the test runs
        return False


class HungExecServer:
    """Listens on 127.0.0.1; every session's exec request waits until :meth:`close`."""

    def __init__(self, host_key: paramiko.PKey) -> None:
        self._host_key = host_key
        self._release = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._transports: list[paramiko.Transport] = []
        self.interface = _StallingInterface(self._release)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def known_hosts_line(self) -> str:
        key = self._host_key
        return f"[127.0.0.1]:{self.port} {key.get_name()} {key.get_base64()}\n"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            transport = paramiko.Transport(conn)
            transport.add_server_key(self._host_key)
            self._transports.append(transport)
            try:
                transport.start_server(server=self.interface)
            except (paramiko.SSHException, EOFError, OSError):
                transport.close()

    def close(self) -> None:
        self._release.set()
        self._server.close()
        for transport in self._transports:
            transport.close()
