"""Control characters made visible, for any front end that draws text on a terminal.

Titles, notes, actors, hypothesis texts and raw probe output can hold escape sequences
(``ESC ] 0 ; … BEL`` retitles the window, ``ESC [ 2 J`` clears the screen, a C1 ``CSI`` does
the same in one character). Every C0 control but the tab (and, in :func:`block`, the newline),
DEL, every C1 control, the bidirectional overrides and any lone surrogate is written as a hex
escape (``\\x1b``, ``\\x9b``, ``\\u202e``, ``\\udcff``). The CLI, the TUI and the
report all build on these definitions.
"""

from __future__ import annotations

import re

#: C0 controls but tab and newline, DEL and the C1 controls.
CONTROLS = "".join(chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if c not in (9, 10))
#: The bidirectional embeddings, overrides and isolates, which reorder what a reader sees
#: (a note can look like another note) though they draw nothing themselves.
BIDI = "\u202a-\u202e\u2066-\u2069"
#: Lone surrogates: an argument or a file that was not UTF-8.
SURROGATES = "\ud800-\udfff"
#: Every character made visible, as a regex character class body.
UNSAFE_CLASS = f"{re.escape(CONTROLS)}{BIDI}{SURROGATES}"
_BLOCK = re.compile(f"[{UNSAFE_CLASS}]")
_LINE = re.compile(f"[{UNSAFE_CLASS}\n]")


def hex_escape(match: re.Match[str]) -> str:
    """The escape written for one matched character (``\\x1b``, ``\\u202e``)."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def block(text: str) -> str:
    """``text`` with every control character but the newline and the tab escaped."""
    return _BLOCK.sub(hex_escape, text)


def line(text: str) -> str:
    """:func:`block` with the newline escaped too: for a row that must stay one line."""
    return _LINE.sub(hex_escape, text)
