"""Mistakes are not evidence: a typo'd command, an unknown host key, a name that does not
resolve are recorded as failed runs, raise no "unparsed" warning, and carry CLI advice.

The SSH cases run against a real OpenSSH server on loopback (tests/runners/sshd.py); the DNS
failure comes from a stubbed resolver, so no outside name is ever looked up.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casefile.probes.runners import ssh
from tests.cli.conftest import CLI
from tests.runners.sshd import SSHD, SshdCluster, start_cluster


@pytest.fixture(scope="module")
def sshd_one(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshdCluster]:
    if not SSHD.exists():
        message = f"{SSHD} is not installed (apt-get install openssh-server)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the SSH tests: {message}")
        pytest.skip(message)
    cluster = start_cluster(tmp_path_factory.mktemp("sshd-mistakes"), 1)
    yield cluster
    cluster.stop()


@pytest.fixture(autouse=True)
def no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


def codes(cli: CLI, case: str) -> list[str]:
    return [w["code"] for w in json.loads(cli("status", case, "--json").out)["warnings"]]


def runs(cli: CLI, case: str) -> list[dict[str, Any]]:
    events = json.loads(cli("log", case, "--json").out)
    return [e["payload"] for e in events if e["type"] == "probe.ran"]


def ssh_options(cluster: SshdCluster, known_hosts: Path | None = None) -> list[str]:
    return [
        "--host", cluster.alias(0),
        "--ssh-config", str(cluster.ssh_config_path),
        "--known-hosts", str(known_hosts or cluster.known_hosts_path),
        "--connect-timeout", "5",
    ]  # fmt: skip


def test_a_typo_locally_is_a_failed_run_without_an_unparsed_warning(cli: CLI) -> None:
    case = cli("new", "typo").out.strip()
    result = cli("probe", case, "nvidia-smi-query", "--", "nvidia-smii-typo", "-q")
    assert result.code == 1
    assert "command not found: nvidia-smii-typo" in result.err
    (ran,) = runs(cli, case)
    assert ran["error_kind"] == "not_found" and ran.get("exit_status") is None
    assert "unparsed" not in codes(cli, case)
    # output that is really there and really unreadable still is a warning
    assert cli("probe", case, "nvidia-smi-query", "--", "echo", "garbage").code == 1
    assert codes(cli, case).count("unparsed") == 1


@pytest.mark.ssh
def test_a_typo_over_ssh_exits_127_and_raises_no_unparsed_warning(
    cli: CLI, sshd_one: SshdCluster
) -> None:
    case = cli("new", "remote typo").out.strip()
    result = cli("probe", case, "nvidia-smi-query", *ssh_options(sshd_one), "--", "nvsmi-typo")
    assert result.code == 1, result.err
    (ran,) = runs(cli, case)
    assert ran["exit_status"] == 127 and ran["source"] == "ssh"
    assert "unparsed" not in codes(cli, case)


@pytest.mark.ssh
def test_an_unknown_host_key_records_cli_advice_and_no_unparsed_warning(
    cli: CLI, sshd_one: SshdCluster, tmp_path: Path
) -> None:
    case = cli("new", "unknown key").out.strip()
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    result = cli("probe", case, "command", *ssh_options(sshd_one, empty), "--", "true")
    assert result.code == 1
    (ran,) = runs(cli, case)
    assert ran["error_kind"] == "host_key_unknown"
    error = str(ran["error"])
    # what is recorded says what to do in the domain's words; the command names its flag
    assert "trust the key" in error and "SHA256:" in error and "--" not in error
    assert "trust_unknown_host" not in error and "trust_host(" not in error
    assert "(--trust-host)" in result.err
    assert "unparsed" not in codes(cli, case)
    shown = cli("log", case).out
    assert "trust the key" in shown and "trust_unknown_host" not in shown


def test_a_name_that_does_not_resolve_raises_no_unparsed_warning(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_such_name(address: tuple[str, int], *args: object, **kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    # the SSH runner's dial fails as a resolver would: no name is ever looked up
    monkeypatch.setattr(f"{ssh.__name__}.socket.create_connection", no_such_name)
    config = tmp_path / "ssh_config"
    config.write_text("Host gpu-box-typo\n  HostName gpu-box-typo.test\n  User nobody\n")
    known = tmp_path / "known_hosts"
    known.write_text("")
    case = cli("new", "dns").out.strip()
    result = cli(
        "probe", case, "nvidia-smi-query", "--host", "gpu-box-typo",
        "--ssh-config", str(config), "--known-hosts", str(known), "--", "nvidia-smi",
    )  # fmt: skip
    assert result.code == 1
    assert "cannot resolve host gpu-box-typo.test" in result.err
    (ran,) = runs(cli, case)
    assert ran["error_kind"] == "dns"
    assert "unparsed" not in codes(cli, case)
