"""``report verify``: every ``seq@hash`` a report cites must be an event of the case, with
that hash, and the report's digest of its own text must match. A report is checked as text,
whatever its format (and redacted or not: hashes are never redacted, and the digest is of the
redacted text), so an edited reference, a report of another case or one made from a history
since rewritten fails, naming the first reference the case does not hold; and so does an
edit that leaves the references alone (a root cause, a confidence), by the digest
(:mod:`casefile.report.digest`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from casefile.report import digest

#: ``seq@hash``: at least 12 hex digits of the hash, not part of a longer word.
REFERENCE = re.compile(r"(?<![\w@.])(\d+)@([0-9a-f]{12,64})(?![0-9A-Za-z])")


@dataclass(frozen=True)
class Checked:
    references: int  # distinct references found
    problem: str | None  # the first reference the case does not hold, or the digest's problem


def references(text: str) -> list[tuple[int, str]]:
    """The distinct references in ``text``, in order of first appearance."""
    seen: dict[tuple[int, str], None] = {}
    for match in REFERENCE.finditer(text):
        seen.setdefault((int(match.group(1)), match.group(2)), None)
    return list(seen)


def check(text: str, hashes: Sequence[str], case_id: str) -> Checked:
    """``text``'s references against ``hashes`` (event ``n``'s hash at ``n - 1``), then its
    digest."""
    found = references(text)
    if not found:
        return Checked(0, "no seq@hash reference in the report: nothing to check")
    for seq, digits in found:
        label = f"{seq}@{digits}"
        if not 1 <= seq <= len(hashes):
            return Checked(len(found), f"{label}: case {case_id} has no event {seq}")
        actual = hashes[seq - 1]
        if not actual.startswith(digits):
            return Checked(
                len(found), f"{label}: event {seq} of case {case_id} has hash {actual[:12]}…"
            )
    return Checked(len(found), digest.problem(text))
