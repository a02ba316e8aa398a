"""A server that hangs up during the handshake is reported as that, at once, not as a timeout.

Two stand-ins (a listener that closes at once, one that sends a banner and then closes) and a real
sshd past its MaxStartups, which drops new connections while an unauthenticated one is pending.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runners.sshd import (
    SSHD,
    ClosingListener,
    SshdCluster,
    make_runner,
    start_cluster,
    wait_for_port,
)
from tests.waiting import WAIT_S

pytestmark = pytest.mark.ssh

#: Long, so that "at once" has room to mean it on a loaded machine: a hang-up is named in well
#: under a second at rest, and any answer before AT_ONCE_S cannot have waited for the timeout.
CONNECT_TIMEOUT_S = 40.0
AT_ONCE_S = CONNECT_TIMEOUT_S / 4


@pytest.fixture
def closing() -> Iterator[ClosingListener]:
    listener = ClosingListener()
    yield listener
    listener.close()


@pytest.fixture
def banner_then_close() -> Iterator[ClosingListener]:
    listener = ClosingListener(b"SSH-2.0-OpenSSH_9.2p1 stand-in\r\n")
    yield listener
    listener.close()


def test_eof_before_the_banner_is_named_at_once(
    sshd: SshdCluster, closing: ClosingListener
) -> None:
    with make_runner(sshd, connect_timeout_s=CONNECT_TIMEOUT_S) as runner:
        start = time.monotonic()
        result = runner.run(f"{sshd.user}@127.0.0.1:{closing.port}", ["true"])
        elapsed = time.monotonic() - start
    assert result.error_kind == "closed", result.error
    assert not result.timed_out
    message = result.error or ""
    assert message.startswith(f"connection closed by 127.0.0.1:{closing.port} before")
    assert "within" not in message
    assert elapsed < AT_ONCE_S


def test_eof_after_the_banner_is_named_at_once(
    sshd: SshdCluster, banner_then_close: ClosingListener
) -> None:
    with make_runner(sshd, connect_timeout_s=CONNECT_TIMEOUT_S) as runner:
        start = time.monotonic()
        result = runner.run(f"{sshd.user}@127.0.0.1:{banner_then_close.port}", ["true"])
        elapsed = time.monotonic() - start
    assert result.error_kind == "closed", result.error
    assert "during key exchange" in (result.error or "")
    assert not result.timed_out
    assert elapsed < AT_ONCE_S


@pytest.fixture
def crowded_sshd(tmp_path: Path) -> Iterator[SshdCluster]:
    if not SSHD.exists():
        pytest.skip(f"{SSHD} is not installed")
    cluster = start_cluster(tmp_path / "sshd", 1, extra_config=("MaxStartups 1",))
    yield cluster
    cluster.stop()


def test_a_real_sshd_dropping_the_connection_is_reported_as_closed(
    crowded_sshd: SshdCluster,
) -> None:
    port = crowded_sshd.ports[0]
    wait_for_port(port, WAIT_S)
    with (
        _hold_the_only_startup_slot(port),
        make_runner(crowded_sshd, connect_timeout_s=CONNECT_TIMEOUT_S) as runner,
    ):
        start = time.monotonic()
        result = runner.run(crowded_sshd.target(0), ["true"])
        elapsed = time.monotonic() - start
    assert result.error_kind == "closed", result.error
    assert not result.timed_out
    assert elapsed < AT_ONCE_S


@contextlib.contextmanager
def _hold_the_only_startup_slot(port: int) -> Iterator[None]:
    """An unauthenticated connection that sshd greeted (the slot of the port probe that
    start_cluster made may take a moment to free), kept open while the test runs.

    The greeting is the proof that the connection holds the slot: sshd counts a startup before
    it forks the child that sends the banner, and drops a connection past MaxStartups unanswered.
    """
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        pending = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
        if pending.recv(256).startswith(b"SSH-"):
            try:
                yield
            finally:
                pending.close()
            return
        pending.close()
        time.sleep(0.1)
    raise RuntimeError(f"sshd on port {port} never greeted a connection")
