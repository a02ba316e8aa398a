"""A shell run in a pseudo-terminal, its input and output passed through untouched, and what it
printed kept (``casefile record``).

Command boundaries come from shell integration set up for the shell: an rc file of casefile's
own (bash ``--rcfile``; zsh through ``ZDOTDIR``) that sources the user's own rc file, then emits
the OSC 133 marks terminals use: ``A`` before the prompt, ``B`` after it (the command typed
follows), ``C`` when the command starts, ``D;STATUS`` when it ends. Only output is kept, never
input: what is typed at a prompt that does not echo (a password) never reaches the record.

A command's output can print marks too (``cat`` of a log, a remote motd), so every mark carries
a nonce fresh for the session, and the reader trusts only the marks that carry it. The nonce is
kept from what commands can read: it is in no environment variable, the prompt variables that
hold it are not exported, and the rc file removes itself once the shell has opened it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import secrets
import select
import shlex
import signal
import sys
import termios
import tty
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from casefile.transcripts.stream import mark_parameter

__all__ = ["INTEGRATED_SHELLS", "Recorded", "integration", "run_in_pty"]

#: the most output bytes one session keeps (a session that prints more keeps its head)
SESSION_LIMIT = 256 * 1024 * 1024

# @RC@ is the rc file's own path, @MARK@ the parameter every mark carries (casefile=NONCE)
_BASH_RC = r"""# casefile record: shell integration (OSC 133 marks), then the user's own rc file
command rm -f -- @RC@ 2>/dev/null
if [ -z "$CASEFILE_RECORD_NORC" ] && [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
__casefile_status() { local s=$?; printf '\033]133;D;%s;@MARK@\007' "$s"; return $s; }
PROMPT_COMMAND="__casefile_status${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
PS1='\[\033]133;A;@MARK@\007\]'"${PS1:-\$ }"'\[\033]133;B;@MARK@\007\]'
PS0='\033]133;C;@MARK@\007'
export -n PS1 PS0 PROMPT_COMMAND
"""

# @ZDOTDIR@ puts back the user's own ZDOTDIR (a nested zsh reads the user's files, not these)
_ZSH_RC = r"""# casefile record: shell integration (OSC 133 marks), then the user's own rc file
command rm -f -- @RC@ 2>/dev/null
@ZDOTDIR@
if [ -z "$CASEFILE_RECORD_NORC" ] && [ -f "${ZDOTDIR:-$HOME}/.zshrc" ]; then
  . "${ZDOTDIR:-$HOME}/.zshrc"
fi
__casefile_precmd() { local s=$?; print -n "\e]133;D;$s;@MARK@\a"; }
__casefile_preexec() { print -n "\e]133;C;@MARK@\a"; }
precmd_functions=(__casefile_precmd $precmd_functions)
preexec_functions+=(__casefile_preexec)
PS1=$'%{\e]133;A;@MARK@\a%}'"${PS1:-%# }"$'%{\e]133;B;@MARK@\a%}'
typeset +x PS1
"""

INTEGRATED_SHELLS = ("bash", "zsh")


def _rc(template: str, path: Path, nonce: str, zdotdir: str = "") -> str:
    return (
        template.replace("@RC@", shlex.quote(str(path)))
        .replace("@ZDOTDIR@", zdotdir)
        .replace("@MARK@", mark_parameter(nonce))
    )


@dataclass(frozen=True)
class Recorded:
    """What a session printed, and how it ended."""

    output: bytes
    exit_status: int
    #: the session printed more than :data:`SESSION_LIMIT` (the rest was passed through only)
    clipped: bool = False


@contextlib.contextmanager
def integration(
    shell: str, directory: Path, environ: Mapping[str, str]
) -> Iterator[tuple[list[str], dict[str, str], str]]:
    """(argv, environment, nonce) that start ``shell`` with casefile's integration, its rc file
    written under ``directory``; the nonce is the one its marks carry (for
    :func:`~casefile.transcripts.stream.split_stream`). Raises ValueError for a shell
    without integration."""
    name = Path(shell).name
    env = dict(environ, CASEFILE_RECORDING="1")
    nonce = secrets.token_hex(16)
    if name == "bash":
        rc = directory / "bashrc"
        rc.write_text(_rc(_BASH_RC, rc, nonce))
        yield [shell, "--rcfile", str(rc), "-i"], env, nonce
    elif name == "zsh":
        rc = directory / ".zshrc"
        user = environ.get("ZDOTDIR")
        restore = f"export ZDOTDIR={shlex.quote(user)}" if user is not None else "unset ZDOTDIR"
        rc.write_text(_rc(_ZSH_RC, rc, nonce, restore))
        env["ZDOTDIR"] = str(directory)
        yield [shell, "-i"], env, nonce
    else:
        raise ValueError(name)


def _copy_size(source: int, target: int) -> None:
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(source, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(target, termios.TIOCSWINSZ, size)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def run_in_pty(
    argv: list[str], env: Mapping[str, str], stdin: int = 0, stdout: int = 1
) -> Recorded:
    """Run ``argv`` in a new pseudo-terminal until it exits, passing ``stdin`` to it and its
    output to ``stdout`` unchanged; returns what it printed."""
    pid, master = pty.fork()
    if pid == 0:  # the child: never returns
        try:
            os.execvpe(argv[0], argv, dict(env))
        except OSError as error:
            os.write(2, f"casefile: cannot start {argv[0]}: {error.strerror}\n".encode())
        os._exit(127)
    interactive = os.isatty(stdin)
    saved = termios.tcgetattr(stdin) if interactive else None
    previous = None
    if interactive:
        _copy_size(stdin, master)
        previous = signal.signal(signal.SIGWINCH, lambda *_: _copy_size(stdin, master))
        tty.setraw(stdin)
    kept = bytearray()
    clipped = False
    reading = True
    try:
        while True:
            ready, _, _ = select.select([master, stdin] if reading else [master], [], [])
            if master in ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    data = b""
                if not data:
                    break
                _write_all(stdout, data)
                room = SESSION_LIMIT - len(kept)
                clipped = clipped or len(data) > room
                kept += data[: max(0, room)]
            if reading and stdin in ready:
                data = os.read(stdin, 65536)
                if data:
                    _write_all(master, data)
                else:
                    reading = False  # input ended: the shell sees end of file
                    _write_all(master, b"\x04")
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSAFLUSH, saved)
        if previous is not None:
            signal.signal(signal.SIGWINCH, previous)
        os.close(master)
    _, status = os.waitpid(pid, 0)
    sys.stdout.flush()
    return Recorded(bytes(kept), os.waitstatus_to_exitcode(status), clipped)
