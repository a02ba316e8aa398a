"""Which way an A/B between two versions runs, and what its outcome then says.

A version rule's own A/B goes back: "rerun on the previous version", the variant on the version
from before the trouble, so "faster" blames the version the case is slow on. People also write
the A/B the way the trouble happened, "Ollama 0.6.8 -> 0.7.0", the variant on the new and slow
version: there a slowdown is the regression itself (the first version of the rule read it as
evidence against one). And an upgrade that fixes the trouble ("driver 536 -> 546", faster)
blames the version it left just as a rollback does. So only a change that says it goes back,
in words or by version numbers that fall, is read as the rule's own A/B; any other version
change shows by a difference either way that the version decides the speed, and a slowdown
there reads as the rule's "faster".
"""

from __future__ import annotations

import re

__all__ = ["goes_back"]

#: words that say the variant is an earlier version than the baseline
_BACK_WORDS = re.compile(
    r"(?i)\b(?:downgrad\w*|roll(?:ed|ing|s)?[\s-]?back|revert\w*|before|previous|older|earlier)\b"
)
_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")
#: a version number: digits, dotted or not, standing alone (not a commit's hex, not "cu12")
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)*)(?![\w])")


def goes_back(change: str) -> bool:
    """Whether ``change`` says its variant is an earlier version than its baseline: a word
    (rollback, downgrade, revert, "before", "previous") or, written ``BEFORE -> AFTER``, a
    first version number on the after side lower than the one on the before side."""
    if _BACK_WORDS.search(change):
        return True
    sides = _ARROW.split(" ".join(change.split()), maxsplit=1)
    if len(sides) != 2:
        return False
    before, after = (_first_version(side) for side in sides)
    return before is not None and after is not None and after < before


def _first_version(text: str) -> tuple[int, ...] | None:
    found = _VERSION.search(text)
    return None if found is None else tuple(int(part) for part in found.group(1).split("."))
