"""Secrets scrubbed from command lines, output and prose before anything is sealed.

A sealed event cannot be edited, so this runs before the append, on whatever enters an event
or an artifact. What is scrubbed is replaced by ``[scrubbed]`` and named (by kind, never by
value) so the run can say so; the shapes looked for are in :mod:`.secret_shapes`, besides
which a base64 word of high entropy standing alone (a key printed bare) is one too, and so
is all the output of a command that prints a secret (``aws configure get …secret…``).
"""

from __future__ import annotations

import math
import re
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from casefile.transcripts.secret_shapes import PRINTS_SECRET, SECRET_NAME, SHAPES, Shape

__all__ = ["MASK", "Scrubbed", "entropy", "is_secret_name", "mask_values", "scrub", "scrub_argv"]

MASK = "[scrubbed]"

_SECRET_NAME_ALONE = re.compile(rf"(?i){SECRET_NAME}")


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``HF_TOKEN``)."""
    return _SECRET_NAME_ALONE.fullmatch(name) is not None


@dataclass(frozen=True)
class Scrubbed:
    """Text with its secrets masked, and the kinds that were found."""

    text: str
    kinds: tuple[str, ...] = ()
    #: the secrets themselves, to mask wherever else they occur (never recorded)
    values: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """How many different secrets were masked."""
        return len(set(self.values))


#: a base64 word standing alone on its line (``aws configure get …`` prints one), or quoted
_HIGH_ENTROPY = re.compile(
    r"(?m)(^[ \t]*)([A-Za-z0-9+/]{32,}={0,2})(?=[ \t]*\r?$)"
    r"|([\"'])([A-Za-z0-9+/]{20,}={0,2})(?=[\"'])"
)
#: detect-secrets' limit for base64 strings (a GPU UUID is hex, at most 4 bits a character)
ENTROPY_LIMIT = 4.5


def entropy(word: str) -> float:
    """Shannon entropy of ``word``, in bits a character."""
    counts = Counter(word)
    return -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())


def _random_looking(word: str) -> bool:
    """Whether a base64 word reads as a key: upper, lower and digits, above the limit."""
    return (
        any(c.isupper() for c in word)
        and any(c.islower() for c in word)
        and any(c.isdigit() for c in word)
        and entropy(word.rstrip("=")) > ENTROPY_LIMIT
    )


def scrub(
    text: str,
    *,
    program_line: bool = False,
    keep_length: bool = False,
    command: str | None = None,
) -> Scrubbed:
    """``text`` with every known secret shape masked. ``-p<password>`` is only looked for in a
    command line (``program_line``): in output, ``-p`` is too common to mean a password.
    ``command`` is the command line that printed ``text``: the whole output of one that prints
    a secret (``aws configure get …secret…``) is one. ``keep_length`` overwrites each secret
    with ``*`` of its length instead."""
    kinds: list[str] = []
    values: list[str] = []

    def hide(secret: str, kind: str) -> str:
        if kind not in kinds:
            kinds.append(kind)
        values.append(secret)
        return "*" * len(secret) if keep_length else MASK

    if command is not None and PRINTS_SECRET.search(command.strip().split("\n", 1)[0]):
        text = re.sub(
            r"(?m)^([ \t]*)(\S(?:[^\r\n]*\S)?)",
            lambda m: m.group(1) + hide(m.group(2), "printed secret"),
            text,
        )
    for shape in SHAPES:
        if not shape.command_only or program_line:
            text = _sub(shape, text, partial(_mask, shape=shape, hide=hide))

    def high_entropy(match: re.Match[str]) -> str:
        prefix, word = (match.group(1), match.group(2))
        if word is None:
            prefix, word = match.group(3), match.group(4)
        if not _random_looking(word):
            return match.group(0)
        return prefix + hide(word, "high-entropy string")

    text = _HIGH_ENTROPY.sub(high_entropy, text)
    return Scrubbed(text, tuple(kinds), tuple(values))


def _sub(shape: Shape, text: str, mask: Callable[[re.Match[str]], str]) -> str:
    """``text`` with ``shape`` masked. A shape with hints is matched only on the lines that
    hold one (its matches never leave their line): a substring search is far cheaper than a
    pattern on long output, where few lines hold a hint."""
    if not shape.hints:
        return shape.pattern.sub(mask, text)
    lowered = text.lower()
    if len(lowered) != len(text) or not shape.one_line:  # (a rare letter lowers to two)
        hinted = any(hint in lowered for hint in shape.hints)
        return shape.pattern.sub(mask, text) if hinted else text
    spans: list[tuple[int, int]] = []
    for hint in shape.hints:
        at = lowered.find(hint)
        while at >= 0:
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            spans.append((text.rfind("\n", 0, at) + 1, end))
            at = lowered.find(hint, end)
    if not spans:
        return text
    pieces: list[str] = []
    done = 0
    for start, end in _merged(spans):
        pieces += [text[done:start], shape.pattern.sub(mask, text[start:end])]
        done = end
    return "".join([*pieces, text[done:]])


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans as one, in order."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _mask(match: re.Match[str], *, shape: Shape, hide: Callable[[str, str], str]) -> str:
    """The match with its secret hidden, unless it is masked already or names no secret."""
    found = match.group(2)
    if found in ("", MASK) or set(found) == {"*"} or MASK in found:
        return match.group(0)
    if shape.keep is not None and not shape.keep(match):
        return match.group(0)
    if found[:1] in ("'", '"'):  # the value within its quotes (the closing one may lack)
        closed = len(found) > 1 and found[-1] == found[0]
        inner = found[1:-1] if closed else found[1:]
        if not inner or inner == MASK:
            return match.group(0)
        return match.group(1) + found[0] + hide(inner, shape.kind) + (found[0] if closed else "")
    return match.group(1) + hide(found, shape.kind)


def scrub_argv(argv: Sequence[str]) -> tuple[tuple[str, ...], Scrubbed]:
    """``argv`` with its secrets masked, read as the command line it makes (``--token X``
    spans two words) and word by word (a word a shell would quote, such as a script)."""
    line = scrub(shlex.join(argv), program_line=True)
    words = [scrub(word, program_line=True) for word in argv]
    # (a value the line gives that no word holds is the shell's quoting around one: dropped)
    spanning = [value for value in line.values if any(value in word for word in argv)]
    values = [*spanning, *(value for word in words for value in word.values)]
    kinds = tuple(dict.fromkeys([*line.kinds, *(kind for word in words for kind in word.kinds)]))
    masked = []
    for word in words:
        text = word.text
        for value in sorted(set(values), key=len, reverse=True):
            if len(value) >= 3:
                text = text.replace(value, MASK)
        masked.append(text)
    return tuple(masked), Scrubbed(shlex.join(masked), kinds, tuple(values))


#: what a terminal stream may put between the characters of a secret it shows as one word:
#: colour and cursor controls (``grep --color``: ``hf_\e[m\e[K…``), OSC strings, readline's
#: ``" \r"`` wrap
_BETWEEN = (
    rb"(?:\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]"
    rb"|\x1b[=>]| ?\r\n?)"
)
_ONE_BETWEEN = re.compile(_BETWEEN)


def mask_values(data: bytes, values: tuple[str, ...] | list[str]) -> bytes:
    """``data`` with every occurrence of each secret overwritten by ``*`` of the same length,
    so offsets into it stay true (the source file kept as an artifact). A secret the terminal
    stream split with escape sequences (what the rendered text showed as one word) is found
    across them: its characters are overwritten and the escapes kept."""
    escaped = b"\x1b" in data or b"\r" in data
    for value in sorted(set(values), key=len, reverse=True):
        raw = value.encode("utf-8", errors="surrogateescape")
        if len(raw) < 4:  # a shorter one would mask ordinary text; the shapes catch it
            continue
        data = data.replace(raw, b"*" * len(raw))
        if escaped:
            data = _mask_split(data, raw)
    return data


def _mask_split(data: bytes, raw: bytes) -> bytes:
    between = _BETWEEN + b"*"
    pattern = re.compile(between.join(re.escape(raw[i : i + 1]) for i in range(len(raw))))
    kept = bytearray(data)
    for match in pattern.finditer(data):
        at = match.start()
        while at < match.end():
            skip = _ONE_BETWEEN.match(data, at)
            if skip is not None and skip.end() > at:
                at = skip.end()
                continue
            kept[at] = ord("*")
            at += 1
    return bytes(kept)
