"""Text made safe for a terminal, where the CLI prints: :func:`say` for human-readable text
(every command, stdout and stderr, ``casefile: error: …`` and argparse's messages included),
:func:`say_json` for JSON, and ``graph`` (:func:`terminal_safe` or :func:`xml_safe`).

Everything casefile prints can quote what someone typed, imported or pasted (titles, notes,
actors, hypothesis texts, raw probe output, error messages that quote an argument), so an escape
sequence in it (``ESC ] 0 ; … BEL`` sets the window title, ``ESC [ 2 J`` clears the screen, a
C1 ``CSI`` does the same in one character) must not reach the terminal as it is.

The escape form, for human-readable output (:func:`terminal_safe`): every C0 control but the
newline and the tab, DEL, every C1 control (U+0080–U+009F), the bidirectional overrides and
isolates (U+202A–U+202E, U+2066–U+2069, which reorder what a reader sees) and any lone
surrogate (an argument that was not UTF-8) is written as a hex escape, one form for all:
``\\x1b``, ``\\x07``, ``\\x0d``, ``\\x9b``, ``\\x7f``, ``\\u202e``, ``\\udcff``.
The newline is kept (casefile prints multi-line blocks on purpose); a renderer that means one
line per row escapes it too (:func:`one_line`, ``\\x0a``).
A backslash is left as it is, so ``\\x1b`` typed literally looks like an escaped ESC:
``--json`` always has the exact text.

GraphML keeps its meaning too (:func:`xml_safe`: DEL and C1 as ``&#x9b;``).

A stream that is not UTF-8 (``LANG=C`` with a non-UTF-8 locale, ``PYTHONIOENCODING=ascii``)
gets what it can encode (:func:`fit`, :func:`fit_json`): casefile's glyphs in ASCII, ``?`` for
anything else, ``\\u`` escapes in JSON; printing never raises.

JSON output stays exact (:func:`json_safe`): ``json.dumps(…, ensure_ascii=False)`` already
writes C0 controls as ``\\u001b``; DEL, the C1 controls, U+2028/U+2029 and lone surrogates,
which it writes raw, become ``\\u`` escapes too, which decode to the same strings.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

from casefile.text_safety import CONTROLS, SURROGATES, block, hex_escape, line

_UNSAFE = CONTROLS
_SURROGATES = SURROGATES
#: characters JSON allows raw inside a string that a terminal may act on (or cannot encode)
_JSON_UNSAFE = "".join(chr(c) for c in range(0x7F, 0xA0)) + "\u2028\u2029"

# One regex scan finds what needs escaping (none, nearly always: the text comes back as it is),
# and only what it finds is replaced: faster than str.translate over the whole text either way.
_JSON = re.compile(f"[{re.escape(_JSON_UNSAFE)}{_SURROGATES}]")
# GraphML: the controls and surrogates (bidirectional marks are valid text in a document)
_XML = re.compile(f"[{re.escape(_UNSAFE)}{_SURROGATES}]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _xml_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0x7F <= code < 0xA0:
        return f"&#x{code:x};"  # the same document
    return hex_escape(match)  # what XML 1.0 cannot hold at all: made visible


def terminal_safe(text: str) -> str:
    """``text`` with every control character but ``\\n`` and ``\\t``, and every bidirectional
    override, escaped (``\\x1b``, ``\\u202e``); see :mod:`casefile.text_safety`."""
    return block(text)


def one_line(text: str) -> str:
    """:func:`terminal_safe`, with the newline escaped too (``\\x0a``): for a field printed on a
    line of its own kind (a log row, a table row), so that it cannot pose as another line."""
    return line(text)


def json_safe(text: str) -> str:
    """JSON text (from ``json.dumps(…, ensure_ascii=False)``) with DEL, C1 controls,
    U+2028/U+2029 and lone surrogates written as ``\\u`` escapes: the same JSON value, safe to
    print. (Outside strings JSON text is ASCII, so every such character is inside a string.)"""
    if text.isascii() and "\x7f" not in text:  # isascii is O(1) on CPython's ASCII strings
        return text
    return _JSON.sub(_json_escape, text)


def xml_safe(text: str) -> str:
    """XML text (GraphML) with DEL and the C1 controls written as character references (the
    same document), and what XML 1.0 cannot hold at all (other C0 controls, lone surrogates)
    escaped as :func:`terminal_safe` does."""
    return _XML.sub(_xml_escape, text)


#: what a terminal that cannot show casefile's glyphs gets instead (same meaning, in ASCII)
ASCII_GLYPHS = str.maketrans(
    {
        "█": "#",
        "·": ".",
        "⚠": "!",
        "⚑": "!",
        "✓": "+",
        "▲": "^",
        "▼": "v",
        "→": "->",
        "←": "<-",
        "—": "-",
        "–": "-",
        "│": "|",
        "…": "...",
        "×": "x",
    }
)


def is_unicode(encoding: str | None) -> bool:
    """Whether ``encoding`` can encode every character (UTF-8, -16 or -32)."""
    return (encoding or "").lower().replace("-", "").replace("_", "") in {
        "utf8",
        "utf8sig",
        "utf16",
        "utf32",
    }


def fit(text: str, stream: object) -> str:
    """``text`` as ``stream`` can encode it: unchanged on a UTF-8 stream; elsewhere (``LANG=C``,
    ``PYTHONIOENCODING=ascii``) casefile's glyphs become ASCII (:data:`ASCII_GLYPHS`) and any
    other character the encoding lacks becomes ``?``, so printing never raises."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None or is_unicode(encoding) or text.isascii():
        return text  # (no encoding: a StringIO, which holds any text)
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:  # an encoding Python does not know: ASCII is the safe subset
        encoding = "ascii"
    return text.translate(ASCII_GLYPHS).encode(encoding, "replace").decode(encoding)


def _json_unicode(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON writes an astral character as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def fit_json(text: str, stream: object) -> str:
    """JSON text as ``stream`` can encode it: on a stream that is not UTF-8 every non-ASCII
    character becomes its ``\\u`` escape (outside strings JSON text is ASCII, so each is inside
    a string), which decodes to the same value: JSON output stays exact on any terminal."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None or is_unicode(encoding) or text.isascii():
        return text
    return _NON_ASCII.sub(_json_unicode, text)


def say(
    text: str = "", *, file: TextIO | None = None, end: str = "\n", flush: bool = False
) -> None:
    """``print(terminal_safe(text))``, in colour where :mod:`casefile.cli.colour` says so and
    in the glyphs the stream can encode: how the CLI prints human-readable text."""
    from casefile.cli.colour import paint

    stream = sys.stdout if file is None else file
    print(fit(paint(terminal_safe(text), stream), stream), file=stream, end=end, flush=flush)


def say_json(text: str, *, end: str = "\n", flush: bool = False) -> None:
    """``print(json_safe(text))``: how the CLI prints JSON (never in colour); a document
    written in pieces is each piece with ``end=""``."""
    print(fit_json(json_safe(text), sys.stdout), end=end, flush=flush)
