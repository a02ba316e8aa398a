"""Escaping text that came from a case (titles, notes, probe output) for each output format.

Anything in a case may have been typed, pasted or printed by a remote host, so none of it is
trusted: a ``|`` must not end a Markdown table cell, a backtick must not open code, ``<script>``
or an entity must not become markup, and a terminal escape sequence must not survive into a
file someone will ``cat``. Control characters (C0 but newline and tab, DEL, C1), lone
surrogates and the bidirectional overrides are first made visible as ``\\x1b``-style escapes;
then each format escapes its own syntax.
"""

from __future__ import annotations

import html
import re

from casefile.text_safety import UNSAFE_CLASS
from casefile.text_safety import block as visible

#: Markdown's inline syntax, backslash-escaped (CommonMark allows it before any punctuation).
_MD_PUNCT = re.compile(r"([\\`*_\[\]|~#])")
#: What would start a block if it opened a line (a list item's content is a block too).
_MD_LEADING = re.compile(r"^(\s*)([-+=>]|\d+[.)])")


#: Anything :func:`md` would change (most text has none: it is then returned as it is).
_MD_ANY = re.compile(f"[\\\\`*_\\[\\]|~#&<>\t\r\n{UNSAFE_CLASS}]")


def one_line(text: str) -> str:
    """:func:`visible`, with newlines and tabs turned into spaces (a cell is one line)."""
    return visible(text).replace("\t", " ").replace("\r", " ").replace("\n", " ")


def md(text: str) -> str:
    """Inline Markdown text that renders as exactly ``text``, on one line."""
    if _MD_ANY.search(text) is None:
        return text
    flat = one_line(text)
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_PUNCT.sub(r"\\\1", flat)


def md_start(escaped: str) -> str:
    """Markdown text (already escaped by :func:`md`) that opens a block: a leading ``-``,
    ``+``, ``=``, ``>`` or ``1.`` is escaped too, so it cannot start a list or a quote."""
    return _MD_LEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped, count=1)


def md_code(text: str) -> str:
    """Inline code: ``text`` between enough backticks that none inside can close it."""
    flat = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_fence(lines: list[str]) -> str:
    """A fenced code block holding ``lines`` verbatim (controls made visible), its fence
    longer than any backtick run inside."""
    body = [visible(line).replace("\n", " ") for line in lines]
    longest = max((len(run) for line in body for run in re.findall(r"`{3,}", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *body, fence])


def h(text: str) -> str:
    """HTML (and XML) text or attribute value that displays as exactly ``text``."""
    return html.escape(visible(text), quote=True)
