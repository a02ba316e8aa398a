"""Colour on a terminal: who leads, warnings, pivots and surprises stand out.

Colour only underlines what the words and glyphs already say (``leader:``, ``⚠``, ``⚑ PIVOT``,
``← SURPRISE``, ``✓ cleared``): the same lines without colour mean the same thing, so a reader
who cannot tell the colours apart, or a pipe, loses nothing.

It is painted on text already made terminal-safe (:func:`casefile.cli.terminal.terminal_safe`),
so the escape sequences added here are the only ones that reach the terminal: nothing a user
typed can open or close one.

Whether a stream is coloured (:func:`wanted`): ``--color always|never`` decides; else a
non-empty ``NO_COLOR`` turns colour off (https://no-color.org); else the config file's
``color``; else ``auto``: colour when the stream is a terminal and ``TERM`` is not ``dumb``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

MODES = ("auto", "always", "never")

RESET = "\x1b[0m"
BOLD_RED = "\x1b[1;31m"
BOLD_GREEN = "\x1b[1;32m"
YELLOW = "\x1b[33m"
BOLD_MAGENTA = "\x1b[1;35m"
BOLD_CYAN = "\x1b[1;36m"
GREEN = "\x1b[32m"

#: the streams colour is painted on (by identity; set by :func:`enable`)
_coloured: list[TextIO] = []


def wanted(
    flag: str | None, configured: str | None, environ: Mapping[str, str], stream: TextIO
) -> bool:
    """Whether to colour ``stream``: the flag > ``NO_COLOR`` > the config file > auto."""
    if flag == "always":
        return True
    if flag == "never":
        return False
    if environ.get("NO_COLOR"):  # set and non-empty, as no-color.org says
        return False
    if flag is None and configured in ("always", "never"):
        return configured == "always"
    if environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a real file
        return False


def enable(streams: Iterable[TextIO]) -> None:
    """Paint colour on exactly these streams from now on (none: :func:`enable` ``([])``)."""
    _coloured[:] = list(streams)


def is_coloured(stream: TextIO) -> bool:
    return any(stream is s for s in _coloured)


def _whole(colour: str) -> Callable[[re.Match[str]], str]:
    """Colour the match's second group, keep its first (the indent) as it is."""

    def paint_match(match: re.Match[str]) -> str:
        return f"{match.group(1)}{colour}{match.group(2)}{RESET}"

    return paint_match


# (pattern, painter) in order; each works on whole lines of terminal-safe text
_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"^(\s*)(⚠ integrity: .*)$", re.M), _whole(BOLD_RED)),
    (re.compile(r"^(\s*)(⚠ \[.*)$", re.M), _whole(YELLOW)),
    (re.compile(r"^(\s*)(⚑ PIVOT .*)$", re.M), _whole(BOLD_MAGENTA)),
    (re.compile(r"^(\s*)(✓ cleared .*)$", re.M), _whole(GREEN)),
    (re.compile(r"^(  leader: )(\S+)", re.M), _whole(BOLD_GREEN)),
    (re.compile(r"(leads at the end: )(\S+)"), _whole(BOLD_GREEN)),
    (re.compile(r"(  )(← SURPRISE:)"), _whole(BOLD_CYAN)),
    (re.compile(r"^()(casefile: error:)", re.M), _whole(BOLD_RED)),
    (re.compile(r"^()(casefile: (?:warning|verify failed):)", re.M), _whole(YELLOW)),
)

#: a cheap test before the regexes: a line worth colouring holds one of these
_HINTS = ("⚠", "⚑", "✓", "leader: ", "leads at the end", "SURPRISE", "casefile: ")


def paint(text: str, stream: TextIO) -> str:
    """``text`` (terminal-safe) with colour added when ``stream`` is coloured."""
    if not _coloured or not is_coloured(stream) or not any(h in text for h in _HINTS):
        return text
    for pattern, painter in _RULES:
        text = pattern.sub(painter, text)
    return text
