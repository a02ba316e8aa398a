"""SshRunner against real OpenSSH servers on loopback (see conftest.py and sshd.py)."""

from __future__ import annotations

import time
from pathlib import Path

import paramiko
import pytest

from casefile.errors import RunnerError
from casefile.probes.runners import (
    HostKeyChanged,
    SshRunner,
    SshTargetRunner,
    resolve_target,
    trust_host,
)
from casefile.probes.runners.ssh import fingerprint, parse_target
from tests.runners.contract import RunnerContract
from tests.runners.sshd import SilentListener, SshdCluster, free_port, make_runner
from tests.waiting import WAIT_S, wait_until

pytestmark = pytest.mark.ssh


class TestSshRunnerContract(RunnerContract):
    expected_source = "ssh"

    @pytest.fixture
    def runner(self, ssh_runner: SshRunner, sshd: SshdCluster) -> SshTargetRunner:
        return ssh_runner.target(sshd.target(0))


# --- targets and ssh config -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ("gpu7", (None, "gpu7", None)),
        ("root@gpu7", ("root", "gpu7", None)),
        ("root@10.0.0.5:2222", ("root", "10.0.0.5", 2222)),
        ("[fe80::1]:2200", (None, "fe80::1", 2200)),
        ("me@fe80::1", ("me", "fe80::1", None)),
    ],
)
def test_parse_target(spec: str, parts: tuple[str | None, str, int | None]) -> None:
    assert parse_target(spec) == parts


@pytest.mark.parametrize("spec", ["", "@host", "host:99999", "host:ssh", "[::1", "[::1]x"])
def test_parse_target_refuses_nonsense(spec: str) -> None:
    with pytest.raises(RunnerError, match="SSH target"):
        parse_target(spec)


def test_alias_resolution(sshd: SshdCluster) -> None:
    target = resolve_target("box1", config_path=sshd.ssh_config_path)
    assert target.hostname == "127.0.0.1"
    assert target.port == sshd.ports[1]
    assert target.user == sshd.user
    assert target.identity_files == (str(sshd.user_key_path),)
    assert target.identities_only
    overridden = resolve_target("someone@box1:2200", config_path=sshd.ssh_config_path)
    assert (overridden.user, overridden.port) == ("someone", 2200)


def test_run_through_an_alias_uses_the_config_key(sshd: SshdCluster) -> None:
    # No identity files given to the runner: the key comes from IdentityFile in ssh_config.
    runner = make_runner(sshd, identity_files=[])
    with runner:
        result = runner.run("box2", ["sh", "-c", "echo $USER"])
    assert result.ok, result.error
    assert result.stdout == f"{sshd.user}\n"
    assert result.host == "box2"


def test_a_jump_the_jump_host_refuses_is_named(ssh_runner: SshRunner) -> None:
    # ProxyJump is followed now; the test sshd only forwards to its own cluster's addresses,
    # so this target (a loopback address outside it) is refused by the jump host
    result = ssh_runner.run("jumpy", ["true"])
    assert result.error_kind == "jump"
    assert result.error is not None and "box0" in result.error


# --- running commands -------------------------------------------------------------------------


def test_remote_command_not_found_is_exit_127(ssh_runner: SshRunner, sshd: SshdCluster) -> None:
    result = ssh_runner.run(sshd.target(0), ["nvidia-smi-does-not-exist"])
    assert result.exit_status == 127
    assert "not found" in result.stderr


def test_injection_arrives_as_one_literal_argument(
    ssh_runner: SshRunner, sshd: SshdCluster, tmp_path: Path
) -> None:
    pwned = tmp_path / "pwned"
    victim = tmp_path / "x"
    victim.mkdir()
    for arg in (
        f"; rm -rf {victim}",
        f"$(touch {pwned})",
        f"`touch {pwned}`",
        f"' ; touch {pwned}",
    ):
        result = ssh_runner.run(sshd.target(0), ["printf", "%s\\n", arg])
        assert result.ok, result
        assert result.stdout == arg + "\n"
    assert not pwned.exists()
    assert victim.exists()


def test_timeout_closes_channel_and_connection_is_reused(
    ssh_runner: SshRunner, sshd: SshdCluster
) -> None:
    target = sshd.target(0)
    start = time.monotonic()
    result = ssh_runner.run(target, ["sleep", "30"], timeout_s=1)
    assert result.timed_out
    assert result.exit_status is None
    assert 0.9 <= result.duration_s < 2.5
    assert time.monotonic() - start < 2.5
    after = ssh_runner.run(target, ["echo", "still here"])
    assert after.stdout == "still here\n"
    assert ssh_runner.pool.connect_count == 1


def test_connection_is_reused(ssh_runner: SshRunner, sshd: SshdCluster) -> None:
    target = sshd.target(1)
    assert ssh_runner.run(target, ["true"]).ok
    first = ssh_runner.transport(target)
    assert first is not None
    local_port = first.sock.getsockname()[1]  # type: ignore[union-attr]
    for _ in range(3):
        assert ssh_runner.run(target, ["true"]).ok
    assert ssh_runner.transport(target) is first
    assert first.sock.getsockname()[1] == local_port  # type: ignore[union-attr]
    assert ssh_runner.pool.connect_count == 1
    # The alias for the same (user, host, port) shares the connection too.
    assert ssh_runner.run(sshd.alias(1), ["true"]).ok
    assert ssh_runner.pool.connect_count == 1


def test_dead_pooled_connection_is_redialled(ssh_runner: SshRunner, sshd: SshdCluster) -> None:
    target = sshd.target(2)
    assert ssh_runner.run(target, ["true"]).ok
    transport = ssh_runner.transport(target)
    assert transport is not None
    transport.close()
    result = ssh_runner.run(target, ["echo", "again"])
    assert result.stdout == "again\n"
    assert ssh_runner.pool.connect_count == 2


def test_a_channel_open_that_fails_beside_a_running_command_keeps_their_connection(
    ssh_runner: SshRunner, sshd: SshdCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session open that times out on a loaded host, while another command runs on the same
    connection: the connection works, and closing it to redial ended the other command
    ('ended without an exit status', seen under the full suite's load). It is tried once more
    on the same connection instead."""
    import threading

    import paramiko

    target = sshd.target(2)
    assert ssh_runner.run(target, ["true"]).ok
    transport = ssh_runner.transport(target)
    assert transport is not None
    real = transport.open_session
    failures: list[int] = []
    opened: list[paramiko.Channel] = []

    def slow_once(*args: object, **kwargs: object) -> paramiko.Channel:
        # only the open beside the running command fails (each run counts itself too)
        if ssh_runner.pool.in_use(ssh_runner.resolve(target).key) > 1 and not failures:
            failures.append(1)
            raise paramiko.SSHException("Timeout opening channel.")
        channel = real(*args, **kwargs)  # type: ignore[arg-type]
        opened.append(channel)
        return channel

    monkeypatch.setattr(transport, "open_session", slow_once)
    long: list[object] = []
    runner = threading.Thread(target=lambda: long.append(ssh_runner.run(target, ["sleep", "2"])))
    runner.start()
    wait_until(lambda: opened, what="the long command's session opened")  # it is running
    beside = ssh_runner.run(target, ["echo", "beside"])
    runner.join(WAIT_S)
    assert failures and beside.stdout == "beside\n"
    (first,) = long
    assert first.ok, first.error  # type: ignore[attr-defined]
    assert ssh_runner.pool.connect_count == 1


def test_concurrent_first_use_shares_one_connection(
    ssh_runner: SshRunner, sshd: SshdCluster
) -> None:
    ssh_runner.connect_timeout_s = 30.0  # eight sessions opening at once on a loaded machine
    results = ssh_runner.fan_out([sshd.target(3)] * 8, ["true"])
    assert all(r.ok for r in results), [(r.error_kind, r.error) for r in results if not r.ok]
    assert ssh_runner.pool.connect_count == 1


# --- host keys --------------------------------------------------------------------------------


def _empty_known_hosts(tmp_path: Path) -> Path:
    path = tmp_path / "known_hosts"
    path.write_text("")
    return path


def test_unknown_host_key_is_refused(sshd: SshdCluster, tmp_path: Path) -> None:
    with make_runner(sshd, known_hosts_path=_empty_known_hosts(tmp_path)) as runner:
        result = runner.run(sshd.target(0), ["true"])
    assert result.error_kind == "host_key_unknown"
    assert result.exit_status is None
    message = result.error or ""
    assert message.startswith("host key")
    assert "\n" not in message
    assert f"[127.0.0.1]:{sshd.ports[0]}" in message
    assert "ecdsa-sha2-nistp256" in message
    assert fingerprint(sshd.host_key) in message
    assert "trust_host(" not in message and "check the fingerprint" not in message  # no advice


def test_fingerprint_matches_openssh_format(sshd: SshdCluster) -> None:
    value = fingerprint(sshd.host_key)
    assert value.startswith("SHA256:") and not value.endswith("=")
    assert value == sshd.host_key.fingerprint  # paramiko's own OpenSSH-compatible rendering


def test_trust_unknown_host_accepts_and_saves(sshd: SshdCluster, tmp_path: Path) -> None:
    known_hosts = _empty_known_hosts(tmp_path)
    with make_runner(sshd, known_hosts_path=known_hosts, trust_unknown_host=True) as runner:
        assert runner.run(sshd.target(1), ["true"]).ok
    saved = paramiko.HostKeys(str(known_hosts))
    assert saved.lookup(f"[127.0.0.1]:{sshd.ports[1]}") is not None
    with make_runner(sshd, known_hosts_path=known_hosts) as runner:
        assert runner.run(sshd.target(1), ["true"]).ok


def test_trust_host_function(sshd: SshdCluster, tmp_path: Path) -> None:
    known_hosts = tmp_path / "sub" / "known_hosts"  # created, with its directory
    info = trust_host(sshd.target(2), known_hosts_path=known_hosts)
    assert info.added
    assert info.fingerprint == fingerprint(sshd.host_key)
    assert info.known_hosts_name == f"[127.0.0.1]:{sshd.ports[2]}"
    assert not trust_host(sshd.target(2), known_hosts_path=known_hosts).added
    assert len(known_hosts.read_text().splitlines()) == 1
    with make_runner(sshd, known_hosts_path=known_hosts) as runner:
        assert runner.run(sshd.target(2), ["true"]).ok


def _changed_known_hosts(sshd: SshdCluster, tmp_path: Path) -> Path:
    impostor = paramiko.ECDSAKey.generate()
    path = tmp_path / "known_hosts"
    path.write_text(f"[127.0.0.1]:{sshd.ports[3]} {impostor.get_name()} {impostor.get_base64()}\n")
    return path


def test_changed_host_key_is_refused_even_with_trust(sshd: SshdCluster, tmp_path: Path) -> None:
    known_hosts = _changed_known_hosts(sshd, tmp_path)
    before = known_hosts.read_text()
    for trust in (False, True):
        with make_runner(sshd, known_hosts_path=known_hosts, trust_unknown_host=trust) as runner:
            result = runner.run(sshd.target(3), ["true"])
        assert result.error_kind == "host_key_changed"
        assert result.exit_status is None
        message = result.error or ""
        assert message.startswith("host key CHANGED")
        assert "MAN-IN-THE-MIDDLE" in message
        assert fingerprint(sshd.host_key) in message
    with pytest.raises(HostKeyChanged):
        trust_host(sshd.target(3), known_hosts_path=known_hosts)
    assert known_hosts.read_text() == before


# --- connection failures are data --------------------------------------------------------------


def test_refused_port(ssh_runner: SshRunner) -> None:
    result = ssh_runner.run(f"root@127.0.0.1:{free_port()}", ["true"])
    assert result.error_kind == "refused"
    assert result.exit_status is None
    assert "refused" in (result.error or "")


def test_unresolvable_host(ssh_runner: SshRunner) -> None:
    result = ssh_runner.run("no-such-host.invalid", ["true"])
    assert result.error_kind == "dns"
    assert "no-such-host.invalid" in (result.error or "")


def test_wrong_key_is_an_auth_failure(sshd: SshdCluster, tmp_path: Path) -> None:
    stranger = tmp_path / "id_stranger"
    paramiko.ECDSAKey.generate().write_private_key_file(str(stranger))
    with make_runner(sshd, identity_files=[stranger]) as runner:
        result = runner.run(sshd.target(0), ["true"])
    assert result.error_kind == "auth"
    assert str(stranger) in (result.error or "")
    assert "BEGIN" not in (result.error or "")  # names the key file, never its contents


def test_no_keys_at_all_is_an_auth_failure(sshd: SshdCluster) -> None:
    with make_runner(sshd, identity_files=[]) as runner:
        result = runner.run(sshd.target(0), ["true"])
    assert result.error_kind == "auth"


def test_silent_server_times_out_at_connect_timeout(
    ssh_runner: SshRunner, silent_listener: SilentListener
) -> None:
    start = time.monotonic()
    result = ssh_runner.run(f"root@127.0.0.1:{silent_listener.port}", ["true"], connect_timeout_s=1)
    assert result.error_kind == "connect_timeout"
    assert result.timed_out
    assert 0.9 <= time.monotonic() - start < 2.5


# --- fan-out ----------------------------------------------------------------------------------


def test_fan_out_one_hung_host_delays_nobody(
    sshd: SshdCluster, silent_listener: SilentListener
) -> None:
    hung = f"root@127.0.0.1:{silent_listener.port}"
    live = [sshd.target(i) if i % 2 else sshd.alias(i) for i in range(15)]
    targets = [*live[:7], hung, *live[7:]]
    arrivals: dict[str, list[float]] = {}
    with make_runner(sshd, connect_timeout_s=4) as runner:
        start = time.monotonic()
        results = []
        for result in runner.fan_out_as_completed(targets, ["sh", "-c", "sleep 0.2; echo ok"]):
            arrivals.setdefault(result.host, []).append(time.monotonic() - start)
            results.append(result)
    assert len(results) == 16
    live_results = [r for r in results if r.host != hung]
    assert all(r.ok and r.stdout == "ok\n" for r in live_results), [r.error for r in live_results]
    # nobody waits for the hung host: every live one lands before its 4 s connect timeout
    # (0.4 s at rest and under load here)
    assert max(t for host, times in arrivals.items() if host != hung for t in times) < 4.0
    (hung_result,) = [r for r in results if r.host == hung]
    assert hung_result.error_kind == "connect_timeout"
    assert 3.8 <= arrivals[hung][0] < 6


def test_fan_out_in_target_order(ssh_runner: SshRunner, sshd: SshdCluster) -> None:
    dead = f"root@127.0.0.1:{free_port()}"
    targets = [sshd.target(0), dead, sshd.alias(1)]
    results = ssh_runner.fan_out(targets, ["hostname"])
    assert [r.host for r in results] == targets
    assert results[0].ok and results[2].ok
    assert results[1].error_kind == "refused"
