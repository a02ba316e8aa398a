"""known_hosts as OpenSSH reads it: @cert-authority, @revoked, hashed names, HashKnownHosts.

The servers are the loopback sshd cluster; every known_hosts and ssh_config file is the test's
own. ``ssh-keygen -F`` (OpenSSH itself) checks that what casefile writes is readable by ssh.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import paramiko
import pytest

from casefile.probes.runners import trust_host
from casefile.probes.runners.ssh import HostKeyRevoked, fingerprint
from casefile.probes.runners.ssh_known_hosts import host_matches, load_known_hosts
from tests.cli.conftest import CLI, cli, cli_registry  # noqa: F401 - fixtures for the CLI test
from tests.runners.sshd import SshdCluster, host_block, make_runner

pytestmark = pytest.mark.ssh

SSH_KEYGEN = shutil.which("ssh-keygen")


def _key_line(sshd: SshdCluster, index: int, marker: str = "", pattern: str | None = None) -> str:
    name = pattern or f"[127.0.0.1]:{sshd.ports[index]}"
    prefix = f"{marker} " if marker else ""
    return f"{prefix}{name} {sshd.host_key.get_name()} {sshd.host_key.get_base64()}\n"


def _other_key_line(pattern: str, marker: str = "") -> str:
    key = paramiko.ECDSAKey.generate()
    prefix = f"{marker} " if marker else ""
    return f"{prefix}{pattern} {key.get_name()} {key.get_base64()}\n"


def test_cert_authority_lines_are_skipped_not_fatal(sshd: SshdCluster, tmp_path: Path) -> None:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(
        "# a CA for the lab, and a revoked key of some other machine\n"
        + _other_key_line("*.lab.example", "@cert-authority")
        + _other_key_line("old-box", "@revoked")
        + _key_line(sshd, 0)
    )
    with make_runner(sshd, known_hosts_path=known_hosts) as runner:
        result = runner.run(sshd.target(0), ["echo", "read fine"])
    assert result.ok, result.error
    assert result.stdout == "read fine\n"
    loaded = load_known_hosts([known_hosts])
    assert loaded.cert_authority_lines == 1
    assert any("@cert-authority" in note for note in loaded.notes)


def test_an_unknown_key_message_mentions_skipped_cert_authority_lines(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(_other_key_line("*", "@cert-authority"))
    with make_runner(sshd, known_hosts_path=known_hosts) as runner:
        result = runner.run(sshd.target(1), ["true"])
    assert result.error_kind == "host_key_unknown"
    assert "1 @cert-authority line skipped" in (result.error or "")
    assert "check the fingerprint" not in (result.error or "")  # the runner advises nothing


def test_damaged_lines_are_skipped_like_openssh_does(sshd: SshdCluster, tmp_path: Path) -> None:
    known_hosts = tmp_path / "known_hosts"
    name = f"[127.0.0.1]:{sshd.ports[0]}"
    known_hosts.write_text(
        "garbage-without-fields\n"
        "@unknown-marker whatever\n"
        f"{name} ssh-ed25519 !!!not-base64!!!\n"
        f"{name} sk-unknown-type@example.com AAAA\n"
        f"{name} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n" + _key_line(sshd, 0)  # truncated key
    )
    with make_runner(sshd, known_hosts_path=known_hosts) as runner:
        assert runner.run(sshd.target(0), ["true"]).ok


REVOKED_PATTERNS = [None, "*", "[127.0.0.?]:*", "[127.0.0.1]:*", "gpu9,[127.0.0.1]:*"]


@pytest.mark.parametrize("pattern", REVOKED_PATTERNS)
def test_a_revoked_key_is_refused_even_when_listed_and_trusted(
    sshd: SshdCluster, tmp_path: Path, pattern: str | None
) -> None:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(_key_line(sshd, 2) + _key_line(sshd, 2, "@revoked", pattern))
    before = known_hosts.read_text()
    for trust in (False, True):
        with make_runner(sshd, known_hosts_path=known_hosts, trust_unknown_host=trust) as runner:
            result = runner.run(sshd.target(2), ["true"])
        assert result.error_kind == "host_key_revoked", result.error
        assert result.exit_status is None
        message = result.error or ""
        assert "REVOKED" in message and fingerprint(sshd.host_key) in message
        assert "\n" not in message
    assert known_hosts.read_text() == before  # nothing trusted, nothing rewritten


def test_a_revoked_key_that_is_not_listed_is_refused_not_unknown(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(_key_line(sshd, 3, "@revoked", "*"))
    with make_runner(sshd, known_hosts_path=known_hosts, trust_unknown_host=True) as runner:
        result = runner.run(sshd.target(3), ["true"])
    assert result.error_kind == "host_key_revoked"
    assert known_hosts.read_text().count("\n") == 1
    with pytest.raises(HostKeyRevoked):
        trust_host(sshd.target(3), known_hosts_path=known_hosts)
    assert known_hosts.read_text().count("\n") == 1


def test_a_revocation_for_other_hosts_does_not_apply(sshd: SshdCluster, tmp_path: Path) -> None:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(_key_line(sshd, 0) + _key_line(sshd, 0, "@revoked", "*,![127.0.0.1]:*"))
    with make_runner(sshd, known_hosts_path=known_hosts) as runner:
        assert runner.run(sshd.target(0), ["true"]).ok


def test_host_patterns() -> None:
    hashed = paramiko.HostKeys.hash_host("[127.0.0.1]:2200")
    assert host_matches("[127.0.0.1]:2200", [hashed])
    assert not host_matches("[127.0.0.1]:2201", [hashed])
    assert host_matches("gpu7.lab", ["gpu?.lab"])
    assert host_matches("GPU7.lab", ["gpu*"])
    assert not host_matches("gpu7.lab", ["*.lab", "!gpu7.lab"])
    assert not host_matches("gpu7", ["gpu8", "box*"])
    assert host_matches("[10.0.0.5]:2222", ["[10.0.0.5]:2222"])  # brackets are literal
    assert not host_matches("1", ["[10.0.0.5]:2222"])
    assert not host_matches("[127.0.0.1]:2222", ["127.0.0.*"])  # as OpenSSH: the port counts


# --- HashKnownHosts ------------------------------------------------------------------------------


def _hashing_config(sshd: SshdCluster, tmp_path: Path, index: int) -> Path:
    config = tmp_path / "ssh_config"
    config.write_text(host_block("hashed-box", sshd, index, "HashKnownHosts yes"))
    return config


def _assert_hashed_entry(known_hosts: Path, name: str) -> None:
    text = known_hosts.read_text()
    assert text.startswith("|1|"), text
    assert "127.0.0.1" not in text
    assert paramiko.HostKeys(str(known_hosts)).lookup(name) is not None
    if SSH_KEYGEN is not None:  # and OpenSSH finds it too
        found = subprocess.run(
            [SSH_KEYGEN, "-F", name, "-f", str(known_hosts)],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        assert found.returncode == 0, found.stderr
        assert f"Host {name} found" in found.stdout


def test_trusting_a_host_hashes_its_name_when_hash_known_hosts_is_set(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    config = _hashing_config(sshd, tmp_path, 1)
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text("")
    options = {"ssh_config_path": config, "known_hosts_path": known_hosts}
    with make_runner(sshd, trust_unknown_host=True, **options) as runner:
        assert runner.run("hashed-box", ["true"]).ok
    _assert_hashed_entry(known_hosts, f"[127.0.0.1]:{sshd.ports[1]}")
    with make_runner(sshd, **options) as runner:  # read back: no trust needed the second time
        assert runner.run("hashed-box", ["true"]).ok
    assert known_hosts.read_text().count("\n") == 1


def test_trust_host_hashes_too(sshd: SshdCluster, tmp_path: Path) -> None:
    config = _hashing_config(sshd, tmp_path, 2)
    known_hosts = tmp_path / "known_hosts"
    info = trust_host("hashed-box", known_hosts_path=known_hosts, ssh_config_path=config)
    assert info.added
    _assert_hashed_entry(known_hosts, f"[127.0.0.1]:{sshd.ports[2]}")
    again = trust_host("hashed-box", known_hosts_path=known_hosts, ssh_config_path=config)
    assert not again.added


def test_cli_trust_host_writes_a_hashed_entry(
    cli: CLI,  # noqa: F811 - the fixture imported above
    sshd: SshdCluster,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    config = _hashing_config(sshd, tmp_path, 3)
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text("")
    case = cli("new", "hashed").out.strip()
    result = cli(
        "probe", case, "command",
        "--host", "hashed-box",
        "--ssh-config", str(config),
        "--known-hosts", str(known_hosts),
        "--connect-timeout", "5",
        "--trust-host",
        "--", "printf", "ok",
    )  # fmt: skip
    assert result.code == 0, result.err
    _assert_hashed_entry(known_hosts, f"[127.0.0.1]:{sshd.ports[3]}")
