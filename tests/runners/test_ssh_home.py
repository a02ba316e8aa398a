"""``$HOME`` that is not the passwd home (``sudo -E``, containers, CI): R3-M4.

``ssh`` takes ``~`` from the passwd entry and ignores ``$HOME``; casefile once took ``$HOME``, so a
config named as ``--ssh-config $HOME/.ssh/config`` looked like "the default" and was left to
``ssh``, which read another file. Each test points ``HOME`` at its own tmp_path, so nothing reads
or writes the real home's ~/.ssh (the passwd home's files are only named, never opened), and
every alias is resolved, and checked to be 127.0.0.1, before anything is dialled.
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import pytest

from casefile.errors import RunnerError
from casefile.probes.runners.ssh import default_known_hosts_path, resolve_target
from casefile.probes.runners.ssh_config import OpenSshConfig
from casefile.probes.runners.ssh_targets import default_ssh_config_path, load_ssh_config
from tests.cli.conftest import CLI, cli, cli_registry  # noqa: F401 - fixtures for the CLI test
from tests.runners.sshd import SshdCluster, host_block, make_runner

pytestmark = pytest.mark.ssh

needs_ssh = pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed")

PASSWD = pwd.getpwuid(os.getuid())


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``$HOME`` with an empty ~/.ssh, which is not the passwd home; no agent."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    assert Path(PASSWD.pw_dir) != home
    return home


@needs_ssh
def test_a_config_named_under_home_is_read_when_home_is_not_the_passwd_home(
    cli: CLI,  # noqa: F811 - the fixture imported above
    sshd: SshdCluster,
    home: Path,
) -> None:
    config = home / ".ssh" / "config"
    config.write_text(
        host_block("r3m4-box", sshd, 1)
        + "Host r3m4-other\n    HostName 127.0.0.1\n    Port 2299\n    User someone-else\n"
        + "Host r3m4-jumped\n    HostName 127.0.0.1\n    ProxyJump r3m4-box\n"
        + "Host r3m4-piped\n    HostName 127.0.0.1\n    ProxyCommand nc %h %p\n"
    )
    # Resolved first: before the fix these went to DNS as they were, port 22, the local user.
    box = resolve_target("r3m4-box", config_path=config)
    assert (box.hostname, box.port, box.user) == ("127.0.0.1", sshd.ports[1], sshd.user)
    other = resolve_target("r3m4-other", config_path=config)
    assert (other.hostname, other.port, other.user) == ("127.0.0.1", 2299, "someone-else")
    assert resolve_target("r3m4-jumped", config_path=config).proxy_jump == ("r3m4-box",)
    with pytest.raises(RunnerError, match="proxycommand"):
        resolve_target("r3m4-piped", config_path=config)
    assert load_ssh_config(config).path == config  # type: ignore[attr-defined]

    case = cli("new", "home is elsewhere").out.strip()
    result = cli(
        "probe", case, "command",
        "--host", "r3m4-box",
        "--ssh-config", str(config),
        "--known-hosts", str(sshd.known_hosts_path),
        "--connect-timeout", "5",
        "--", "printf", "read",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "runner failed" not in result.out


@needs_ssh
def test_tilde_is_the_passwd_home_for_ssh_and_for_the_fallback_alike(
    home: Path, tmp_path: Path
) -> None:
    """One home: ``~``, ``%d`` and ``%u`` in what ``ssh -G`` prints, in the fallback parser's
    answer, and the default files are all the passwd entry's, as they are for ``ssh``."""
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host tilde\n"
        "    HostName 127.0.0.1\n"
        "    IdentityFile ~/.ssh/id_r3m4\n"
        "    IdentityFile %d/keys/%u.key\n"
        '    IdentityFile "~/quoted key"\n'
    )
    passwd_home = Path(PASSWD.pw_dir)
    expected = (
        f"{passwd_home}/.ssh/id_r3m4",
        f"{passwd_home}/keys/{PASSWD.pw_name}.key",
        f"{passwd_home}/quoted key",
    )
    by_ssh = resolve_target("tilde", config_path=config)
    assert by_ssh.identity_files == expected
    fallback = OpenSshConfig(
        config, use_ssh=False, ssh_dir=tmp_path / "dot-ssh", system_path=tmp_path / "none"
    )
    assert resolve_target("tilde", ssh_config=fallback).identity_files == expected
    assert default_ssh_config_path() == passwd_home / ".ssh" / "config"
    assert default_known_hosts_path() == passwd_home / ".ssh" / "known_hosts"


def test_default_keys_are_the_passwd_homes_as_for_ssh(
    sshd: SshdCluster, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """paramiko's look_for_keys searches ``$HOME/.ssh``; ``ssh`` searches the passwd home's. The
    passwd entry is faked (a home in tmp_path) so that no real ~/.ssh is touched."""
    passwd_home = tmp_path / "passwd-home"
    (passwd_home / ".ssh").mkdir(parents=True)
    fake = pwd.struct_passwd(
        (PASSWD.pw_name, "x", PASSWD.pw_uid, PASSWD.pw_gid, "", str(passwd_home), "/bin/sh")
    )
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: fake)
    key = passwd_home / ".ssh" / "id_ecdsa"
    shutil.copy(sshd.user_key_path, key)
    key.chmod(0o600)
    config = tmp_path / "empty_config"
    config.write_text("")

    def run() -> tuple[str, str]:
        with make_runner(
            sshd, ssh_config_path=config, identity_files=[], look_for_keys=True
        ) as runner:
            result = runner.run(sshd.target(0), ["true"])
        return result.error_kind or "", result.error or ""

    assert run() == ("", "")
    key.rename(home / ".ssh" / "id_ecdsa")  # under $HOME only: not a default key for ssh
    kind, error = run()
    assert kind == "auth" and f"default keys in {passwd_home / '.ssh'}" in error
