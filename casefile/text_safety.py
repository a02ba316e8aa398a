"""Control characters made visible, for any front end that draws text on a terminal.

Titles, notes, actors, hypothesis texts and raw probe output can hold escape sequences
(``ESC ] 0 ; … BEL`` retitles the window, ``ESC [ 2 J`` clears the screen, a C1 ``CSI`` does
the same in one character). Every C0 control but the tab (and, in :func:`block`, the newline),
DEL, every C1 control and any lone surrogate is written as a hex escape (``\\x1b``,
``\\x9b``, ``\\udcff``), the same form the CLI prints.
"""

from __future__ import annotations

import re

_UNSAFE = "".join(chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if c not in (9, 10))
_SURROGATES = "\ud800-\udfff"
_BLOCK = re.compile(f"[{re.escape(_UNSAFE)}{_SURROGATES}]")
_LINE = re.compile(f"[{re.escape(_UNSAFE)}\n{_SURROGATES}]")


def _hex(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def block(text: str) -> str:
    """``text`` with every control character but the newline and the tab escaped."""
    return _BLOCK.sub(_hex, text)


def line(text: str) -> str:
    """:func:`block` with the newline escaped too: for a row that must stay one line."""
    return _LINE.sub(_hex, text)
