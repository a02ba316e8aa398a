"""Throwaway OpenSSH servers on loopback, for the runner tests and the SSH benchmark.

Everything lives in one temporary directory: a host key, a user key, an ``authorized_keys`` file,
one ``sshd_config`` per port, a ``known_hosts`` that trusts the host key on every port, and an
``ssh_config`` with one alias per port (``box0``, ``box1`` …). Nothing outside that directory is
touched except ``/run/sshd``, the privilege separation directory that sshd insists on.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import paramiko

from casefile.probes.runners import SshRunner
from tests.waiting import PROCESS_S, WAIT_S

SSHD = Path("/usr/sbin/sshd")
PRIVSEP_DIR = Path("/run/sshd")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout_s: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Block until 127.0.0.1:port accepts a connection, or fail with the server's complaint."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"sshd on port {port} exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"sshd on port {port} did not start listening within {timeout_s}s")


def write_key(key: paramiko.PKey, path: Path) -> None:
    key.write_private_key_file(str(path))
    path.chmod(0o600)  # sshd refuses host keys that others can read


@dataclass
class SshdCluster:
    """Several sshd processes sharing one host key and one authorized user key."""

    root: Path
    user: str
    host_key: paramiko.PKey
    user_key_path: Path
    known_hosts_path: Path
    ssh_config_path: Path
    addresses: tuple[str, ...] = ("127.0.0.1",)
    ports: list[int] = field(default_factory=list)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def target(self, index: int = 0) -> str:
        """``user@127.0.0.1:port`` for the index-th server."""
        return f"{self.user}@127.0.0.1:{self.ports[index % len(self.ports)]}"

    def targets(self) -> list[str]:
        """One ``user@address:port`` per (address, port): distinct pool keys."""
        return [f"{self.user}@{a}:{p}" for a in self.addresses for p in self.ports]

    def alias(self, index: int = 0) -> str:
        """The ssh_config alias for the index-th server."""
        return f"box{index % len(self.ports)}"

    def stop(self) -> None:
        for proc in self.processes:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.processes.clear()


def _sshd_config(
    root: Path,
    port: int,
    host_key: Path,
    authorized_keys: Path,
    user: str,
    addresses: tuple[str, ...],
    extra: tuple[str, ...] = (),
) -> str:
    lines = [
        # A clean HOME for the session: the login shell must not read the real account's dotfiles
        # (a ~/.bashrc that runs `pyenv init` costs ~130 ms per command, and one that prints
        # would corrupt the exact-output assertions). Authentication is unaffected because
        # AuthorizedKeysFile is absolute.
        f"SetEnv HOME={root / 'home'}",
        *(f"ListenAddress {address}" for address in addresses),
        f"Port {port}",
        f"HostKey {host_key}",
        f"PidFile {root / f'sshd-{port}.pid'}",
        f"AuthorizedKeysFile {authorized_keys}",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes no",
        "PermitRootLogin prohibit-password",
        f"AllowUsers {user}",
        "MaxSessions 100",
        "MaxStartups 100:30:200",
        "MaxAuthTries 20",
        "LogLevel ERROR",
        "UseDNS no",
        "PrintMotd no",
        "PrintLastLog no",
        "Subsystem sftp internal-sftp",
        # ProxyJump tests open direct-tcpip channels through these servers: forwarding is allowed
        # to the cluster's own loopback addresses only, so no test can make sshd dial out.
        "AllowTcpForwarding local",
        "PermitOpen " + " ".join(f"{host_port_pattern(address)}:*" for address in addresses),
        *extra,
    ]
    return "\n".join(lines) + "\n"


def host_port_pattern(address: str) -> str:
    """An address as sshd's PermitOpen writes it (IPv6 in brackets)."""
    return f"[{address}]" if ":" in address else address


def start_cluster(
    root: Path,
    count: int = 4,
    *,
    addresses: tuple[str, ...] = ("127.0.0.1",),
    startup_timeout_s: float = WAIT_S,
    extra_config: tuple[str, ...] = (),
) -> SshdCluster:
    """Generate keys and configs under ``root`` and start ``count`` sshd processes.

    Each server listens on every address in ``addresses`` (other 127.x addresses reach loopback
    on Linux), so ``count`` ports × ``len(addresses)`` distinct targets exist, each its own
    pooled connection: the benchmark uses that to stand in for many hosts. ``extra_config``
    lines are appended to every server's sshd_config: they add options, and override only those
    sshd takes the last value of (``MaxStartups`` is one; for most, the first value wins).
    """
    if not SSHD.exists():
        raise FileNotFoundError(f"{SSHD} is not installed")
    root.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)
    user = getpass.getuser()
    (root / "home").mkdir(exist_ok=True)

    host_key = paramiko.ECDSAKey.generate()
    host_key_path = root / "ssh_host_ecdsa_key"
    write_key(host_key, host_key_path)
    user_key = paramiko.ECDSAKey.generate()
    user_key_path = root / "id_ecdsa"
    write_key(user_key, user_key_path)
    authorized_keys = root / "authorized_keys"
    authorized_keys.write_text(f"{user_key.get_name()} {user_key.get_base64()} casefile-test\n")

    cluster = SshdCluster(
        root=root,
        user=user,
        host_key=host_key,
        user_key_path=user_key_path,
        known_hosts_path=root / "known_hosts",
        ssh_config_path=root / "ssh_config",
        addresses=addresses,
    )
    try:
        for _ in range(count):
            port = free_port()
            config = root / f"sshd_config-{port}"
            config.write_text(
                _sshd_config(
                    root, port, host_key_path, authorized_keys, user, addresses, extra_config
                )
            )
            log = (root / f"sshd-{port}.log").open("wb")
            proc = subprocess.Popen(
                [str(SSHD), "-D", "-e", "-f", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            log.close()
            cluster.ports.append(port)
            cluster.processes.append(proc)
        for port, proc in zip(cluster.ports, cluster.processes, strict=True):
            try:
                wait_for_port(port, startup_timeout_s, proc)
            except RuntimeError as e:
                log_text = (root / f"sshd-{port}.log").read_text(errors="replace")
                raise RuntimeError(f"{e}: {log_text.strip()}") from None
    except BaseException:
        cluster.stop()
        raise

    cluster.known_hosts_path.write_text(
        "".join(
            f"[{address}]:{port} {host_key.get_name()} {host_key.get_base64()}\n"
            for port in cluster.ports
            for address in addresses
        )
    )
    cluster.ssh_config_path.write_text(
        "".join(
            f"Host box{i}\n"
            f"    HostName 127.0.0.1\n"
            f"    Port {port}\n"
            f"    User {user}\n"
            f"    IdentityFile {user_key_path}\n"
            f"    IdentitiesOnly yes\n"
            for i, port in enumerate(cluster.ports)
        )
        + "Host jumpy\n    HostName 127.0.0.254\n    Port 9\n    ProxyJump box0\n"
    )
    return cluster


def make_runner(cluster: SshdCluster, **kwargs: object) -> SshRunner:
    """A runner that trusts only the cluster and uses only the cluster's user key."""
    options: dict[str, object] = {
        "known_hosts_path": cluster.known_hosts_path,
        "ssh_config_path": cluster.ssh_config_path,
        "identity_files": [cluster.user_key_path],
        "allow_agent": False,
        "look_for_keys": False,
        "connect_timeout_s": 5.0,
    }
    options.update(kwargs)
    return SshRunner(**options)  # type: ignore[arg-type]


class SilentListener:
    """A TCP server that accepts connections and never says a word (a hung sshd)."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self._held.append(conn)

    @property
    def accepted(self) -> int:
        """How many connections it has accepted (and holds, silent) so far."""
        return len(self._held)

    def close(self) -> None:
        self._server.close()
        for conn in self._held:
            conn.close()


class ClosingListener:
    """A TCP server that hangs up on every connection, optionally after sending ``greeting``.

    Stands in for a server that drops connections during the handshake (sshd past MaxStartups,
    a load balancer with no backend, or an SSH banner followed by nothing).
    """

    def __init__(self, greeting: bytes = b"") -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._greeting = greeting
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with conn:
                if self._greeting:
                    conn.sendall(self._greeting)
                    conn.settimeout(WAIT_S)  # a bound for a client that never speaks
                    with contextlib.suppress(OSError):
                        conn.recv(4096)  # the client's banner, then hang up

    def close(self) -> None:
        self._server.close()


SSH_AGENT = Path("/usr/bin/ssh-agent")
SSH_ADD = Path("/usr/bin/ssh-add")


@dataclass
class SshAgent:
    """A throwaway ``ssh-agent`` on its own socket, holding the keys added with :meth:`add`."""

    socket_path: Path
    process: subprocess.Popen[bytes]

    def add(self, key_path: Path) -> None:
        env = {"SSH_AUTH_SOCK": str(self.socket_path), "PATH": os.environ.get("PATH", "")}
        subprocess.run(
            [str(SSH_ADD), "-q", str(key_path)],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=True,
            timeout=PROCESS_S,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=5)


def start_agent(socket_path: Path, timeout_s: float = WAIT_S) -> SshAgent:
    """Start ``ssh-agent -D -a socket_path`` (a short path: Unix sockets allow ~100 bytes)."""
    proc = subprocess.Popen(
        [str(SSH_AGENT), "-D", "-a", str(socket_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout_s
    while True:  # the socket file appears before the agent listens on it
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(str(socket_path))
                return SshAgent(socket_path, proc)
            except OSError:
                pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"ssh-agent did not listen on {socket_path}")
        time.sleep(0.02)


def host_block(alias: str, cluster: SshdCluster, index: int, *extra: str) -> str:
    """An ssh_config ``Host`` block naming the index-th server of ``cluster`` as ``alias``."""
    lines = [
        f"Host {alias}",
        "    HostName 127.0.0.1",
        f"    Port {cluster.ports[index % len(cluster.ports)]}",
        f"    User {cluster.user}",
        f"    IdentityFile {cluster.user_key_path}",
        "    IdentitiesOnly yes",
        *(f"    {line}" for line in extra),
    ]
    return "\n".join(lines) + "\n"
