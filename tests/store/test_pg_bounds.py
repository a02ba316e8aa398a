"""PostgreSQL waits are bounded: a server that never answers and a connection that goes silent
mid-statement each end the command with one line, within the configured timeouts, with nothing
half-written. Every server and proxy here listens on loopback."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy.engine import make_url

from casefile.errors import StoreError
from casefile.store.database import _bounded_postgres, postgres_bounds
from tests.store.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)
from tests.waiting import PROCESS_S, WAIT_S

CASEFILE = Path(sys.executable).with_name("casefile")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASEFILE_")}
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def casefile(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CASEFILE), *args],
        capture_output=True,
        text=True,
        env=env or _env(),
        timeout=PROCESS_S,
        check=False,
    )


class Mute:
    """A loopback server that accepts connections and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self._held.append(conn)

    def close(self) -> None:
        self._stop.set()
        for conn in self._held:
            conn.close()
        self.sock.close()


class GoesSilent:
    """A loopback proxy to a real server that forwards both ways until the client sends
    ``trigger``; from then on it forwards nothing, and keeps both connections open (a stuck
    proxy, a partition that TCP has not noticed)."""

    def __init__(self, port: int, trigger: bytes) -> None:
        self.target = port
        self.trigger = trigger
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.silenced = threading.Event()
        self._stop = threading.Event()
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                client, _ = self.sock.accept()
            except OSError:
                continue
            server = socket.create_connection(("127.0.0.1", self.target))
            self._open += [client, server]
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([client, server], [], [], 0.1)
            for sock in ready:
                try:
                    data = sock.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                if sock is client and self.trigger in data:
                    self.silenced.set()
                if self.silenced.is_set():
                    continue  # swallowed: the other side never hears of it
                (server if sock is client else client).sendall(data)

    def close(self) -> None:
        self._stop.set()
        for sock in self._open:
            sock.close()
        self.sock.close()


@pytest.fixture
def mute() -> Iterator[Mute]:
    server = Mute()
    yield server
    server.close()


def test_the_defaults_and_how_to_change_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CASEFILE_PG_CONNECT_TIMEOUT", raising=False)
    monkeypatch.delenv("CASEFILE_PG_STATEMENT_TIMEOUT", raising=False)
    assert postgres_bounds("postgresql+psycopg://u@127.0.0.1/db") == (10, 30)
    bounded = _bounded_postgres(make_url("postgresql+psycopg://u@127.0.0.1/db")).query
    assert bounded["connect_timeout"] == "10" and bounded["keepalives"] == "1"
    assert bounded["options"] == "-c statement_timeout=30000"
    assert bounded["tcp_user_timeout"] == "30000"
    monkeypatch.setenv("CASEFILE_PG_STATEMENT_TIMEOUT", "7")
    assert postgres_bounds("postgresql+psycopg://u@h/db?connect_timeout=3") == (3, 7)
    url = make_url("postgresql+psycopg://u@h/db?statement_timeout=60")
    assert "statement_timeout" not in _bounded_postgres(url).query  # not a libpq keyword
    with pytest.raises(StoreError, match="statement_timeout must be a whole number"):
        postgres_bounds("postgresql+psycopg://u@h/db?statement_timeout=soon")


def test_a_server_that_never_answers_is_one_line_within_the_connect_timeout(mute: Mute) -> None:
    url = f"postgresql+psycopg://u@127.0.0.1:{mute.port}/db"
    env = {**_env(), "CASEFILE_PG_CONNECT_TIMEOUT": "2"}
    started = time.monotonic()
    done = casefile("cases", "--db", url, env=env)
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("casefile: error: ") and "timeout" in done.stderr, done.stderr
    assert took < 2 * 2 + WAIT_S / 2, took  # libpq may try twice (with and without SSL)


@pytest.mark.postgres
def test_a_connection_that_goes_silent_mid_insert_ends_the_note_with_nothing_written(
    postgres_url: str,  # noqa: F811 (the fixture)
) -> None:
    made = casefile("new", "--db", postgres_url, "--id", "quiet", "Silent proxy")
    assert made.returncode == 0, made.stderr
    port = urlsplit(postgres_url.replace("postgresql+psycopg", "postgresql")).port
    assert port is not None
    proxy = GoesSilent(port, b"INSERT")
    try:
        through = postgres_url.replace(f":{port}/", f":{proxy.port}/") + "?statement_timeout=1"
        started = time.monotonic()
        done = casefile("note", "quiet", "lost in the network", "--db", through)
        took = time.monotonic() - started
    finally:
        proxy.close()
    assert proxy.silenced.is_set(), "the note never sent its INSERT"
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no answer from the server" in lines[0], done.stderr
    assert took < 1 + 5 + WAIT_S / 2, took
    log = casefile("log", "quiet", "--db", postgres_url, "--no-pager")
    assert log.returncode == 0 and "lost in the network" not in log.stdout, log.stdout
