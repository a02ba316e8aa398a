"""Which way an A/B between two versions runs, and so what a slowdown under it says.

A version rule's own A/B goes back: "rerun on the previous version", the variant on the version
from before the trouble, so "faster" blames the version the case is slow on. Where the case
says the trouble began after an upgrade, people also write the A/B the way the trouble
happened, "Ollama 0.6.8 -> 0.7.0", the variant on the new and slow version: there a slowdown is
the regression itself (the first version of the rule read it as evidence against one). Where
the case says nothing changed, or says nothing, a newer version that is slower still says only
that the current one is the better (a review's finding), so the reading is left as it is.

What counts as going back, in this order: words that say the change itself goes back (a
rollback, a downgrade, a revert, "back to", "prior", "undo the update", "last known good"; not
"slower than before", and not when negated); versions that fall from the before side of an
arrow to the after side (the last version before the arrow against the first after it, so "on 8
GPUs: torch 2.1 -> 2.2" compares 2.1 with 2.2), dotted numbers, llama.cpp's build numbers
(``b2600``), CUDA tags (``cu121``) and dates alike, each against its own kind; and a named
newest line (nightly, main, master) left for a release or stable one. Words that say it goes
forward ("upgrade", "update", "newer", or the other way round for those lines) make it forward;
an "older", "earlier" or "previous" version where no word says forward makes it back; anything
else is unknown, and an unknown order is read as people write one, oldest first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from casefile.domain.change_arrow import sides

__all__ = ["Direction", "direction"]

Direction = Literal["back", "forward", "unknown"]

#: words that say the change itself goes back, unless negated ("no rollback")
_BACK = re.compile(
    r"(?i)(?<!\bno )(?<!\bnot )(?<!\bwithout )\b(?:downgrad\w*|roll(?:ed|ing|s)?[\s-]?back|"
    r"revert\w*|(?:went|go|going|gone|moved?|switched) back|back to|prior|undo\w*|undid|"
    r"last (?:known )?good)\b"
)
#: words that say the variant is the earlier version where nothing says the change goes
#: forward ("try an older version of the driver"; not "upgraded from the previous release")
_EARLIER = re.compile(r"(?i)(?<!\bno )(?<!\bnot )\b(?:older|earlier|previous)\b")
#: words that say it goes forward
_FORWARD = re.compile(r"(?i)\b(?:upgrad\w*|updat\w*|newer|bump\w*)\b")
#: a version-like token: a date, llama.cpp's build number, a CUDA tag, or a number (dotted or
#: not) standing alone
_TOKEN = re.compile(
    r"(?i)(?<![\w.])(?:(\d{4})-(\d{2})-(\d{2})|b(\d{3,5})|cu(\d{2,3})|v?(\d+(?:\.\d+)*))(?![\w.]*\w)"
)
#: development lines newer than any release, and release lines
_NEWEST = re.compile(r"(?i)\b(?:nightly|main|master|head|dev|trunk|latest)\b")
_RELEASE = re.compile(r"(?i)\b(?:stable|release[\w.-]*|lts)\b")


def direction(readings: Iterable[str]) -> Direction:
    """Whether a change, in each of its readings (as written and in its normal forms), says its
    variant is an earlier version than its baseline, a later one, or neither."""
    texts = [" ".join(text.split()) for text in readings]
    for check in (_words, _numbers, _lines):
        for text in texts:
            found = check(text)
            if found != "unknown":
                return found
    return "unknown"


def _words(text: str) -> Direction:
    if _BACK.search(text):
        return "back"
    if _FORWARD.search(text):
        return "forward"
    return "back" if _EARLIER.search(text) else "unknown"


def _numbers(text: str) -> Direction:
    split = sides(text)
    if split is None:
        return "unknown"
    after = [_value(m) for m in _TOKEN.finditer(split[1])]
    if not after:
        return "unknown"
    kind, new = after[0]
    # the version nearest the arrow on the before side, of the same kind as the first after it
    # ("torch 2.1.2+cu118 -> 2.2.0+cu121": 2.1.2 against 2.2.0)
    before = [value for k, value in map(_value, _TOKEN.finditer(split[0])) if k == kind]
    if not before:
        return "unknown"  # nothing to compare, or a date against a number
    old = before[-1]
    if old == new:
        return "unknown"
    return "back" if new < old else "forward"


def _value(match: re.Match[str]) -> tuple[str, tuple[int, ...]]:
    """A token's kind and value: dates, build numbers and CUDA tags each compare only with
    their own kind."""
    year, month, day, build, cuda, number = match.groups()
    if year is not None:
        return "date", (int(year), int(month), int(day))
    if build is not None:
        return "build", (int(build),)
    if cuda is not None:
        return "cuda", (int(cuda),)
    return "number", tuple(int(part) for part in number.split("."))


def _lines(text: str) -> Direction:
    split = sides(text)
    if split is None:
        return "unknown"
    before, after = split
    if _NEWEST.search(before) and _RELEASE.search(after):
        return "back"
    if _RELEASE.search(before) and _NEWEST.search(after):
        return "forward"
    return "unknown"
