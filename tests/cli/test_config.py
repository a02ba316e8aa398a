"""The config file and CASEFILE_ACTOR: flag > environment > config file > built-in default, and a
config file that cannot be used is one line naming the file and the line, with nothing written."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from casefile.cli import probe_commands
from casefile.cli.config import config_path
from casefile.errors import CasefileError
from tests.cli.conftest import CLI


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The config file's path under a temporary XDG_CONFIG_HOME (not written yet); no
    CASEFILE_ACTOR, and a known login name."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("CASEFILE_ACTOR", raising=False)
    monkeypatch.setenv("LOGNAME", "carol")
    path = home / "casefile" / "config.toml"
    assert config_path() == path
    return path


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def actors(cli: CLI, case: str) -> list[str]:
    return [e["actor"] for e in json.loads(cli("log", case, "--json").out)]


def test_the_actor_comes_from_the_flag_then_env_then_config_then_login(
    cli: CLI, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = cli("new", "Who", "--id", "who").out.strip()
    assert actors(cli, case) == ["carol"]  # the login name, with no config file
    write(config_file, 'actor = "dana"\n')
    cli("note", case, "config")
    monkeypatch.setenv("CASEFILE_ACTOR", "erin")
    cli("note", case, "env")
    cli("note", case, "flag", "--actor", "frank")
    monkeypatch.setenv("CASEFILE_ACTOR", "")  # set but empty: as if unset
    cli("note", case, "empty env")
    assert actors(cli, case) == ["carol", "dana", "erin", "frank", "dana"]


def test_a_bad_casefile_actor_is_one_line_and_appends_nothing(
    cli: CLI, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = cli("new", "Who", "--id", "who").out.strip()
    monkeypatch.setenv("CASEFILE_ACTOR", "eve\x1b]0;pwned\x07")
    result = cli("note", case, "hello")
    assert result.code == 1
    (line,) = result.err.splitlines()
    assert line.startswith("casefile: error: CASEFILE_ACTOR: the actor ") and "\x1b" not in line
    monkeypatch.delenv("CASEFILE_ACTOR")
    assert actors(cli, case) == ["carol"]


def test_the_database_comes_from_the_flag_then_env_then_config(
    cli: CLI, config_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_config = tmp_path / "config.db"
    write(config_file, f"db = {json.dumps(str(from_config))}\n")
    monkeypatch.delenv("CASEFILE_DB")
    assert cli("new", "In the config's db", "--id", "c1").code == 0
    assert from_config.exists()
    from_env = tmp_path / "env.db"
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{from_env}")
    assert cli("new", "In the env's db", "--id", "e1").code == 0
    flag = tmp_path / "flag.db"
    assert cli("new", "In the flag's db", "--id", "f1", "--db", str(flag)).code == 0
    assert [c["id"] for c in json.loads(cli("cases", "--json").out)] == ["e1"]
    assert [c["id"] for c in json.loads(cli("cases", "--json", "--db", str(flag)).out)] == ["f1"]
    monkeypatch.delenv("CASEFILE_DB")
    assert [c["id"] for c in json.loads(cli("cases", "--json").out)] == ["c1"]


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ('actor = "dana"\ndb = \n', 2, "not valid TOML"),
        ('actor = "dana"\n\n[ssh]\nconnect_timeout = "soon"\n', 4, "ssh.connect_timeout"),
        ("actor = 5\n", 1, "actor must be a string"),
        ('# mine\nactr = "dana"\n', 2, "unknown setting 'actr'"),
        ("[ssh]\nport = 22\n", 2, "unknown setting ssh.port"),
        ('color = "rainbow"\n', 1, "color must be one of auto, always, never"),
        ('actor = ""\n', 1, "the actor"),
        (b'pager = "less"\nactor = "d\xffna"\n', 2, "not UTF-8"),
    ],
)
def test_a_config_file_that_cannot_be_used_is_one_line_naming_file_and_line(
    cli: CLI, config_file: Path, text: str | bytes, line: int, needle: str
) -> None:
    case = cli("new", "Before", "--id", "b").out.strip()
    write(config_file, text)
    result = cli("note", case, "hello")
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    (message,) = result.err.splitlines()
    assert message.startswith(f"casefile: error: config file {config_file}, line {line}: ")
    assert needle in message
    config_file.unlink()
    assert actors(cli, case) == ["carol"]  # nothing was appended


def test_ssh_defaults_come_from_the_config_file_and_a_flag_still_wins(
    cli: CLI, config_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = cli("new", "SSH", "--id", "s").out.strip()
    write(
        config_file,
        '[ssh]\nconnect_timeout = 3\nconfig = "~/cf_ssh_config"\nknown_hosts = "/tmp/kh"\n',
    )
    seen: list[argparse.Namespace] = []

    def capture(args: argparse.Namespace) -> object:
        seen.append(args)
        raise CasefileError("stopped before connecting")

    monkeypatch.setattr(probe_commands, "request_from", capture)
    result = cli("probe", case, "command", "--host", "127.0.0.1", "--", "true")
    assert result.code == 1 and "stopped before connecting" in result.err
    assert seen[-1].connect_timeout == 3.0
    assert seen[-1].ssh_config == Path("~/cf_ssh_config").expanduser()
    assert seen[-1].known_hosts == Path("/tmp/kh")
    cli("probe", case, "command", "--host", "127.0.0.1", "--connect-timeout", "7", "--", "true")
    assert seen[-1].connect_timeout == 7.0
    config_file.unlink()
    cli("probe", case, "command", "--host", "127.0.0.1", "--", "true")
    assert seen[-1].connect_timeout == 10.0 and seen[-1].ssh_config is None
