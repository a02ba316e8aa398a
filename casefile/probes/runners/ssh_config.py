"""Host options as OpenSSH itself computes them: ``ssh -G``, or paramiko's parser as a fallback.

OpenSSH's rules for which value wins (first match, ``Include``, ``Match``, the system-wide
``/etc/ssh/ssh_config``, built-in defaults) are subtle, and a reimplementation drifts: an alias
defined in an included file, or a ``ProxyJump`` set there, used to be silently missed. So where the
``ssh`` binary exists its own answer is used: ``ssh -G HOST`` prints the options it would use,
without connecting. It is run with an argument list (never a shell), stdin closed and a timeout,
and with ``-F FILE`` whenever a config file was named, whatever its path (as with ``ssh -F``, the
named file replaces both the user's and the system file).

``~`` is the home directory OpenSSH means: the passwd entry's (:func:`ssh_home`), not ``$HOME``.
``ssh`` itself reads its default config, expands ``~``, ``%d`` and relative ``Include`` paths
from there, and ignores ``$HOME``; casefile once took ``$HOME`` for its side (the default paths,
``~`` in the IdentityFile paths ``ssh -G`` prints), and where the two differ (``sudo -E``,
containers and CI jobs that set ``HOME``) it then mistook a file the user named for the one
``ssh`` reads by default, which ``ssh`` did not read (R3-M4). Paths the user types (``--ssh-config
~/…``) are expanded by the shell, from ``$HOME``, before casefile sees them: they are named
files, so they are always read.

Without ``ssh``, paramiko's parser reads the user's file and then the system file (first value
obtained wins, so the user's file takes precedence), with ``Include`` expanded here: glob
patterns, relative paths taken from ``~/.ssh`` (``/etc/ssh`` in the system file), nested at most
:data:`MAX_INCLUDE_DEPTH` deep, an included file applying only within the block that includes
it, and ``~`` and ``%d`` in path options replaced by :func:`ssh_home` before paramiko (which
takes ``$HOME``) sees them (tests/runners/test_ssh_config.py checks the two ways agree).
"""

from __future__ import annotations

import getpass
import glob
import io
import os
import pwd
import re
import shlex
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

import paramiko

from casefile.errors import RunnerError

SYSTEM_SSH_CONFIG = Path("/etc/ssh/ssh_config")
SSH_G_TIMEOUT_S = 5.0
MAX_INCLUDE_DEPTH = 16  # OpenSSH's own READCONF_MAX_DEPTH

#: What ``ssh -G`` lists when no IdentityFile is configured: the default key paths, which the
#: runner's ``look_for_keys`` already covers (and which must not count as configured keys).
OPENSSH_DEFAULT_IDENTITIES = (
    "~/.ssh/id_rsa",
    "~/.ssh/id_ecdsa",
    "~/.ssh/id_ecdsa_sk",
    "~/.ssh/id_ed25519",
    "~/.ssh/id_ed25519_sk",
    "~/.ssh/id_xmss",
    "~/.ssh/id_dsa",
)

#: Options that may appear several times in ``ssh -G`` output; paramiko keeps these as lists.
_MULTI_VALUED = frozenset({"identityfile", "certificatefile", "localforward", "remoteforward"})
_KEYWORD = re.compile(r"^\s*([A-Za-z]+)(?:\s*=\s*|\s+)(.*?)\s*$")


def ssh_home() -> Path:
    """The home directory OpenSSH means by ``~`` and ``%d``: the passwd entry's, not ``$HOME``.

    One definition for everything casefile reads or writes on ssh's behalf (the default config
    and known_hosts, ``~`` in ssh_config values), so that casefile and ``ssh`` agree on which
    files are meant. ``$HOME`` only when this user has no passwd entry (where ``ssh`` refuses
    to run at all, and the fallback parser is used).
    """
    try:
        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        return Path.home()


def local_user() -> str:
    """The local user name as OpenSSH takes it (``%u``, the default remote user): the passwd
    entry's, not ``$USER`` or ``$LOGNAME`` (which ``sudo -E`` carries over)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return getpass.getuser()


def expand_home(path: str) -> str:
    """``~`` and ``~/…`` from :func:`ssh_home`; ``~user/…`` from that user's passwd entry."""
    if path == "~" or path.startswith("~/"):
        return str(ssh_home()) + path[1:]
    return os.path.expanduser(path) if path.startswith("~") else path


class OpenSshConfig(paramiko.SSHConfig):
    """An :class:`paramiko.SSHConfig` whose ``lookup`` answers as OpenSSH would.

    ``path`` None means "what plain ``ssh`` reads" (``~/.ssh/config`` and the system file);
    a path is read alone, like ``ssh -F``. A missing file counts as empty.
    ``ssh_binary`` defaults to ``ssh`` on PATH; ``use_ssh=False`` forces the fallback parser
    (for tests), as does a missing ``ssh`` or one that cannot be executed.
    """

    def __init__(
        self,
        path: Path | None,
        *,
        ssh_binary: str | None = None,
        use_ssh: bool = True,
        system_path: Path = SYSTEM_SSH_CONFIG,
        ssh_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.path = path
        self.ssh_binary = (ssh_binary or shutil.which("ssh")) if use_ssh else None
        self._system_path = system_path
        self._ssh_dir = ssh_dir or ssh_home() / ".ssh"
        self._answers: dict[str, paramiko.SSHConfigDict] = {}
        self._answers_lock = threading.Lock()
        if self.ssh_binary is None:
            self._parse_fallback()

    def _parse_fallback(self) -> None:
        text = _fallback_text(self.path, self._ssh_dir, self._system_path)
        try:
            self.parse(io.StringIO(text))
        except Exception as e:  # a syntax error or an unsupported keyword
            raise RunnerError(f"cannot read SSH config {self.describe()}: {e}") from e

    def describe(self) -> str:
        """The file(s) this config comes from, for messages."""
        return str(self.path) if self.path is not None else "~/.ssh/config"

    def lookup(self, hostname: str) -> paramiko.SSHConfigDict:
        """The options for ``hostname`` (paramiko's shape: lower-case keys, identityfile a list;
        the TOKENS in IdentityFile and UserKnownHostsFile expanded, as ``ssh`` expands them)."""
        if self.ssh_binary is None:
            return self._parsed_lookup(hostname)
        # One `ssh -G` per host name (a few ms each): targets that differ only in user@ or :port
        # share it. A copy goes out, so a caller's edits never reach the next lookup.
        with self._answers_lock:
            answer = self._answers.get(hostname)
        if answer is None:
            try:
                answer = self._ssh_g(hostname)
            except OSError:  # ssh is there but cannot be run: read the files ourselves
                with self._answers_lock:
                    if self.ssh_binary is not None:
                        self.ssh_binary = None
                        self._parse_fallback()
                return self._parsed_lookup(hostname)
            with self._answers_lock:
                self._answers[hostname] = answer
        return paramiko.SSHConfigDict(
            {k: list(v) if isinstance(v, list) else v for k, v in answer.items()}
        )

    def _parsed_lookup(self, hostname: str) -> paramiko.SSHConfigDict:
        """The fallback parser's answer (paramiko expands IdentityFile; the rest is done here)."""
        options = super().lookup(hostname)
        _expand_known_hosts_files(options, hostname)
        return options

    def _ssh_g(self, hostname: str) -> paramiko.SSHConfigDict:
        """Ask ``ssh -G``; ``RunnerError`` for what it refuses, ``OSError`` if it cannot run."""
        assert self.ssh_binary is not None
        argv = [self.ssh_binary, "-G", "-T"]
        if self.path is not None:
            argv += ["-F", str(self.path) if self.path.exists() else os.devnull]
        argv += ["--", hostname]
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=SSH_G_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as e:
            raise RunnerError(
                f"cannot apply SSH config {self.describe()} to {hostname!r}: `ssh -G` took more "
                f"than {SSH_G_TIMEOUT_S:g}s (a slow `Match exec` in the config?)"
            ) from e
        if done.returncode != 0:
            complaint = _first_line(done.stderr) or f"exit status {done.returncode}"
            raise RunnerError(f"cannot apply SSH config {self.describe()}: {complaint}")
        return _options_from_ssh_g(done.stdout.decode("utf-8", errors="replace"), hostname)


def _first_line(raw: bytes) -> str:
    lines = [
        line.strip()
        for line in raw.decode("utf-8", errors="replace").splitlines()
        if line.strip() and not line.startswith("Pseudo-terminal")
    ]
    return lines[0] if lines else ""


def _options_from_ssh_g(text: str, original_host: str) -> paramiko.SSHConfigDict:
    """Parse ``key value`` lines; expand the tokens ``ssh`` leaves for later in IdentityFile."""
    options: dict[str, Any] = {}
    identities: list[str] = []
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        key = key.lower()
        if not key:
            continue
        if key == "identityfile":
            identities.append(value)
        elif key in _MULTI_VALUED:
            options.setdefault(key, []).append(value)
        else:
            options[key] = value
    if tuple(identities) != OPENSSH_DEFAULT_IDENTITIES:
        options["identityfile"] = [_expand_tokens(p, options, original_host) for p in identities]
    _expand_known_hosts_files(options, original_host)
    return paramiko.SSHConfigDict(options)


def _expand_known_hosts_files(options: dict[str, Any], original_host: str) -> None:
    """UserKnownHostsFile's TOKENS and ``~`` (a recent ``ssh -G`` prints them expanded already,
    an older one and paramiko do not), and ``~`` in GlobalKnownHostsFile. The value stays one
    string of space-separated paths (``ssh -G`` prints a path with a space in it unquoted)."""
    for key, expand in (
        ("userknownhostsfile", lambda path: _expand_tokens(path, options, original_host)),
        ("globalknownhostsfile", expand_home),
    ):
        value = options.get(key)
        if isinstance(value, str) and value.strip().lower() != "none":
            options[key] = " ".join(expand(path) for path in value.split())


def _expand_tokens(value: str, options: dict[str, Any], original_host: str) -> str:
    """The ssh_config TOKENS that IdentityFile and UserKnownHostsFile may use (``%h``, ``%r``,
    ``%u``, ``%d`` …), and a leading ``~``, as ``ssh`` expands them (:func:`ssh_home`)."""
    tokens = {
        "%": "%",
        "h": str(options.get("hostname", original_host)),
        "n": original_host,
        "p": str(options.get("port", "22")),
        "r": str(options.get("user", "")),
        **_local_tokens(),
    }
    out = re.sub(r"%(.)", lambda m: tokens.get(m.group(1), m.group(0)), value)
    return expand_home(out)


def _local_tokens() -> dict[str, str]:
    """The TOKENS that name this machine and user, whatever the host."""
    hostname = socket.gethostname()
    return {
        "u": local_user(),
        "d": str(ssh_home()),
        "i": str(os.getuid()),
        "l": hostname,  # with its domain, as ssh_config(5) says; %L without
        "L": hostname.split(".")[0],
    }


def _identity_file_line(args: str) -> str:
    """An IdentityFile value with ``~``, ``%d`` and ``%u`` expanded as ``ssh`` would, for the
    fallback parser: paramiko expands them itself, from ``$HOME`` and ``$USER``. The host's
    tokens (``%h``, ``%r`` …) are left to paramiko, and ``%%`` stays as it is."""
    local = _local_tokens()
    out = re.sub(r"%(.)", lambda m: local.get(m.group(1), m.group(0)), args)
    return re.sub(r'^("?)(~[^/"\s]*)', lambda m: m.group(1) + expand_home(m.group(2)), out)


# --- the fallback: paramiko's parser, with Include expanded -----------------------------------


def _fallback_text(path: Path | None, user_dir: Path, system_path: Path) -> str:
    """The user's config, then the system file (under a fresh ``Host *``), includes inlined."""
    if path is not None:
        return expand_includes(path, base_dir=user_dir)
    user = expand_includes(user_dir / "config", base_dir=user_dir)
    system = expand_includes(system_path, base_dir=system_path.parent)
    return f"{user}\nHost *\n{system}"


def expand_includes(path: Path, *, base_dir: Path, depth: int = 0, guard: str = "") -> str:
    """The text of ``path`` with every ``Include`` replaced by the files it names.

    A missing file is empty (as for OpenSSH, whose Include ignores patterns matching nothing).
    OpenSSH applies an included file only within the block that includes it: a ``Host`` line in
    a file included from ``Host gpu*`` can match only gpu hosts, and the lines after the
    ``Include`` still belong to the enclosing block. Inlined for paramiko, the enclosing block
    becomes ``guard`` (``Match`` criteria) and the included ``Host``/``Match`` lines are rewritten
    to ``Match GUARD originalhost PATTERNS``; after the included text, the enclosing block's
    line is repeated. IdentityFile values get ``~``, ``%d`` and ``%u`` from :func:`ssh_home` and
    :func:`local_user` here, before paramiko would take them from ``$HOME`` and ``$USER``.
    """
    if depth > MAX_INCLUDE_DEPTH:
        raise RunnerError(
            f"SSH config {path}: Include nested more than {MAX_INCLUDE_DEPTH} deep (a loop?)"
        )
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    except OSError as e:
        raise RunnerError(f"cannot read SSH config {path}: {e.strerror or e}") from e
    out: list[str] = []
    header = ""  # the current block's line, as emitted
    for line in text.splitlines():
        match = _KEYWORD.match(line)
        keyword = match.group(1).lower() if match else ""
        if match is not None and keyword in ("host", "match"):
            line = _guarded(keyword, match.group(2), guard) if guard else line
            header = line
        elif match is not None and keyword == "identityfile":
            line = f"{match.group(1)} {_identity_file_line(match.group(2))}"
        if keyword != "include" or match is None:
            out.append(line)
            continue
        try:
            patterns = shlex.split(match.group(2))
        except ValueError as e:
            raise RunnerError(f"SSH config {path}: bad Include line {line.strip()!r}: {e}") from e
        inner = _criteria(header) if header else guard
        for pattern in patterns:
            expanded = expand_home(pattern)
            full = expanded if os.path.isabs(expanded) else str(base_dir / expanded)
            for included in sorted(glob.glob(full)):
                if os.path.isfile(included):
                    out.append(
                        expand_includes(
                            Path(included), base_dir=base_dir, depth=depth + 1, guard=inner
                        )
                    )
        # Back to the enclosing block (lines before any Host apply to every host).
        out.append(header or (f"Match {guard}" if guard else "Host *"))
    return "\n".join(out) + "\n"


def _guarded(keyword: str, args: str, guard: str) -> str:
    """A ``Host``/``Match`` line of an included file, restricted to the including block."""
    if keyword == "host":
        return f"Match {guard} originalhost {','.join(args.split())}"
    if args.strip().lower() == "all":
        return f"Match {guard}"
    return f"Match {guard} {args}"


def _criteria(header: str) -> str:
    """The ``Match`` criteria a block line stands for ("" for one that matches every host)."""
    match = _KEYWORD.match(header)
    if match is None:
        return ""
    keyword, args = match.group(1).lower(), match.group(2)
    if keyword == "host":
        patterns = args.split()
        return "" if patterns == ["*"] else f"originalhost {','.join(patterns)}"
    return "" if args.strip().lower() == "all" else args


_HOST_LINE = re.compile(r"^\s*Host\s+(.+)$", re.IGNORECASE | re.MULTILINE)
_ORIGINAL_HOST = re.compile(r"\boriginalhost\s+(\S+)", re.IGNORECASE)


def host_aliases(path: Path | None = None, *, ssh_dir: Path | None = None) -> list[str]:
    """The concrete host names an ssh config declares (``Host`` patterns without wildcards or
    negations), includes followed, in the order written: what a host picker offers. A config
    that cannot be read offers none."""
    user_dir = ssh_dir or ssh_home() / ".ssh"
    try:
        text = expand_includes(path or user_dir / "config", base_dir=user_dir)
    except (OSError, ValueError, RunnerError):
        return []
    names: list[str] = []
    found = [m.group(1) for m in _HOST_LINE.finditer(text)]
    found += [m.group(1) for m in _ORIGINAL_HOST.finditer(text)]
    for patterns in found:
        for name in patterns.replace(",", " ").split():
            if not any(c in name for c in "*?!") and name not in names:
                names.append(name)
    return names
