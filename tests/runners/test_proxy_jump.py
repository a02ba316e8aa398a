"""ProxyJump through the loopback sshd cluster: the jump hosts and the targets are its servers.

The sshd config allows direct-tcpip only to the cluster's loopback addresses (PermitOpen), so a
jump can never make sshd dial out. Each test checks that the connection really went through the
jump (its socket is an SSH channel, the jump host has a pooled connection of its own).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import paramiko
import pytest

from casefile.probes.runners.ssh import SshRunner, resolve_target
from tests.runners.sshd import SshdCluster, free_port, host_block, make_runner

pytestmark = [
    pytest.mark.ssh,
    pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed"),
]


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ssh_config"
    path.write_text(text)
    return path


def _through_a_channel(runner: SshRunner, target: str) -> bool:
    transport = runner.transport(target)
    return transport is not None and isinstance(transport.sock, paramiko.Channel)


def test_proxy_jump_from_an_included_file_goes_through_the_jump(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    included = tmp_path / "jumps.conf"
    included.write_text(host_block("behind", sshd, 1, "ProxyJump jumphost"))
    config = _config(tmp_path, f"Include {included}\n" + host_block("jumphost", sshd, 0))
    target = resolve_target("behind", config_path=config)
    assert target.proxy_jump == ("jumphost",)
    with make_runner(sshd, ssh_config_path=config, identity_files=[]) as runner:
        result = runner.run("behind", ["sh", "-c", "echo $SSH_CONNECTION"])
        assert result.ok, result.error
        assert _through_a_channel(runner, "behind")
        assert runner.transport("jumphost") is not None  # the jump host's own pooled connection
        assert runner.pool.connect_count == 2
        assert result.stdout.split()[3] == str(sshd.ports[1])  # the target's sshd answered
        # Later commands reuse both connections; the jump host is usable directly too.
        assert runner.run("behind", ["true"]).ok
        assert runner.run("jumphost", ["true"]).ok
        assert runner.pool.connect_count == 2


def test_many_targets_behind_one_jump_share_its_connection(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    behind = [f"behind{i}" for i in (1, 2, 3)]
    config = _config(
        tmp_path,
        host_block("jumphost", sshd, 0)
        + "".join(
            host_block(alias, sshd, i + 1, "ProxyJump jumphost") for i, alias in enumerate(behind)
        ),
    )
    # Nine runs, four handshakes and three tunnels at once on a loaded machine: the connect
    # timeout gets the slack of a test that waits (5 s each was missed under the full suite,
    # and a run timed out or redialled instead of sharing)
    with make_runner(sshd, ssh_config_path=config, connect_timeout_s=30.0) as runner:
        results = runner.fan_out(behind * 3, ["true"])
        assert all(r.ok for r in results), [(r.error_kind, r.error) for r in results if not r.ok]
        assert runner.pool.connect_count == 1 + len(behind)  # one jump connection, shared
        assert all(_through_a_channel(runner, alias) for alias in behind)


def test_two_hops_in_user_at_host_port_form(sshd: SshdCluster, tmp_path: Path) -> None:
    user = sshd.user
    hops = f"{user}@127.0.0.1:{sshd.ports[0]},ssh://{user}@127.0.0.1:{sshd.ports[1]}"
    config = _config(tmp_path, host_block("far", sshd, 2, f"ProxyJump {hops}"))
    with make_runner(sshd, ssh_config_path=config) as runner:
        result = runner.run("far", ["echo", "two hops"])
        assert result.ok, result.error
        assert result.stdout == "two hops\n"
        assert _through_a_channel(runner, "far")
        assert runner.pool.connect_count == 3


def test_the_jump_hosts_key_is_verified(sshd: SshdCluster, tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        host_block("jumphost", sshd, 0) + host_block("behind", sshd, 1, "ProxyJump jumphost"),
    )
    known_hosts = tmp_path / "known_hosts"  # knows the target only, not the jump host
    known_hosts.write_text(
        f"[127.0.0.1]:{sshd.ports[1]} {sshd.host_key.get_name()} {sshd.host_key.get_base64()}\n"
    )
    with make_runner(sshd, ssh_config_path=config, known_hosts_path=known_hosts) as runner:
        result = runner.run("behind", ["true"])
    assert result.error_kind == "host_key_unknown"
    message = result.error or ""
    assert message.startswith("jump host jumphost: host key for jumphost")
    assert f"[127.0.0.1]:{sshd.ports[0]}" in message


def test_a_target_the_jump_host_cannot_reach_is_named(sshd: SshdCluster, tmp_path: Path) -> None:
    dead = free_port()
    config = _config(
        tmp_path,
        host_block("jumphost", sshd, 0)
        + f"Host nothing-there\n    HostName 127.0.0.1\n    Port {dead}\n    ProxyJump jumphost\n",
    )
    with make_runner(sshd, ssh_config_path=config) as runner:
        start = time.monotonic()
        result = runner.run("nothing-there", ["true"])
    assert result.error_kind == "jump"
    assert f"jump host jumphost could not connect to 127.0.0.1:{dead}" in (result.error or "")
    assert time.monotonic() - start < 3


def test_a_proxy_jump_loop_is_refused(sshd: SshdCluster, tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        host_block("ping", sshd, 0, "ProxyJump pong")
        + host_block("pong", sshd, 1, "ProxyJump ping"),
    )
    with make_runner(sshd, ssh_config_path=config) as runner:
        start = time.monotonic()
        result = runner.run("ping", ["true"])
    assert result.error_kind == "config"
    assert "loops back" in (result.error or "")
    assert time.monotonic() - start < 2


def test_a_dead_jump_host_is_named_with_its_own_failure(sshd: SshdCluster, tmp_path: Path) -> None:
    dead = free_port()
    config = _config(
        tmp_path, host_block("behind", sshd, 1, f"ProxyJump {sshd.user}@127.0.0.1:{dead}")
    )
    with make_runner(sshd, ssh_config_path=config) as runner:
        result = runner.run("behind", ["true"])
    assert result.error_kind == "refused"
    message = result.error or ""
    assert message.startswith(f"jump host {sshd.user}@")  # as ssh -G spells it: [127.0.0.1]:port
    assert message.endswith(f": connection refused by 127.0.0.1:{dead}")
