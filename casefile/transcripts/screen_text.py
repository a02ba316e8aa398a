"""The text a terminal showed for recorded output bytes.

ANSI escape sequences (CSI, OSC, two-byte escapes) are dropped, a carriage return moves back to
the start of the line so a progress bar leaves only its last state, and a backspace moves one
column left so ``x\\bx`` and typed-then-erased characters read as the user saw them. Only the
line model is kept (no cursor addressing): that is what command output uses.
"""

from __future__ import annotations

import re

__all__ = ["render"]

#: CSI ``ESC [ … final``, OSC ``ESC ] … BEL|ST``, other ``ESC x``, and C1 CSI (0x9b)
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_CONTROLS = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1f\x7f]")


def _line(raw: str) -> str:
    """One line with its carriage returns and backspaces applied."""
    if "\r" not in raw and "\b" not in raw:
        return raw
    cells: list[str] = []
    column = 0
    for char in raw:
        if char == "\r":
            column = 0
        elif char == "\b":
            column = max(0, column - 1)
        else:
            if column < len(cells):
                cells[column] = char
            else:
                cells.append(char)
            column += 1
    return "".join(cells)


def render(text: str) -> str:
    """What the terminal showed for ``text`` (line endings normalised to ``\\n``)."""
    text = _ESCAPES.sub("", text.replace("\r\n", "\n"))
    text = _CONTROLS.sub("", text)
    return "\n".join(_line(line) for line in text.split("\n"))
