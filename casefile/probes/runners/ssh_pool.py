"""Reuse of SSH connections: one open connection per ``(user, host, port)``, shared by threads.

Consecutive commands to one host share one TCP connection and SSH transport, each command on a
new channel. A pooled connection found dead when the next command needs it is discarded and
dialled again, once (the runner decides when; the pool only keeps and hands out connections,
and counts the runs on each, since closing one that others are running on ends theirs too).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import paramiko

from casefile.probes.runners.ssh_targets import PoolKey


class ConnectFailure(Exception):
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
    last_failure: ConnectFailure | None = None
    #: commands running on the pooled connection now (see ConnectionPool.in_use)
    running: int = 0


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
            except ConnectFailure as failure:
                entry.last_failure = failure
                raise
            entry.last_failure = None
            return entry.client

    @contextmanager
    def running(self, key: PoolKey) -> Iterator[None]:
        """Count a command as running on ``key``'s connection while the block runs."""
        with self._lock:
            entry = self._entries.setdefault(key, _PoolEntry())
            entry.running += 1
        try:
            yield
        finally:
            with self._lock:
                entry.running -= 1

    def in_use(self, key: PoolKey) -> int:
        """How many commands are running on ``key``'s connection now: a connection others are
        using is working, whatever one failed channel open suggests, and closing it would end
        their commands too."""
        with self._lock:
            entry = self._entries.get(key)
            return entry.running if entry is not None else 0

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


def _is_alive(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    return transport is not None and transport.is_active()
