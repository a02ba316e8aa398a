"""Cleaning pasted text before a parser reads it.

People paste outputs from terminals, chat and Markdown: CRLF line endings, the shell prompt
and command above the output, ``> `` blockquote prefixes, trailing spaces, Markdown escapes.
The parsers for lspci, nccl-tests, the CUDA samples and nvbandwidth share these helpers so
that each of them can look at the output as the tool printed it. Nothing here raises on odd
input; the helpers only ever drop or rewrite decoration, never values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "Cleaned",
    "clean",
    "is_prompt_line",
    "to_float",
    "to_int",
]

# Prompts seen in the corpus and in the field, as (pattern, group holding the command):
#   $ lspci -vv                          user@host:~/dir$ ./p2p            ~$ cmd
#   root@host:~# nvidia-smi              [user@host dir]# ./bandwidthTest  [root@esx:~] nvidia-smi
#   [pancho@fedora]~$ ./p2pBandwidth...  Singularity> ./build/all_reduce_perf
#   (venv) user@host:~$ cmd              PS C:\Users\me> nvidia-smi.exe
_PROMPTS: tuple[re.Pattern[str], ...] = (
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
_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INT = re.compile(r"[-+]?[0-9]+")


@dataclass(slots=True)
class Cleaned:
    """Lines of output as the tool printed them, and the commands the paste showed."""

    lines: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(self.lines)


def is_prompt_line(line: str, *, hash_prompt: bool = False) -> str | None:
    """The command on a shell prompt line ("" for a bare prompt), or None if not a prompt."""
    for pattern in _PROMPTS:
        match = pattern.match(line)
        if match:
            return (match.group("cmd") or "").strip()
    if hash_prompt:
        match = _HASH_PROMPT.match(line)
        if match:
            return match.group("cmd").strip()
    return None


def _blockquoted(lines: list[str]) -> bool:
    # Only a paste that is quoted as a whole: a lone "> " line may be real output.
    body = [line for line in lines if line.strip()]
    if not body:
        return False
    quoted = sum(1 for line in body if _BLOCKQUOTE.match(line))
    return quoted >= max(2, int(len(body) * 0.8))


def clean(text: str, *, hash_prompt: bool = False, keep_prompts: bool = False) -> Cleaned:
    """Normalise line endings, strip quoting, prompts and trailing blanks.

    ``hash_prompt`` treats ``# ./tool ...`` lines as root prompts (off by default because
    nccl-tests prints ``#`` comment lines). ``keep_prompts`` leaves prompt lines in place
    but still records their commands (for parsers whose data could look like a prompt).
    """
    if not isinstance(text, str):
        return Cleaned()
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    # A UTF-8 byte-order mark or zero-width space glued to the first token breaks matching.
    text = text.replace("\ufeff", "").replace("\u200b", "")
    lines = [line.rstrip() for line in text.split("\n")]
    if _blockquoted(lines):
        lines = [_BLOCKQUOTE.sub("", line, count=1) for line in lines]
        lines = [_MD_ESCAPE.sub(r"\1", line) for line in lines]
    result = Cleaned()
    for line in lines:
        command = is_prompt_line(line, hash_prompt=hash_prompt)
        if command is not None:
            if command:
                result.commands.append(command)
            if not keep_prompts:
                continue
        result.lines.append(line)
    return result


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
