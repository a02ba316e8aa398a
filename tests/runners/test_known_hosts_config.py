"""The SSH config's host-key options: UserKnownHostsFile, GlobalKnownHostsFile,
StrictHostKeyChecking and HostKeyAlias, honoured where ``ssh`` honours them (R3-M4).

The servers are the loopback sshd cluster; every ssh_config and known_hosts file is the test's
own, and ``HOME`` points into tmp_path, so nothing reads or writes the real ~/.ssh even on code
that ignores these options. Every alias is a ``HostName 127.0.0.1`` block. Where casefile records
a key, OpenSSH's own ``ssh`` is then run against the same files with
``StrictHostKeyChecking yes``: it must find the key where casefile put it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import paramiko
import pytest

from casefile.errors import RunnerError
from casefile.probes.runners import trust_host
from casefile.probes.runners.ssh import resolve_target
from casefile.probes.runners.ssh_config import OpenSshConfig
from tests.cli.conftest import CLI, cli, cli_registry  # noqa: F401 - fixtures for the CLI test
from tests.runners.sshd import SshdCluster, host_block, make_runner
from tests.waiting import PROCESS_S

pytestmark = pytest.mark.ssh

SSH = shutil.which("ssh")
needs_ssh = pytest.mark.skipif(SSH is None, reason="OpenSSH client not installed")


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``HOME`` in tmp_path (where code that ignores the options would write), no agent."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return home


def _config(tmp_path: Path, sshd: SshdCluster, alias: str, index: int, *options: str) -> Path:
    """A config with one alias for the index-th server; its global file is the test's too."""
    config = tmp_path / "ssh_config"
    global_file = tmp_path / "global_known_hosts"
    config.write_text(
        host_block(alias, sshd, index, f"GlobalKnownHostsFile {global_file}", *options)
    )
    return config


def _line(name: str, key: paramiko.PKey) -> str:
    return f"{name} {key.get_name()} {key.get_base64()}\n"


def _address(sshd: SshdCluster, index: int) -> str:
    return f"[127.0.0.1]:{sshd.ports[index]}"


def _ssh_finds_the_key(config: Path, alias: str) -> None:
    """OpenSSH's client, refusing unknown keys, logs in with the same config and files."""
    assert SSH is not None
    done = subprocess.run(
        [SSH, "-F", str(config), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
         "-o", "UpdateHostKeys=no", "-o", "LogLevel=ERROR", "--", alias, "true"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PROCESS_S,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def _run(sshd: SshdCluster, config: Path, alias: str, trust: bool = False) -> tuple[str, str]:
    """Run ``true`` on ``alias`` with the config's own known_hosts files: (error_kind, error)."""
    with make_runner(
        sshd, ssh_config_path=config, known_hosts_path=None, trust_unknown_host=trust
    ) as runner:
        result = runner.run(alias, ["true"])
    return result.error_kind or "", result.error or ""


@needs_ssh
def test_user_known_hosts_files_are_read_and_trusting_writes_the_first(
    sshd: SshdCluster, tmp_path: Path, home: Path
) -> None:
    first, second = tmp_path / "kh-first", tmp_path / "kh-second"
    config = _config(tmp_path, sshd, "kh-box", 0, f"UserKnownHostsFile {first} {second}")
    assert resolve_target("kh-box", config_path=config).hostname == "127.0.0.1"
    second.write_text(_line(_address(sshd, 0), sshd.host_key))
    assert _run(sshd, config, "kh-box") == ("", "")  # found in the second file

    second.write_text("")
    kind, error = _run(sshd, config, "kh-box")
    assert kind == "host_key_unknown"
    assert f"is not in {first} (nor in the 2 other known_hosts files read)" in error
    assert _run(sshd, config, "kh-box", trust=True) == ("", "")
    assert first.read_text() == _line(_address(sshd, 0), sshd.host_key)
    assert second.read_text() == ""
    assert not (home / ".ssh").exists()
    _ssh_finds_the_key(config, "kh-box")


@needs_ssh
def test_user_known_hosts_file_tokens_are_expanded(sshd: SshdCluster, tmp_path: Path) -> None:
    config = _config(
        tmp_path, sshd, "token-box", 1, f"UserKnownHostsFile {tmp_path}/kh-%h-%p-%n-%u"
    )
    info = trust_host("token-box", ssh_config_path=config)
    assert info.added
    user = pwd.getpwuid(os.getuid()).pw_name
    written = tmp_path / f"kh-127.0.0.1-{sshd.ports[1]}-token-box-{user}"
    assert written.read_text() == _line(_address(sshd, 1), sshd.host_key)
    _ssh_finds_the_key(config, "token-box")


@needs_ssh
@pytest.mark.parametrize("setting", ["accept-new", "no", "off"])
def test_accept_new_records_an_unknown_key_and_refuses_a_changed_one(
    sshd: SshdCluster, tmp_path: Path, setting: str
) -> None:
    known_hosts = tmp_path / "known_hosts"
    config = _config(
        tmp_path,
        sshd,
        "new-box",
        2,
        f"UserKnownHostsFile {known_hosts}",
        f"StrictHostKeyChecking {setting}",
    )
    assert _run(sshd, config, "new-box") == ("", "")  # not trusted by the caller: the config
    recorded = _line(_address(sshd, 2), sshd.host_key)
    assert known_hosts.read_text() == recorded
    assert _run(sshd, config, "new-box") == ("", "")
    assert known_hosts.read_text() == recorded  # known now: not recorded twice
    _ssh_finds_the_key(config, "new-box")

    other = paramiko.ECDSAKey.generate()
    known_hosts.write_text(_line(_address(sshd, 2), other))
    for trust in (False, True):
        kind, error = _run(sshd, config, "new-box", trust=trust)
        assert kind == "host_key_changed", error
        assert f"-f {known_hosts}" in error
    assert known_hosts.read_text() == _line(_address(sshd, 2), other)


@needs_ssh
@pytest.mark.parametrize("setting", ["yes", "ask"])
def test_strict_checking_refuses_an_unknown_key_unless_the_caller_trusts_it(
    sshd: SshdCluster, tmp_path: Path, setting: str
) -> None:
    known_hosts = tmp_path / "known_hosts"
    config = _config(
        tmp_path,
        sshd,
        "strict-box",
        3,
        f"UserKnownHostsFile {known_hosts}",
        f"StrictHostKeyChecking {setting}",
    )
    assert _run(sshd, config, "strict-box")[0] == "host_key_unknown"
    assert not known_hosts.exists()
    assert _run(sshd, config, "strict-box", trust=True) == ("", "")  # --trust-host
    assert known_hosts.read_text() == _line(_address(sshd, 3), sshd.host_key)


@needs_ssh
def test_host_key_alias_names_the_key_for_lookup_and_recording(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    known_hosts = tmp_path / "known_hosts"
    config = _config(
        tmp_path,
        sshd,
        "aliased-box",
        0,
        f"UserKnownHostsFile {known_hosts}",
        "HostKeyAlias lab-gpu-7",
    )
    assert resolve_target("aliased-box", config_path=config).known_hosts_name == "lab-gpu-7"
    known_hosts.write_text(_line("lab-gpu-7", sshd.host_key))
    assert _run(sshd, config, "aliased-box") == ("", "")

    # Under the alias only: the address's entry is not the alias's, and a different key listed
    # for the alias is a changed key, whatever the address's entry says.
    known_hosts.write_text(_line(_address(sshd, 0), sshd.host_key))
    assert _run(sshd, config, "aliased-box")[0] == "host_key_unknown"
    other = paramiko.ECDSAKey.generate()
    known_hosts.write_text(_line(_address(sshd, 0), sshd.host_key) + _line("lab-gpu-7", other))
    kind, error = _run(sshd, config, "aliased-box")
    assert kind == "host_key_changed" and "(lab-gpu-7)" in error

    known_hosts.write_text("")
    assert _run(sshd, config, "aliased-box", trust=True) == ("", "")
    assert known_hosts.read_text() == _line("lab-gpu-7", sshd.host_key)
    _ssh_finds_the_key(config, "aliased-box")
    known_hosts.write_text("")
    info = trust_host("aliased-box", ssh_config_path=config)
    assert info.added and info.known_hosts_name == "lab-gpu-7"
    assert known_hosts.read_text() == _line("lab-gpu-7", sshd.host_key)


@needs_ssh
def test_user_known_hosts_none_accepts_without_recording(
    sshd: SshdCluster, tmp_path: Path, home: Path
) -> None:
    config = _config(
        tmp_path,
        sshd,
        "none-box",
        1,
        "UserKnownHostsFile none",
        "StrictHostKeyChecking accept-new",
    )
    assert resolve_target("none-box", config_path=config).user_known_hosts == ()
    assert _run(sshd, config, "none-box") == ("", "")
    with pytest.raises(RunnerError, match="UserKnownHostsFile none"):
        trust_host("none-box", ssh_config_path=config)
    assert not (home / ".ssh").exists()


@needs_ssh
def test_cli_trust_host_writes_where_the_config_says(
    cli: CLI,  # noqa: F811 - the fixture imported above
    sshd: SshdCluster,
    tmp_path: Path,
    home: Path,
) -> None:
    known_hosts = tmp_path / "config_known_hosts"
    config = _config(tmp_path, sshd, "cli-box", 2, f"UserKnownHostsFile {known_hosts}")
    case = cli("new", "trust where ssh reads").out.strip()
    result = cli(
        "probe", case, "command",
        "--host", "cli-box",
        "--ssh-config", str(config),
        "--connect-timeout", "5",
        "--trust-host",
        "--", "printf", "ok",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert known_hosts.read_text() == _line(_address(sshd, 2), sshd.host_key)
    assert not (home / ".ssh").exists()
    _ssh_finds_the_key(config, "cli-box")


def test_the_options_resolve_alike_by_ssh_and_by_the_fallback(tmp_path: Path) -> None:
    """``~`` is the passwd home, tokens are expanded, ``ssh -G``'s spellings (true/false) are
    read; nothing is dialled."""
    config = tmp_path / "ssh_config"
    blocks = {"yes": "yes", "no": "no", "off": "no", "accept-new": "accept-new", "ask": "ask"}
    config.write_text(
        "Host opt-*\n    HostName 127.0.0.1\n    Port 2200\n"
        + "".join(f"Host opt-{name}\n    StrictHostKeyChecking {name}\n" for name in blocks)
        + "Host opt-yes\n"
        "    UserKnownHostsFile ~/.ssh/kh_r3m4 %d/kh2 /kh/%h-%p-%n-%u\n"
        "    GlobalKnownHostsFile ~/global_kh\n"
        "    HostKeyAlias gpu-seven\n"
        "Host opt-none\n    UserKnownHostsFile none\n    GlobalKnownHostsFile none\n"
    )
    passwd = pwd.getpwuid(os.getuid())
    parsers = [OpenSshConfig(config, use_ssh=False, ssh_dir=tmp_path, system_path=tmp_path / "n")]
    if SSH is not None:
        parsers.append(OpenSshConfig(config))
    for parsed in parsers:
        for name, expected in blocks.items():
            target = resolve_target(f"opt-{name}", ssh_config=parsed)
            assert target.strict_host_key_checking == expected
            assert target.accepts_new_keys == (expected in ("accept-new", "no"))
        target = resolve_target("opt-yes", ssh_config=parsed)
        assert target.user_known_hosts == (
            Path(passwd.pw_dir) / ".ssh" / "kh_r3m4",
            Path(passwd.pw_dir) / "kh2",
            Path(f"/kh/127.0.0.1-2200-opt-yes-{passwd.pw_name}"),
        )
        assert target.global_known_hosts == (Path(passwd.pw_dir) / "global_kh",)
        assert target.known_hosts_name == "gpu-seven"
        default = resolve_target("opt-ask", ssh_config=parsed)
        assert default.user_known_hosts == (
            Path(passwd.pw_dir) / ".ssh" / "known_hosts",
            Path(passwd.pw_dir) / ".ssh" / "known_hosts2",
        )
        assert default.known_hosts_name == "[127.0.0.1]:2200"
        none = resolve_target("opt-none", ssh_config=parsed)
        assert none.user_known_hosts == () and none.global_known_hosts == ()
    bad = tmp_path / "bad_config"
    bad.write_text("Host bad\n    StrictHostKeyChecking maybe\n")
    fallback = OpenSshConfig(bad, use_ssh=False, ssh_dir=tmp_path, system_path=tmp_path / "n")
    with pytest.raises(RunnerError, match="StrictHostKeyChecking 'maybe'"):
        resolve_target("bad", ssh_config=fallback)
