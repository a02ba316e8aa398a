"""The digest each report file carries of its own text, so that ``report verify`` sees edits.

References (``seq@hash``) tie each claim to the case, but the words around them (the root
cause, a confidence, a lesson) are the report's own: editing them left every reference intact
and the report still verified. So every file casefile writes (Markdown, HTML, JSON, the chart)
ends with ``casefile-report-digest: sha256:<hex>``, the SHA-256 of the file's UTF-8 bytes with
those 64 hex digits left out (a digest cannot cover itself), and ``report verify`` recomputes
it: any change to the text fails, a changed line ending or an appended line too.

It is a checksum, not a signature: someone set on forging a report can compute a new one.
What it proves is that nobody changed the text by accident or in passing since casefile wrote
it. Redaction happens before rendering, so a redacted report carries the digest of its
redacted text and verifies like any other.
"""

from __future__ import annotations

import hashlib
import re

#: The name of the digest, written as the last thing in every report file.
MARK = "casefile-report-digest"
#: ``MARK: sha256:`` as Markdown, HTML and SVG write it, or ``"MARK": "sha256:`` in JSON.
_PLACE = re.compile(rf'{MARK}"?: "?sha256:')
_SEALED = re.compile(rf'{MARK}"?: "?sha256:([0-9a-f]{{64}})')


def unsealed() -> str:
    """What a renderer writes where the digest goes; :func:`seal` fills in the hex."""
    return f"{MARK}: sha256:"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match: the renderer writes its digest after everything from the case, so an
    imitation in a note comes earlier."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 (the loop only finds the last)
        pass
    return found


def seal(text: str) -> str:
    """``text`` with the digest filled in at its last :func:`unsealed` place."""
    place = _last(_PLACE, text)
    if place is None:
        raise ValueError(f"no {MARK} in the rendered report")
    end = place.end()
    return text[:end] + _sha256(text) + text[end:]


def problem(text: str) -> str | None:
    """Why ``text`` is not a report as casefile wrote it, or None when its digest matches."""
    found = _last(_SEALED, text)
    if found is None:
        return (
            f"no {MARK} line: the text cannot be checked (the line was removed, or the report "
            "was written by a casefile older than report digests; write it again)"
        )
    unsealed_text = text[: found.start(1)] + text[found.end(1) :]
    if _sha256(unsealed_text) != found.group(1):
        return (
            f"the text was changed after casefile wrote it: its {MARK} does not match "
            "(the references may all hold, but a claim, number or line around them differs)"
        )
    return None
