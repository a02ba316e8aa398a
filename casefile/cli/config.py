"""The user's defaults: a small TOML file in their config directory, and ``CASEFILE_ACTOR``.

The file is ``config.toml`` in platformdirs' user config directory for ``casefile``
(``$XDG_CONFIG_HOME/casefile/config.toml``, by default ``~/.config/casefile/config.toml`` on
Linux). Every key is optional::

    db = "~/casefile/team.db"          # the database URL or SQLite path
    actor = "alice"                    # who you are in the events you record
    color = "auto"                     # auto, always or never
    pager = "less -FRX"                # the pager for long output ("" for none)

    [ssh]
    connect_timeout = 5                # seconds
    config = "~/.ssh/casefile_config"  # the ssh config file
    known_hosts = "~/.ssh/known_hosts"

What wins, for each setting: the command-line flag, then the environment (``CASEFILE_DB``,
``CASEFILE_ACTOR``, ``NO_COLOR``, ``CASEFILE_PAGER``), then this file, then casefile's own
default. A file that is not valid TOML, or holds a key casefile does not know or a value of the
wrong kind, is a one-line error naming the file and the line; no file at all is no error.
"""

from __future__ import annotations

import getpass
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from casefile.domain.ids import actor_problem
from casefile.errors import CasefileError

FILE_NAME = "config.toml"
#: the actor when neither a flag, CASEFILE_ACTOR, the config file nor the login name gives one
FALLBACK_ACTOR = "user"


class ConfigError(CasefileError):
    """The config file (or a setting from the environment) cannot be used."""


@dataclass(frozen=True, slots=True)
class Config:
    """What the config file says; None wherever it says nothing."""

    path: Path | None = None
    db: str | None = None
    actor: str | None = None
    color: str | None = None
    pager: str | None = None
    ssh_connect_timeout: float | None = None
    ssh_config: Path | None = None
    ssh_known_hosts: Path | None = None


def config_path() -> Path:
    """Where the config file is looked for (it need not exist)."""
    from platformdirs import user_config_path

    return user_config_path("casefile", appauthor=False) / FILE_NAME


def _line_of(text: str, key: str, table: str | None) -> int:
    """The line a key is written on (the first such line inside its table), for messages."""
    current: str | None = None
    pattern = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    header = re.compile(r"^\s*\[\s*([^\]\s]+)\s*\]")
    for number, line in enumerate(text.splitlines(), start=1):
        match = header.match(line)
        if match:
            current = match.group(1).strip("\"'")
            continue
        if current == table and pattern.match(line):
            return number
    return 1


def _fail(path: Path, line: int, message: str) -> ConfigError:
    return ConfigError(f"config file {path}, line {line}: {message}")


def _string(path: Path, text: str, key: str, value: Any, table: str | None = None) -> str:
    if not isinstance(value, str):
        where = f"{table}.{key}" if table else key
        _raise(path, _line_of(text, key, table), f"{where} must be a string")
    return value


def _raise(path: Path, line: int, message: str) -> NoReturn:
    raise _fail(path, line, message)


_TOP = {"db", "actor", "color", "pager", "ssh"}
_SSH = {"connect_timeout", "config", "known_hosts"}


def parse_config(path: Path, text: str) -> Config:
    """The settings in ``text``, the contents of ``path``; :class:`ConfigError` if unusable."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"\(at line (\d+), column \d+\)$", message)
        line = int(found.group(1)) if found else max(1, text.count("\n") + 1)
        reason = re.sub(r"\s*\(at (?:line \d+, column \d+|end of document)\)$", "", message)
        raise _fail(path, line, f"not valid TOML: {reason}") from None
    for key in data:
        if key not in _TOP:
            known = ", ".join(sorted(_TOP))
            _raise(path, _line_of(text, key, None), f"unknown setting {key!r} (known: {known})")
    db = actor = color = pager = None
    if "db" in data:
        db = _string(path, text, "db", data["db"])
    if "actor" in data:
        actor = _string(path, text, "actor", data["actor"])
        problem = actor_problem(actor)
        if problem is not None:
            _raise(path, _line_of(text, "actor", None), f"the actor {problem}")
    if "color" in data:
        from casefile.cli.colour import MODES

        color = _string(path, text, "color", data["color"])
        if color not in MODES:
            _raise(path, _line_of(text, "color", None), f"color must be one of {', '.join(MODES)}")
    if "pager" in data:
        pager = _string(path, text, "pager", data["pager"])
    ssh = data.get("ssh", {})
    if not isinstance(ssh, dict):
        _raise(path, _line_of(text, "ssh", None), "ssh must be a table ([ssh])")
    for key in ssh:
        if key not in _SSH:
            known = ", ".join(sorted(_SSH))
            _raise(path, _line_of(text, key, "ssh"), f"unknown setting ssh.{key} (known: {known})")
    timeout = None
    if "connect_timeout" in ssh:
        value = ssh["connect_timeout"]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value <= 0
        ):
            _raise(
                path,
                _line_of(text, "connect_timeout", "ssh"),
                "ssh.connect_timeout must be a number of seconds above 0",
            )
        timeout = float(value)

    def a_path(key: str) -> Path | None:
        if key not in ssh:
            return None
        return Path(_string(path, text, key, ssh[key], "ssh")).expanduser()

    return Config(
        path=path,
        db=db,
        actor=actor,
        color=color,
        pager=pager,
        ssh_connect_timeout=timeout,
        ssh_config=a_path("config"),
        ssh_known_hosts=a_path("known_hosts"),
    )


def read_config(path: Path) -> Config:
    """The config file at ``path``; an empty :class:`Config` when there is none."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise _fail(path, line, "not UTF-8 text") from None
    return parse_config(path, text)


def load_config() -> Config:
    """The user's config file (read afresh each time: it is small, and a test or a long-lived
    caller may change it)."""
    return read_config(config_path())


def ssh_defaults(config: Config) -> dict[str, object]:
    """``probe``'s SSH option defaults the config file sets, by dest."""
    chosen = {
        "connect_timeout": config.ssh_connect_timeout,
        "ssh_config": config.ssh_config,
        "known_hosts": config.ssh_known_hosts,
    }
    return {dest: value for dest, value in chosen.items() if value is not None}


def login_name() -> str | None:
    """The login name, if the system knows one that is a valid actor."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no USER/LOGNAME and no passwd entry
        return None
    return name if actor_problem(name) is None else None


def default_actor(environ: Mapping[str, str] | None = None) -> str:
    """Who records an event when ``--actor`` is not given: ``CASEFILE_ACTOR``, else the config
    file's ``actor``, else the login name, else ``user``."""
    env = os.environ if environ is None else environ
    from_env = env.get("CASEFILE_ACTOR")
    if from_env:
        problem = actor_problem(from_env)
        if problem is not None:
            raise ConfigError(f"CASEFILE_ACTOR: the actor {problem}")
        return from_env
    configured = load_config().actor
    if configured is not None:
        return configured
    return login_name() or FALLBACK_ACTOR
