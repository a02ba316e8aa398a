"""Host options as OpenSSH computes them: ``ssh -G`` with the test's own config, and the fallback.

Every config here is written by the test under its tmp_path; nothing reads the real ~/.ssh (the
fallback parser is given its own "~/.ssh" directory, and ``ssh -G`` always gets ``-F``). Every
alias resolves to 127.0.0.1, and each test checks the resolution before anything is dialled.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from casefile.errors import RunnerError
from casefile.probes.runners.ssh import resolve_target
from casefile.probes.runners.ssh_config import MAX_INCLUDE_DEPTH, OpenSshConfig
from casefile.probes.runners.ssh_targets import (
    NO_AGENT,
    default_ssh_config_path,
    load_ssh_config,
)
from tests.runners.sshd import SshdCluster, host_block, make_runner

pytestmark = pytest.mark.ssh

needs_ssh = pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed")


def _included_config(sshd: SshdCluster, tmp_path: Path) -> Path:
    """A config whose only alias lives in a file pulled in by an Include glob."""
    extra = tmp_path / "config.d"
    extra.mkdir()
    (extra / "10-lab.conf").write_text(host_block("included-box", sshd, 1))
    (extra / "20-ignored.txt").write_text("Host included-box\n    Port 1\n")  # not *.conf
    config = tmp_path / "ssh_config"
    config.write_text(f"Include {extra}/*.conf\n")
    return config


@needs_ssh
def test_an_alias_from_an_included_file_resolves_and_runs(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    config = _included_config(sshd, tmp_path)
    target = resolve_target("included-box", config_path=config)
    assert (target.hostname, target.port) == ("127.0.0.1", sshd.ports[1])
    assert target.identity_files == (str(sshd.user_key_path),)
    with make_runner(sshd, ssh_config_path=config, identity_files=[]) as runner:
        result = runner.run("included-box", ["echo", "included"])
    assert result.ok, result.error
    assert result.stdout == "included\n"


@needs_ssh
def test_ssh_g_gets_the_explicit_file_and_the_default_is_left_to_ssh(
    tmp_path: Path,
) -> None:
    """``-F`` for every file that was named; with none named, ssh reads its own files (the
    user's and /etc/ssh/ssh_config). A stand-in ``ssh`` records the argv it was given."""
    argv_log = tmp_path / "argv"
    fake = tmp_path / "ssh"
    fake.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {argv_log}\n'
        "printf 'hostname 127.0.0.1\\nport 2222\\nuser someone\\n'\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    named = tmp_path / "my_config"
    named.write_text("")

    options = OpenSshConfig(named, ssh_binary=str(fake)).lookup("gpu7")
    assert argv_log.read_text().splitlines() == ["-G", "-T", "-F", str(named), "--", "gpu7"]
    assert (options["hostname"], options["port"], options["user"]) == (
        "127.0.0.1",
        "2222",
        "someone",
    )
    OpenSshConfig(None, ssh_binary=str(fake)).lookup("gpu7")
    assert "-F" not in argv_log.read_text().splitlines()

    default = load_ssh_config(None)
    assert isinstance(default, OpenSshConfig) and default.path is None
    assert isinstance(load_ssh_config(named), OpenSshConfig)
    assert load_ssh_config(named).path == named  # type: ignore[attr-defined]
    # A named file is read, even when it is the default's path (as `ssh -F ~/.ssh/config` is).
    default_path = default_ssh_config_path()
    assert load_ssh_config(default_path).path == default_path  # type: ignore[attr-defined]


@needs_ssh
def test_ssh_g_complaint_is_one_clear_line(sshd: SshdCluster, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("Host broken\n    NoSuchOption yes\n")
    with pytest.raises(RunnerError) as raised:
        resolve_target("broken", config_path=config)
    message = str(raised.value)
    assert "\n" not in message
    assert "nosuchoption" in message.lower() and str(config) in message
    with make_runner(sshd, ssh_config_path=config) as runner:
        result = runner.run("broken", ["true"])
    assert result.error_kind == "config"


@needs_ssh
def test_options_ssh_g_reports_are_honoured(sshd: SshdCluster, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    keys = tmp_path / "keys"
    config.write_text(
        "Host tokens\n"
        "    HostName 127.0.0.1\n"
        "    User alice\n"
        f"    IdentityFile {keys}/%h-%r.key\n"
        "    ConnectTimeout 3\n"
        "    HashKnownHosts yes\n"
        "    IdentityAgent none\n"
        "Host plain\n"
        "    HostName 127.0.0.1\n"
    )
    target = resolve_target("tokens", config_path=config)
    assert target.identity_files == (f"{keys}/127.0.0.1-alice.key",)
    assert target.connect_timeout_s == 3.0
    assert target.hash_known_hosts
    assert target.identity_agent == NO_AGENT
    plain = resolve_target("plain", config_path=config)
    # ssh -G lists ~/.ssh/id_* when nothing is configured: those are look_for_keys' business.
    assert plain.identity_files == ()
    assert plain.connect_timeout_s is None
    assert not plain.hash_known_hosts and plain.identity_agent is None


@needs_ssh
def test_a_target_that_looks_like_an_option_is_only_a_name(tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    for spec in (f"-oProxyCommand=touch {planted}", f"a;touch {planted}", f"$(touch {planted})"):
        with pytest.raises(RunnerError, match="invalid characters"):
            resolve_target(spec, config_path=tmp_path / "none")
    assert not planted.exists()


def test_an_ssh_that_cannot_run_falls_back_to_the_parser(tmp_path: Path) -> None:
    not_executable = tmp_path / "ssh"
    not_executable.write_text("not a program\n")  # no exec bit
    config = tmp_path / "config"
    config.write_text("Host fallback-box\n    HostName 127.0.0.5\n    Port 2205\n")
    parsed = OpenSshConfig(config, ssh_binary=str(not_executable), ssh_dir=tmp_path)
    target = resolve_target("fallback-box", ssh_config=parsed)
    assert (target.hostname, target.port) == ("127.0.0.5", 2205)
    assert parsed.ssh_binary is None


@needs_ssh
def test_proxy_command_is_still_refused_clearly(tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("Host piped\n    HostName 127.0.0.1\n    ProxyCommand nc %h %p\n")
    with pytest.raises(RunnerError, match=r"proxycommand.*ProxyJump"):
        resolve_target("piped", config_path=config)


# --- the fallback parser (no ssh binary) -------------------------------------------------------


def _fallback(path: Path | None, ssh_dir: Path, system: Path | None = None) -> OpenSshConfig:
    return OpenSshConfig(
        path, use_ssh=False, ssh_dir=ssh_dir, system_path=system or ssh_dir / "no-system"
    )


def _include_tree(sshd: SshdCluster, ssh_dir: Path, prefix: str) -> Path:
    """A config with an unconditional Include (globbed, nested) and Includes inside a block.

    ``prefix`` is put before every included path: "" for paths relative to ``~/.ssh``, or the
    directory itself for absolute ones (``ssh -G`` may only see absolute ones: its ~/.ssh is the
    real one).
    """
    (ssh_dir / "conf.d").mkdir(parents=True)
    (ssh_dir / "nested").mkdir()
    (ssh_dir / "conf.d" / "b.conf").write_text(
        f"Include {prefix}nested/*.conf\n" + host_block("fb-b", sshd, 1)
    )
    (ssh_dir / "nested" / "c.conf").write_text(host_block("fb-c", sshd, 2))
    (ssh_dir / "a.conf").write_text(host_block("fb-a", sshd, 0))
    (ssh_dir / "z.conf").write_text("Host fb-z\n    Port 2999\n    User zed\n")
    config = ssh_dir / "config"
    config.write_text(
        f"Include {prefix}conf.d/*.conf\n"  # top level: applies to every host
        "Host fb-a\n"
        "    User first-wins\n"
        f"    Include {prefix}a.conf\n"
        "    ConnectTimeout 7\n"  # after the Include: still fb-a's block
        f"    Include {prefix}z.conf\n"  # inside fb-a's block: Host fb-z there never matches
    )
    return config


def test_fallback_expands_relative_include_globs_from_ssh_dir(
    sshd: SshdCluster, tmp_path: Path
) -> None:
    ssh_dir = tmp_path / "dot-ssh"
    config = _include_tree(sshd, ssh_dir, "")
    parsed = _fallback(config, ssh_dir)
    a = resolve_target("fb-a", ssh_config=parsed)
    assert (a.port, a.user, a.connect_timeout_s) == (sshd.ports[0], "first-wins", 7.0)
    assert resolve_target("fb-b", ssh_config=parsed).port == sshd.ports[1]
    # nested, and relative to ~/.ssh rather than to the including file
    assert resolve_target("fb-c", ssh_config=parsed).port == sshd.ports[2]
    assert resolve_target("fb-c", ssh_config=parsed).connect_timeout_s is None
    z = resolve_target("fb-z", ssh_config=parsed)
    assert (z.port, z.user) != (2999, "zed")  # included from a block fb-z is not in
    with make_runner(sshd, ssh_config_path=config, identity_files=[]) as runner:
        runner._ssh_config = parsed  # this test's fallback parse, not ssh -G
        assert runner.run("fb-c", ["true"]).ok


@needs_ssh
def test_fallback_agrees_with_ssh_g(sshd: SshdCluster, tmp_path: Path) -> None:
    ssh_dir = tmp_path / "dot-ssh"
    config = _include_tree(sshd, ssh_dir, f"{ssh_dir}/")
    (ssh_dir / "config").write_text(
        (ssh_dir / "config").read_text()
        + "Match originalhost fb-*\n"
        + f"    Include {ssh_dir}/m.conf\n"
        + "Host *\n    ProxyJump fb-b\n"
    )
    (ssh_dir / "m.conf").write_text(
        "IdentityFile /keys/%h-%r\nHost fb-c fb-q\n    HashKnownHosts yes\nHost fb-d\n    Port 1\n"
    )
    by_ssh = OpenSshConfig(config)
    by_parser = _fallback(config, ssh_dir)
    assert by_ssh.ssh_binary is not None and by_parser.ssh_binary is None
    for host in ("fb-a", "fb-b", "fb-c", "fb-d", "fb-q", "fb-z", "other"):
        ours = resolve_target(host, ssh_config=by_parser)
        theirs = resolve_target(host, ssh_config=by_ssh)
        assert ours == theirs, host
    # ... and the answers are not all alike: the tree's rules really were applied.
    c, z = resolve_target("fb-c", ssh_config=by_ssh), resolve_target("fb-z", ssh_config=by_ssh)
    assert c.hash_known_hosts and c.port == sshd.ports[2] and c.proxy_jump == ("fb-b",)
    assert c.identity_files == (str(sshd.user_key_path), f"/keys/127.0.0.1-{sshd.user}")
    assert (
        not z.hash_known_hosts and z.port == 22 and z.identity_files == (f"/keys/fb-z-{sshd.user}",)
    )
    assert resolve_target("fb-d", ssh_config=by_ssh).port == 1


def test_fallback_reads_the_system_file_after_the_users(tmp_path: Path) -> None:
    ssh_dir = tmp_path / "dot-ssh"
    ssh_dir.mkdir()
    (ssh_dir / "config").write_text("Host gpu*\n    User from-user-file\n")
    system = tmp_path / "etc-ssh" / "ssh_config"
    system.parent.mkdir()
    (system.parent / "ssh_config.d").mkdir()
    (system.parent / "ssh_config.d" / "lab.conf").write_text(
        "Host gpu7\n    HostName 127.0.0.7\n    Port 2207\n"
    )
    system.write_text(
        "Include ssh_config.d/*.conf\nHost *\n    User from-system\n    HashKnownHosts yes\n"
    )
    parsed = _fallback(None, ssh_dir, system)
    gpu = resolve_target("gpu7", ssh_config=parsed)
    assert (gpu.hostname, gpu.port, gpu.user) == ("127.0.0.7", 2207, "from-user-file")
    assert gpu.hash_known_hosts
    assert resolve_target("other", ssh_config=parsed).user == "from-system"


def test_fallback_include_loop_is_a_clear_error(tmp_path: Path) -> None:
    ssh_dir = tmp_path / "dot-ssh"
    ssh_dir.mkdir()
    (ssh_dir / "config").write_text("Include config\n")
    with pytest.raises(RunnerError, match=f"nested more than {MAX_INCLUDE_DEPTH}"):
        _fallback(ssh_dir / "config", ssh_dir)


def test_fallback_missing_include_is_ignored(tmp_path: Path) -> None:
    ssh_dir = tmp_path / "dot-ssh"
    ssh_dir.mkdir()
    (ssh_dir / "config").write_text(
        "Include does-not-exist/*.conf\nHost x\n    HostName 127.0.0.3\n"
    )
    assert resolve_target("x", ssh_config=_fallback(ssh_dir / "config", ssh_dir)).hostname == (
        "127.0.0.3"
    )
