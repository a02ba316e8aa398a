"""`casefile probe … --host` against a real OpenSSH server on loopback.

The server comes from tests/runners/sshd.py. The CLI's runner is the one users get: no identity
files passed in, so the key comes from the alias's IdentityFile in `--ssh-config`, and host keys
are checked against `--known-hosts`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import CLI
from tests.runners.sshd import SSHD, SshdCluster, start_cluster

pytestmark = pytest.mark.ssh


@pytest.fixture(scope="module")
def sshd_one(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshdCluster]:
    if not SSHD.exists():
        message = f"{SSHD} is not installed (apt-get install openssh-server)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the SSH tests: {message}")
        pytest.skip(message)
    cluster = start_cluster(tmp_path_factory.mktemp("sshd-cli"), 1)
    yield cluster
    cluster.stop()


@pytest.fixture(autouse=True)
def no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the alias's IdentityFile may log in: the developer's agent must not be consulted.
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


def probe_runs(cli: CLI, case: str) -> list[dict[str, object]]:
    events = json.loads(cli("log", case, "--json").out)
    return [e["payload"] for e in events if e["type"] == "probe.ran"]


def test_known_hosts_and_ssh_config_options_run_the_command_literally(
    cli: CLI, sshd_one: SshdCluster, tmp_path: Path
) -> None:
    case = cli("new", "over ssh").out.strip()
    literal = "a;b $(id)"
    result = cli(
        "probe", case, "command",
        "--host", sshd_one.alias(0),
        "--ssh-config", str(sshd_one.ssh_config_path),
        "--known-hosts", str(sshd_one.known_hosts_path),
        "--connect-timeout", "5",
        "--", "printf", "%s", literal,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.err == ""
    assert "runner failed" not in result.out
    (ran,) = probe_runs(cli, case)
    assert ran["argv"] == ["printf", "%s", literal]
    assert ran["exit_status"] == 0 and ran["source"] == "ssh"
    assert ran["stdout_artifact"] == hashlib.sha256(literal.encode()).hexdigest()
    exported = tmp_path / "exported"
    assert cli("export", case, str(exported)).code == 0
    assert (exported / "artifacts" / str(ran["stdout_artifact"])).read_text() == literal


def test_an_unknown_host_key_is_a_recorded_failure_naming_trust_host(
    cli: CLI, sshd_one: SshdCluster, tmp_path: Path
) -> None:
    case = cli("new", "unknown host").out.strip()
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    options = [
        "--host", sshd_one.alias(0),
        "--ssh-config", str(sshd_one.ssh_config_path),
        "--known-hosts", str(empty),
        "--connect-timeout", "5",
    ]  # fmt: skip
    refused = cli("probe", case, "command", *options, "--", "true")
    assert refused.code == 1
    assert refused.err.count("\n") == 1, refused.err
    assert "--trust-host" in refused.err
    assert "not trusted" in refused.err and "SHA256:" in refused.err
    assert "Traceback" not in refused.err and "AttributeError" not in refused.err
    assert empty.read_text() == ""  # nothing trusted behind the user's back
    (ran,) = probe_runs(cli, case)  # the failure is recorded: it is data
    assert ran.get("exit_status") is None and "not trusted" in str(ran["error"])

    trusted = cli("probe", case, "command", *options, "--trust-host", "--", "printf", "ok")
    assert trusted.code == 0, trusted.err
    assert f"[127.0.0.1]:{sshd_one.ports[0]}" in empty.read_text()


def test_verbose_shows_the_ssh_handshake_and_the_default_does_not(
    cli: CLI, sshd_one: SshdCluster
) -> None:
    case = cli("new", "verbose ssh").out.strip()
    options = (
        "--host", sshd_one.alias(0),
        "--ssh-config", str(sshd_one.ssh_config_path),
        "--known-hosts", str(sshd_one.known_hosts_path),
        "--", "true",
    )  # fmt: skip
    quiet = cli("probe", case, "command", *options)
    assert quiet.code == 0 and quiet.err == ""
    loud = cli("-v", "probe", case, "command", *options)
    assert loud.code == 0, loud.err
    said = loud.err.splitlines()
    assert any(line.startswith("casefile: paramiko.transport: Connected") for line in said), said
    assert any("Authentication (publickey) successful" in line for line in said), said
