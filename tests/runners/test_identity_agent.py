"""IdentityAgent: the agent socket the SSH config names is the one asked (``none``: no agent).

A throwaway ssh-agent holds the cluster's user key; the runner is given no key files and may not
look in ~/.ssh, so a login succeeds only through the agent the config points at.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runners.sshd import SSH_ADD, SSH_AGENT, SshAgent, SshdCluster, host_block, make_runner
from tests.runners.sshd import start_agent as start_ssh_agent

pytestmark = [
    pytest.mark.ssh,
    pytest.mark.skipif(
        not (SSH_AGENT.exists() and SSH_ADD.exists()), reason="ssh-agent is not installed"
    ),
]


@pytest.fixture
def agent(sshd: SshdCluster) -> Iterator[SshAgent]:
    # A short directory of its own: a Unix socket path must fit in ~100 bytes.
    directory = Path(tempfile.mkdtemp(prefix="cf-agent-"))
    started = start_ssh_agent(directory / "agent.sock")
    started.add(sshd.user_key_path)
    yield started
    started.stop()
    shutil.rmtree(directory, ignore_errors=True)


def _agent_only_block(alias: str, sshd: SshdCluster, index: int, agent_line: str) -> str:
    port = sshd.ports[index]
    return (
        f"Host {alias}\n    HostName 127.0.0.1\n    Port {port}\n    User {sshd.user}\n"
        f"    {agent_line}\n"
    )


def test_identity_agent_socket_from_the_config_is_used(
    sshd: SshdCluster, agent: SshAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)  # only the config names the agent
    config = tmp_path / "ssh_config"
    config.write_text(_agent_only_block("via-agent", sshd, 0, f"IdentityAgent {agent.socket_path}"))
    with make_runner(
        sshd, ssh_config_path=config, identity_files=[], allow_agent=True, look_for_keys=False
    ) as runner:
        result = runner.run("via-agent", ["echo", "agent"])
    assert result.ok, result.error
    assert result.stdout == "agent\n"


def test_identity_agent_none_disables_the_agent(
    sshd: SshdCluster, agent: SshAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSH_AUTH_SOCK", str(agent.socket_path))  # would log in, if asked
    config = tmp_path / "ssh_config"
    config.write_text(
        _agent_only_block("no-agent", sshd, 1, "IdentityAgent none")
        + _agent_only_block("env-agent", sshd, 1, "User " + sshd.user)
    )
    options = {"identity_files": [], "allow_agent": True, "look_for_keys": False}
    with make_runner(sshd, ssh_config_path=config, **options) as runner:
        refused = runner.run("no-agent", ["true"])
        assert refused.error_kind == "auth"
        assert "agent" not in (refused.error or "")  # it was not tried
        assert runner.run("env-agent", ["true"]).ok  # $SSH_AUTH_SOCK is the default


def test_an_unreachable_agent_socket_is_named_in_the_auth_failure(
    sshd: SshdCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    missing = tmp_path / "gone.sock"
    config = tmp_path / "ssh_config"
    config.write_text(_agent_only_block("lost-agent", sshd, 2, f"IdentityAgent {missing}"))
    options = {"identity_files": [], "allow_agent": True, "look_for_keys": False}
    with make_runner(sshd, ssh_config_path=config, **options) as runner:
        result = runner.run("lost-agent", ["true"])
    assert result.error_kind == "auth"
    assert f"the SSH agent at {missing} (cannot connect" in (result.error or "")


def test_host_block_helper_still_pins_the_key(sshd: SshdCluster, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(host_block("pinned", sshd, 3, "IdentityAgent none"))
    with make_runner(sshd, ssh_config_path=config, identity_files=[]) as runner:
        assert runner.run("pinned", ["true"]).ok
