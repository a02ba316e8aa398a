"""Start a throwaway PostgreSQL server for tests: initdb into a temp dir, pg_ctl start.

Importable on its own (benchmarks use it too). The server listens on a free loopback port and
a socket directory inside the temp dir, trusts local connections, and runs with fsync off:
it exists for minutes and holds nothing worth keeping. ``initdb`` refuses to run as root, so
as root the server runs as a dedicated system user (created if missing).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SERVICE_USER = "casefile_test"


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries are not installed here."""


def find_bindir() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, if any."""
    candidates = [os.environ.get("CASEFILE_PG_BINDIR", "")]
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    candidates += sorted(glob.glob("/usr/pgsql-*/bin"), reverse=True)
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ensure_user(name: str) -> None:
    if subprocess.run(["id", "-u", name], capture_output=True).returncode == 0:
        return
    made = subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
        capture_output=True,
        text=True,
    )
    # Another test session may have created it at the same moment: only its absence is fatal.
    if made.returncode != 0 and subprocess.run(["id", "-u", name], capture_output=True).returncode:
        raise RuntimeError(f"cannot create user {name} for PostgreSQL: {made.stderr.strip()}")


@dataclass
class PostgresServer:
    """A running server; :meth:`stop` shuts it down and removes its files."""

    bindir: Path
    root: Path
    port: int
    user: str
    as_root: bool

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the ``postgres`` database (trust auth, no password)."""
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/postgres"

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    def _run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        command = list(argv)
        if self.as_root:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)

    def start(self) -> None:
        initdb = self._run(
            str(self.bindir / "initdb"),
            "-D", str(self.datadir),
            "-A", "trust",
            "-U", self.user,
            "-E", "UTF8",
            "--no-sync",
        )  # fmt: skip
        if initdb.returncode != 0:
            raise RuntimeError(f"initdb failed: {initdb.stderr.strip()}")
        options = " ".join(
            [
                "-c listen_addresses=127.0.0.1",
                f"-c port={self.port}",
                f"-c unix_socket_directories={self.root}",
                "-c fsync=off",
                "-c synchronous_commit=off",
                "-c full_page_writes=off",
                "-c max_connections=100",
            ]
        )
        started = self._run(
            str(self.bindir / "pg_ctl"),
            "-D", str(self.datadir),
            "-l", str(self.root / "server.log"),
            "-o", options,
            "-w", "-t", "60",
            "start",
        )  # fmt: skip
        if started.returncode != 0:
            log = (self.root / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()}\n{log}")

    def stop(self) -> None:
        try:
            self._run(
                str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "-w",
                "stop", timeout=60,
            )  # fmt: skip
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def start_postgres() -> PostgresServer:
    """Start a fresh server; raises :class:`PostgresUnavailable` if the binaries are missing."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable("PostgreSQL server binaries (initdb, pg_ctl) not found")
    as_root = os.geteuid() == 0
    user = SERVICE_USER if as_root else (os.environ.get("USER") or "postgres")
    if as_root:
        _ensure_user(user)
    root = Path(tempfile.mkdtemp(prefix="casefile-pg-"))
    if as_root:
        shutil.chown(root, user=user)
    server = PostgresServer(bindir, root, _free_port(), user, as_root)
    try:
        server.start()
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server
