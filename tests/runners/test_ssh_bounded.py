"""SSH runs that must never hang, never run away, and stop when cancelled.

Against the real sshd fixture (healthy hosts), a paramiko server that opens sessions and never
answers exec (tests/runners/hung_exec.py) and a listener that never speaks (a dead sshd).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import cast

import pytest

from casefile.probes.runners import RunResult, SshRunner, fan_out_as_completed
from casefile.probes.runners.cancel import CancelToken
from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES, Capture
from tests.runners.hung_exec import HungExecServer
from tests.runners.peak_rss import measure
from tests.runners.sshd import SilentListener, SshdCluster, make_runner
from tests.waiting import PROCESS_S, wait_until

pytestmark = pytest.mark.ssh

PEAK_RSS_LIMIT_MB = 512


@pytest.fixture
def hung_exec(sshd: SshdCluster) -> Iterator[HungExecServer]:
    server = HungExecServer(sshd.host_key)
    yield server
    server.close()


@pytest.fixture
def known_hosts(sshd: SshdCluster, hung_exec: HungExecServer, tmp_path: Path) -> Path:
    """The cluster's known_hosts plus the hung server's port."""
    path = tmp_path / "known_hosts"
    path.write_text(sshd.known_hosts_path.read_text() + hung_exec.known_hosts_line())
    return path


def _hung_target(sshd: SshdCluster, server: HungExecServer) -> str:
    return f"{sshd.user}@127.0.0.1:{server.port}"


def test_a_host_that_never_answers_exec_is_bounded_by_the_connect_timeout(
    sshd: SshdCluster, hung_exec: HungExecServer, known_hosts: Path
) -> None:
    # (timeouts far apart, so that which one ended the wait shows on a loaded machine too)
    with make_runner(sshd, known_hosts_path=known_hosts, connect_timeout_s=3) as runner:
        start = time.monotonic()
        result = runner.run(_hung_target(sshd, hung_exec), ["true"], timeout_s=120)
        elapsed = time.monotonic() - start
    assert hung_exec.interface.exec_requests == 1  # it did get as far as the exec request
    assert result.error_kind == "exec_timeout"
    assert result.timed_out and result.exit_status is None
    assert "did not start the command" in (result.error or "")
    assert 3 <= elapsed < 60


def test_a_hung_exec_is_bounded_by_the_command_timeout_when_that_is_shorter(
    sshd: SshdCluster, hung_exec: HungExecServer, known_hosts: Path
) -> None:
    with make_runner(sshd, known_hosts_path=known_hosts, connect_timeout_s=120) as runner:
        start = time.monotonic()
        result = runner.run(_hung_target(sshd, hung_exec), ["true"], timeout_s=2)
    assert result.timed_out and result.error_kind == "exec_timeout"
    assert 2 <= time.monotonic() - start < 20  # ten times the 2 s, a sixth of the 120 s


def test_healthy_hosts_land_at_once_beside_a_hung_one(
    sshd: SshdCluster, hung_exec: HungExecServer, known_hosts: Path
) -> None:
    hung = _hung_target(sshd, hung_exec)
    targets = [sshd.target(0), hung, sshd.target(1)]
    arrivals: dict[str, float] = {}
    # the hung host is let go after 4 s; a healthy one answers in a fraction of that at rest
    with make_runner(sshd, known_hosts_path=known_hosts, connect_timeout_s=4) as runner:
        start = time.monotonic()
        for result in runner.fan_out_as_completed(targets, ["echo", "ok"], timeout_s=120):
            arrivals[result.host] = time.monotonic() - start
            if result.host != hung:
                assert result.ok and result.stdout == "ok\n", result.error
            else:
                assert result.error_kind == "exec_timeout"
    assert set(arrivals) == set(targets)
    assert max(arrivals[sshd.target(0)], arrivals[sshd.target(1)]) < arrivals[hung]
    assert 4 <= arrivals[hung] < 60


def test_bytes_that_are_not_utf8_arrive_exactly(ssh_runner: SshRunner, sshd: SshdCluster) -> None:
    result = ssh_runner.run(sshd.target(0), ["printf", "caf\\303\\251 \\377\\376\\n"])
    assert result.ok, result.error
    assert result.stdout_bytes == b"caf\xc3\xa9 \xff\xfe\n"
    assert result.stdout == "café \ufffd\ufffd\n"


def test_a_flood_over_ssh_is_cut_and_still_ends_at_its_timeout(
    sshd: SshdCluster,
) -> None:
    with make_runner(sshd, capture_bytes=1000) as runner:
        script = "printf FIRST; head -c 5000000 /dev/zero; printf LAST"
        result = runner.run(sshd.target(2), ["sh", "-c", script], timeout_s=30)
        assert result.ok, result.error
        assert result.stdout_bytes is not None and len(result.stdout_bytes) == 1000
        assert result.stdout_bytes.startswith(b"FIRST") and result.stdout_bytes.endswith(b"LAST")
        (cut,) = result.truncated
        assert (cut.total_bytes, cut.head_bytes, cut.tail_bytes) == (5_000_009, 500, 500)

        # (3 s: on a loaded machine the exec reply alone can take a second, and a reply later
        # than the timeout is an exec timeout, not the command's)
        start = time.monotonic()
        endless = runner.run(sshd.target(2), ["yes"], timeout_s=3)
        assert endless.timed_out, (endless.error_kind, endless.error)
        assert time.monotonic() - start < 15
        assert endless.truncated and endless.truncated[0].total_bytes > 1000


def test_peak_memory_of_a_runaway_ssh_probe_stays_bounded(sshd: SshdCluster) -> None:
    measured = measure(
        {
            "where": "ssh",
            "argv": ["yes"],
            "timeout_s": 3,
            "target": sshd.target(3),
            "known_hosts": str(sshd.known_hosts_path),
            "ssh_config": str(sshd.ssh_config_path),
            "key": str(sshd.user_key_path),
        }
    )
    assert measured["timed_out"] is True, measured
    assert measured["stdout_kept"] == DEFAULT_CAPTURE_BYTES
    assert measured["peak_rss_mb"] < PEAK_RSS_LIMIT_MB, measured  # type: ignore[operator]
    assert "Traceback" not in str(measured["stderr"])


def test_cancel_stops_every_host_within_a_second_keeping_what_finished(
    sshd: SshdCluster,
    hung_exec: HungExecServer,
    known_hosts: Path,
    silent_listener: SilentListener,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = CancelToken()
    hung = _hung_target(sshd, hung_exec)
    silent = f"{sshd.user}@127.0.0.1:{silent_listener.port}"
    targets = [sshd.target(0), hung, silent, sshd.target(1)]
    # The server on the first port answers at once; the others print, then keep running.
    quick_port = sshd.ports[0]
    script = (
        f'case "$SSH_CONNECTION" in *" {quick_port}") echo quick; exit 0;; esac; '
        "echo started; sleep 0.2; echo done; sleep 30"
    )
    read: list[bytes] = []  # every chunk of output the runners have taken in so far
    feed = Capture.feed

    def reading(capture: Capture, data: bytes) -> None:
        read.append(data)
        feed(capture, data)

    monkeypatch.setattr(Capture, "feed", reading)
    runner = make_runner(sshd, known_hosts_path=known_hosts, connect_timeout_s=20, cancel=token)
    runners = [runner.target(target) for target in targets]
    results: dict[str, tuple[RunResult, float]] = {}
    cancelled_at: list[float] = []

    def cancel_once_all_are_under_way() -> None:
        # the quick host has landed, what the running one printed has been read, and the other
        # two are stuck in the exec wait and the banner wait: what a Ctrl-C a moment into a
        # probe meets
        wait_until(lambda: sshd.target(0) in results, what="the quick host landed")
        wait_until(lambda: b"done\n" in b"".join(read), what="the running host's output read")
        wait_until(lambda: hung_exec.interface.exec_requests >= 1, what="the exec was asked")
        wait_until(lambda: silent_listener.accepted >= 1, what="the silent host was dialled")
        cancelled_at.append(time.monotonic())
        token.cancel("test")

    canceller = threading.Thread(target=cancel_once_all_are_under_way, daemon=True)
    try:
        canceller.start()
        for i, result in fan_out_as_completed(
            runners, ["sh", "-c", script], timeout_s=60, cancel=token
        ):
            results[targets[i]] = (result, time.monotonic())
    finally:
        threading.Thread(target=runner.close, daemon=True).start()
    canceller.join()
    assert cancelled_at, "the cancel never came: see the canceller's failure above"
    assert set(results) == set(targets)
    quick, quick_at = results[sshd.target(0)]
    assert quick.ok and quick.stdout == "quick\n" and quick_at < cancelled_at[0]
    # every other host answers within a second of the cancel
    assert max(at for _, at in results.values()) - cancelled_at[0] < 1.0
    for target in (hung, silent, sshd.target(1)):
        result, _ = results[target]
        assert result.cancelled, (target, result.error_kind, result.error)
        assert result.exit_status is None and not result.ok
    running, _ = results[sshd.target(1)]
    assert running.stdout == "started\ndone\n"  # what it printed before the cancel is kept


_SILENT_HOST_SCRIPT = textwrap.dedent(
    """
    import socket, sys, threading, time
    from pathlib import Path
    from casefile.probes.runners import SshRunner
    server = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    import paramiko
    with SshRunner(connect_timeout_s=1, allow_agent=False, look_for_keys=False,
                   known_hosts_path=Path(sys.argv[1])) as runner:
        result = runner.run(f"x@127.0.0.1:{server.getsockname()[1]}", ["true"])
    # paramiko's thread logs its failure after the client gave up: wait for it to end
    deadline = time.monotonic() + 60
    while any(isinstance(t, paramiko.Transport) for t in threading.enumerate()):
        assert time.monotonic() < deadline, "paramiko's transport thread never ended"
        time.sleep(0.02)
    print(result.error_kind)
    """
)


def test_a_silent_host_prints_no_paramiko_traceback(tmp_path: Path) -> None:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text("")
    done = subprocess.run(
        [sys.executable, "-c", _SILENT_HOST_SCRIPT, str(known_hosts)],
        capture_output=True,
        text=True,
        timeout=PROCESS_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "connect_timeout"
    assert "Traceback" not in done.stderr and done.stderr == "", done.stderr


def test_a_collection_left_early_does_not_wait_for_a_host_still_connecting(
    sshd: SshdCluster, silent_listener: SilentListener
) -> None:
    from casefile.app.probing import ProbeRequest, Ssh, collect
    from casefile.domain.facts import ParseResult
    from casefile.probes.api import Probe

    probe = Probe(name="p", summary="", parse=lambda text: ParseResult(), argv=("echo", "ok"))
    dead = f"root@127.0.0.1:{silent_listener.port}"
    where = Ssh(
        (sshd.alias(0), dead),
        known_hosts=sshd.known_hosts_path,
        ssh_config=sshd.ssh_config_path,
        connect_timeout_s=10,
    )
    runs = cast("Generator[RunResult, None, None]", collect(probe, ProbeRequest("p", where)))
    first = next(runs)
    assert first.ok and first.host == sshd.alias(0), first.error
    start = time.monotonic()
    runs.close()  # e.g. Ctrl-C without a cancel token: the dead host is still in its banner wait
    assert time.monotonic() - start < 1.0
