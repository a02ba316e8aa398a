"""The shape of ids (cases, questions, hypotheses, evidence).

Ids appear in file names, DOT graphs, one-line listings and JSON keys, and ``/`` is reserved for
derived ids such as ``<question>/catch-all``: a plain id keeps all of them unambiguous.

The pattern is anchored with ``\\Z``, not ``$`` (which also matches before a trailing newline),
so ``ID_PATTERN.match`` and ``ID_PATTERN.fullmatch`` agree; use ``fullmatch``.
"""

from __future__ import annotations

import re

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*\Z")

CASE_ID_LIMIT = 100
"""The longest case id, in characters (ids are ASCII, so in bytes too)."""

CASE_ID_MAX_BYTES = 255
"""No file name may be longer; a case id names a directory and appears in file names."""


def is_plain_id(value: str, limit: int = 100) -> bool:
    return bool(ID_PATTERN.fullmatch(value)) and len(value) <= limit


def is_case_id(value: object) -> bool:
    """Whether the commands would accept ``value`` as a case id."""
    return (
        isinstance(value, str)
        and is_plain_id(value, CASE_ID_LIMIT)
        and len(value.encode("utf-8")) <= CASE_ID_MAX_BYTES
    )


#: A C0 or C1 control character, or DEL.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

#: The longest actor, in characters.
ACTOR_LIMIT = 255


def actor_problem(actor: object) -> str | None:
    """What is wrong with an actor (who did something), or None: the one rule the commands and
    import share. Actors are printed everywhere, so no control characters."""
    if not isinstance(actor, str) or not actor.strip():
        return "is empty"
    if _CONTROL.search(actor):
        return f"{actor!r} has control characters"
    if len(actor) > ACTOR_LIMIT:
        return f"is longer than {ACTOR_LIMIT} characters"
    return None
