"""Cleaning pasted text and reading numbers: the helpers the built-in parsers share.

Outputs reach casefile through terminals, chat windows, issue trackers and Markdown notes, so
before a parser looks at a line it wants the line as the tool printed it: no CRLF, no
``> `` blockquote prefix, no ``$ nvidia-smi …`` prompt, no ``^C`` echo, no trailing blanks.
Two cleaners do that once and keep the commands they removed, because a command line can say
what the output means (``--query-gpu=…`` names the columns of a header-less CSV):

- :func:`clean`, for the nvidia-smi parsers, takes a line for a prompt only when it is bare
  or runs one of the GPU tools, since nvidia-smi's own lines can look like prompts;
- :func:`clean_paste`, for lspci, nccl-tests, the CUDA samples, nvbandwidth and
  systemd-detect-virt, knows the prompts of common shells whatever command they run.

The value helpers encode one rule of the fact model: a value the tool could not read
(``N/A``, ``[Not Supported]``, ``-``) is *absent*, never zero, so they return ``None`` for it
and :meth:`ParseResult.add` drops the fact. :func:`to_number` and :func:`parse_quantity`
read a whole cell; :func:`to_float` and :func:`to_int` find the number inside a token
(``8GT/s``, ``x16``, ``1,234.5``).

Every helper here is total: it never raises, whatever text it is given. The tables the tools
print (monitor headers, matrix rows) are read by :mod:`casefile_probes._tables`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "Cleaned",
    "clean",
    "clean_paste",
    "command_option",
    "first_match",
    "is_elision",
    "is_missing",
    "is_prompt_line",
    "natural_key",
    "normalise_bus_id",
    "parse_quantity",
    "split_command",
    "to_float",
    "to_int",
    "to_number",
    "tool_error",
]

#: Spellings nvidia-smi (and friends) use for "no value"; compared case-insensitively.
_MISSING = frozenset(
    {
        "",
        "-",
        "n/a",
        "[n/a]",
        "na",
        "not supported",
        "[not supported]",
        "unknown error",
        "[unknown error]",
        "[insufficient permissions]",
        "insufficient permissions",
        "[requested functionality has been deprecated]",
        "[gpu requires reset]",
        "[not found]",
        "[unknown]",
    }
)

# A prompt is some decoration ending in one of these characters, followed by the command.
# Covers `$ cmd`, `user@host:~$ cmd`, `pi@host:~ $ cmd` (Raspberry Pi OS's space before
# the `$`), `root@host:~# cmd`, `[user@host dir]$ cmd`,
# `[root@esx:~] cmd`, `> cmd`, `(venv) user@host:~$ cmd`, `~ $ time cmd`, zsh's `➜  ~ cmd`.
_PROMPT_PREFIX = re.compile(
    r"""^(?:\([^)]*\)+(?:\s+\)+)?\s*)*          # (conda env) prefixes, even nested ones
        (?:\[[^\]]*\]\s*[$#%>]?                   # [user@host dir]$   [root@esx:~]
          |[^\s\[@]*+@\S*?\s?[$#%>]               # user@host:~$   root@host:~#   pi@h:~ $
          |[~/\w.-]*\s*[$#%>❯➜])                   # $   ~ $   Singularity>   ➜
        \s*(?:[~/\w.-]+\s+)?                      # zsh shows the directory after ➜
        (?:(?:sudo|time|command|exec)\s+)*         # wrappers in front of the tool
        $""",
    re.VERBOSE,
)
# Each "(env)" group above parses one way only (one "(", text up to the first ")", then the
# closing run): the former "\(+[^)]*\)+\s*\)*\s*" matched the same strings in many ways, and
# a failing match tried them all (exponential in the number of groups).

# Decoration over this length in front of a GPU tool is not a prompt. Prompts are far shorter,
# and the cap keeps _PROMPT_PREFIX's remaining backtracking (an alternative retried after each
# "(env)" group) to a bounded cost per line: matching stays linear in the line's length.
_MAX_PROMPT_PREFIX = 512

# A line that is only a prompt (the second line of a two-line prompt, or an empty prompt).
_BARE_PROMPT = re.compile(r"^\s*(?:\[[^\]]*@[^\]]*\][$#]?|[\w.-]+@[\w.-]+:\S*\s?[$#]|[$#])\s*$")

#: Programs whose invocation marks a prompt line; lower-case, as typed in a shell.
_PROGRAMS = ("nvidia-smi", "lspci", "nvbandwidth", "bandwidthTest", "p2pBandwidthLatencyTest")
# Where a program name starts and is followed by ``.exe``, whitespace or the end of the line.
# A zero-width lookahead, so that each offset costs a constant amount of work; the directory
# in front of the program (``./``, ``/usr/bin/``) is found by scanning back from there (see
# _program_start), not by a ``\S*/`` tried at every offset, which was quadratic.
_PROGRAM_AT = re.compile(
    r"(?=(?:" + "|".join(re.escape(p) for p in _PROGRAMS) + r")(?:\.exe)?(?:\s|\Z))"
)

# Prompts for clean_paste, as (pattern, group holding the command):
#   $ lspci -vv                          user@host:~/dir$ ./p2p            ~$ cmd
#   root@host:~# nvidia-smi              [user@host dir]# ./bandwidthTest  [root@esx:~] nvidia-smi
#   [pancho@fedora]~$ ./p2pBandwidth...  Singularity> ./build/all_reduce_perf
#   (venv) user@host:~$ cmd              PS C:\Users\me> nvidia-smi.exe
_SHELL_PROMPTS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^\s*\$\s?(?P<cmd>.*)$"),
    re.compile(r"^\s*(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+(?::\S*)?\s?[$#%](?:\s(?P<cmd>.*))?\s*$"),
    re.compile(r"^\s*(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+(?::\S*)?[$#%](?P<cmd>\S.*)$"),
    re.compile(r"^\s*\[[^\]\s]*@[^\]]*\][^\s$#]*\s?[$#]?\s?(?P<cmd>.*)$"),
    re.compile(r"^\s*~[$#]\s?(?P<cmd>.*)$"),
    re.compile(r"^\s*%\s(?P<cmd>.*)$"),
    re.compile(r"^\s*(?:Singularity|Apptainer|bash-[\d.]+|sh-[\d.]+)[>$#]\s?(?P<cmd>.*)$"),
    re.compile(r"^\s*PS [A-Za-z]:\\[^>]*>\s?(?P<cmd>.*)$"),
)

# "# cmd" is a root prompt in many pastes, but nccl-tests prints "# ..." comment lines of its
# own, so parsers opt in; and then only when the rest looks like a command being run.
_HASH_PROMPT = re.compile(
    r"^\s*#\s?(?P<cmd>(?:sudo\s+)?(?:\.{0,2}/|[\w.-]+/)?[\w.-]*"
    r"(?:lspci|nvidia-smi|bandwidthTest|nvbandwidth|p2pBandwidthLatencyTest|_perf|p2p)\b.*)$"
)

_BLOCKQUOTE = re.compile(r"^\s{0,3}>(?: |$)")
_MD_ESCAPE = re.compile(r"\\([#*_|\[\]])")

# Lines a person put in place of output they cut ("[...]", "...", "…").
_ELISION = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…)\s*$")

# Error messages that nvidia-smi prints *instead of* its output.
_TOOL_ERRORS = (
    re.compile(r"NVIDIA-SMI has failed.*", re.IGNORECASE),
    re.compile(r"No devices were found.*", re.IGNORECASE),
    re.compile(r"Failed to initialize NVML.*", re.IGNORECASE),
    re.compile(r"NVML: Driver/library version mismatch.*", re.IGNORECASE),
    re.compile(r"Unable to determine the device handle.*", re.IGNORECASE),
    re.compile(r"nvidia-smi: command not found.*", re.IGNORECASE),
    re.compile(r".*nvidia-smi.*: (?:not found|No such file or directory).*", re.IGNORECASE),
    re.compile(r"Invalid combination of input arguments.*", re.IGNORECASE),
    re.compile(r"Insufficient Permissions.*", re.IGNORECASE),
    # dmon and pmon on a GPU that cannot report them (a GeForce card of 2019's drivers)
    re.compile(r"Not supported on the device\(s\).*", re.IGNORECASE),
)

_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INT = re.compile(r"[-+]?[0-9]+")
_QUANTITY = re.compile(r"^([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*([A-Za-z%°][A-Za-z%°/()]*)?$")
_BUS_ID = re.compile(
    r"^(?:(?P<dom>[0-9A-Fa-f]{1,8}):)?(?P<bus>[0-9A-Fa-f]{1,2}):(?P<dev>[0-9A-Fa-f]{1,2})\.(?P<fn>[0-7])$"
)


@dataclass(slots=True)
class Cleaned:
    """Pasted text reduced to the tool's own lines, plus the commands that were removed."""

    lines: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    #: True when every line had been quoted as a Markdown blockquote (``> …``)
    blockquoted: bool = False

    def text(self) -> str:
        return "\n".join(self.lines)


def _unify_line_ends(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def clean(text: str) -> Cleaned:
    """Undo what pasting does to a tool's output, keeping indentation inside each line.

    Line endings become ``\\n``; trailing blanks go; a ``> `` blockquote is removed when
    (nearly) every line carries it, and so are Markdown's ``\\#`` escapes at line start;
    ``^C`` echoes are dropped; prompt lines are removed and their commands kept in
    ``commands``. Leading indentation is kept (``nvidia-smi -q`` nests by it), as are blank
    lines (several tools use them to separate sections). Tabs are kept as they are: some tables
    mark empty cells with consecutive tabs.
    """
    lines = [line.rstrip() for line in _unify_line_ends(text).split("\n")]
    non_empty = [line for line in lines if line.strip()]
    quoted = [line for line in non_empty if line.lstrip().startswith(">")]
    # A single `> nvidia-smi …` line is a Windows/PowerShell-style prompt, not a blockquote.
    blockquoted = len(non_empty) >= 2 and len(quoted) >= 0.8 * len(non_empty)
    result = Cleaned(blockquoted=blockquoted)
    for line in lines:
        if blockquoted:
            stripped = line.lstrip()
            if stripped.startswith(">"):
                line = stripped[2:] if stripped.startswith("> ") else stripped[1:]
        if line.lstrip().startswith("\\#"):
            line = line.replace("\\#", "#", 1)
        while line.lstrip().startswith("^C"):
            line = line.lstrip()[2:]
        command = _prompt_command(line)
        if command is not None:
            if command:
                result.commands.append(command)
            continue
        result.lines.append(line.rstrip())
    return result


def _prompt_command(line: str) -> str | None:
    """The command typed on a prompt line, ``""`` for a bare prompt, None for other lines."""
    if _BARE_PROMPT.match(line):
        return ""
    start = _program_start(line)
    if start is None:
        return None
    prefix = line[:start]
    if len(prefix) > _MAX_PROMPT_PREFIX:
        return None
    if prefix.strip() and not _PROMPT_PREFIX.match(prefix):
        return None
    return line[start:].strip()


def _program_start(line: str) -> int | None:
    """Where the command starts on a line that runs one of the GPU tools, or None.

    The leftmost offset from which the rest of the line is ``[dir/]program[.exe][ args]``: the
    first program name followed by ``.exe``, whitespace or the end, taken back to the start of
    its word when a ``/`` precedes it. Linear in the length of the line.
    """
    for found in _PROGRAM_AT.finditer(line):
        position = found.start()
        if position == 0 or line[position - 1] != "/":
            return position
        start = position - 1
        while start > 0 and not line[start - 1].isspace():
            start -= 1
        return start
    return None


def is_prompt_line(line: str, *, hash_prompt: bool = False) -> str | None:
    """The command on a shell prompt line ("" for a bare prompt), or None if not a prompt.

    Any command counts (the prompts :func:`clean_paste` removes); ``hash_prompt`` also takes
    ``# ./tool …`` for a root prompt when the tool is one of the GPU tools.
    """
    for pattern in _SHELL_PROMPTS:
        match = pattern.match(line)
        if match:
            return (match.group("cmd") or "").strip()
    if hash_prompt:
        match = _HASH_PROMPT.match(line)
        if match:
            return match.group("cmd").strip()
    return None


def _quoted_as_a_whole(lines: list[str]) -> bool:
    # Only a paste that is quoted as a whole: a lone "> " line may be real output.
    body = [line for line in lines if line.strip()]
    if not body:
        return False
    quoted = sum(1 for line in body if _BLOCKQUOTE.match(line))
    return quoted >= max(2, int(len(body) * 0.8))


def clean_paste(text: str, *, hash_prompt: bool = False, keep_prompts: bool = False) -> Cleaned:
    """Normalise line endings, strip quoting, shell prompts and trailing blanks.

    Unlike :func:`clean`, any shell prompt counts, whatever command it runs (see
    :func:`is_prompt_line`); a blockquote is unwrapped only when at most three spaces precede
    its ``>``, and then Markdown's escapes of ``#*_|[]`` are undone anywhere in the line; a
    byte-order mark or zero-width space is dropped. ``hash_prompt`` treats ``# ./tool ...``
    lines as root prompts (off by default because nccl-tests prints ``#`` comment lines).
    ``keep_prompts`` leaves prompt lines in place but still records their commands (for
    parsers whose data could look like a prompt).
    """
    if not isinstance(text, str):
        return Cleaned()
    # A UTF-8 byte-order mark or zero-width space glued to the first token breaks matching.
    text = _unify_line_ends(text).replace("\ufeff", "").replace("\u200b", "")
    lines = [line.rstrip() for line in text.split("\n")]
    blockquoted = _quoted_as_a_whole(lines)
    if blockquoted:
        lines = [_BLOCKQUOTE.sub("", line, count=1) for line in lines]
        lines = [_MD_ESCAPE.sub(r"\1", line) for line in lines]
    result = Cleaned(blockquoted=blockquoted)
    for line in lines:
        command = is_prompt_line(line, hash_prompt=hash_prompt)
        if command is not None:
            if command:
                result.commands.append(command)
            if not keep_prompts:
                continue
        result.lines.append(line)
    return result


def first_match(patterns: tuple[re.Pattern[str], ...], line: str) -> re.Match[str] | None:
    """The first of ``patterns``, in order, that ``line`` holds: a log states one setting in
    several spellings, and the order says which spelling wins where a line holds two."""
    for pattern in patterns:
        match = pattern.search(line)
        if match is not None:
            return match
    return None


def is_elision(line: str) -> bool:
    """Whether a line stands for output the person cut (``[...]``, ``...``, ``…``)."""
    return _ELISION.match(line) is not None


def command_option(commands: list[str], *names: str) -> str | None:
    """The value of the first of ``names`` (``-i``, ``--id``) given on any removed command.

    Accepts ``-i 0``, ``-i=0``, ``--id=0`` and ``--query-gpu=a,b``; None when absent.
    """
    for command in commands:
        tokens = command.split()
        for position, token in enumerate(tokens):
            for name in names:
                if token == name and position + 1 < len(tokens):
                    return tokens[position + 1]
                if token.startswith(name + "="):
                    return token[len(name) + 1 :]
    return None


#: the longest line :func:`split_command` reads as shell: ``shlex`` builds each word one
#: character at a time, so its cost grows with the square of a word's length (a megabyte of
#: "/" before "nvidia-smi" took seven seconds); a command someone typed is far shorter
SHELL_LINE_MAX = 8192


def split_command(command: str) -> list[str]:
    """A command line's words as a POSIX shell splits them, its quoting taken off
    (``--query-gpu="index,name"`` → ``--query-gpu=index,name``); split on whitespace when the
    line does not read as shell (an unclosed quote, as when a paste cut it short) or is longer
    than any typed command (:data:`SHELL_LINE_MAX`)."""
    if not isinstance(command, str):
        return []
    if len(command) > SHELL_LINE_MAX:
        return command.split()
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def tool_error(lines: list[str]) -> str | None:
    """``nvidia-smi reported an error: <message>`` for the first known failure line, or None.

    Parsers call this when they found no output of their kind, so that the reason they give is
    the tool's own ("NVIDIA-SMI has failed because …") rather than "no header found".
    """
    for line in lines:
        stripped = line.strip()
        for pattern in _TOOL_ERRORS:
            if pattern.match(stripped):
                return f"nvidia-smi reported an error: {stripped}"
    return None


def is_missing(value: str) -> bool:
    """Whether a cell says "no value" (``N/A``, ``[Not Supported]``, ``-`` …)."""
    return value.strip().lower() in _MISSING


def to_number(value: str) -> int | float | None:
    """An int or float from a bare number (``"42"``, ``"74.71"``, ``"-8"``); None otherwise."""
    text = value.strip()
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if re.fullmatch(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?", text):
        return float(text)
    return None


def to_float(token: str | None) -> float | None:
    """A float from a token such as ``12.3``, ``1,234.5`` or ``8GT/s``; None when absent.

    ``N/A``, ``[Not Supported]``, ``-`` and empty strings give None: a missing reading is
    never a zero.
    """
    if token is None:
        return None
    match = _NUMBER.search(token.replace(",", ""))
    if not match:
        return None
    try:
        value = float(match.group(0))
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value


def to_int(token: str | None) -> int | None:
    """An int from a token such as ``x16`` or ``1024``; None when there is none."""
    if token is None:
        return None
    match = _INT.search(token.replace(",", ""))
    if not match:
        return None
    try:
        return int(match.group(0))
    except ValueError:
        return None


def parse_quantity(value: str) -> tuple[int | float, str | None] | None:
    """A number and its unit from a cell such as ``74.71 W``, ``16x``, ``1583MiB``, ``0 %``.

    Returns None for missing values and for anything that is not a number with an optional
    unit, so that callers never mistake text for a reading.
    """
    text = value.strip()
    if is_missing(text):
        return None
    match = _QUANTITY.match(text)
    if match is None:
        return None
    number = to_number(match.group(1))
    if number is None:
        return None
    return number, match.group(2)


def normalise_bus_id(value: str) -> str | None:
    """A PCI address as ``dddd:bb:dd.f`` in lower case, the form lspci and sysfs use.

    nvidia-smi prints an 8-digit domain (``00000000:18:00.0``); older versions and lspci print
    four digits or none. One spelling lets rules join facts from different tools.
    """
    match = _BUS_ID.match(value.strip())
    if match is None:
        return None
    domain = int(match.group("dom") or "0", 16)
    bus = int(match.group("bus"), 16)
    device = int(match.group("dev"), 16)
    return f"{domain:04x}:{bus:02x}:{device:02x}.{match.group('fn')}"


_DIGITS = re.compile(r"(\d+)")


@lru_cache(maxsize=4096)
def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that puts ``gpu2`` before ``gpu10``, for stable, readable fact order.

    Cached: a topology matrix sorts the same few dozen device names hundreds of times.
    """
    parts = _DIGITS.split(text)
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts if part)
