"""Warnings one by one, and grouped so that a long case stays readable.

A 100,000-event case holds over ten thousand set-aside records; a status screen lists one line
per group instead. Groups are keyed by code and question, and set-aside records also by the
rule that set the reading aside (each rule has its own reason): the number of groups is bounded
by the rules and questions of the case, not by its length.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from casefile.domain.beliefs.warnings import CaseWarning

#: How many of a group's most recent seqs a group keeps.
LATEST_SEQS = 3


@dataclass(frozen=True, slots=True)
class WarningRow:
    """One raised warning, as ``status --json`` lists it."""

    code: str
    message: str
    seq: int  # the event at which it was raised
    question: str | None
    subject: str | None

    @classmethod
    def of(cls, warning: CaseWarning) -> WarningRow:
        return cls(warning.code, warning.message, warning.seq, warning.question_id, warning.subject)

    @property
    def rule(self) -> str | None:
        """The rule that set a reading aside (set-aside subjects are ``<reading>:<rule>``)."""
        if self.code != "set-aside" or not self.subject or ":" not in self.subject:
            return None
        return self.subject.split(":", 1)[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "seq": self.seq,
            "question": self.question,
            "subject": self.subject,
        }


@dataclass(frozen=True, slots=True)
class WarningGroup:
    """Every warning of one kind: how many, since when, the latest seqs and one message.

    ``message`` is the warning's own when the group holds one; for several set-aside records
    it names the rule and its reason once; otherwise it is the latest warning's.
    """

    code: str
    question: str | None
    rule: str | None  # set-aside groups only
    count: int
    first_seq: int
    latest_seqs: tuple[int, ...]  # ascending, at most LATEST_SEQS
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "question": self.question,
            "rule": self.rule,
            "count": self.count,
            "first_seq": self.first_seq,
            "latest_seqs": list(self.latest_seqs),
            "message": self.message,
        }


def warning_rows(warnings: Iterable[CaseWarning]) -> tuple[WarningRow, ...]:
    return tuple(WarningRow.of(w) for w in warnings)


class _Tally:
    """A group being counted (mutable; frozen into a :class:`WarningGroup` at the end)."""

    __slots__ = ("count", "first", "last", "latest")

    def __init__(self, first: WarningRow) -> None:
        self.first = self.last = first
        self.count = 0
        self.latest: deque[int] = deque(maxlen=LATEST_SEQS)

    def add(self, row: WarningRow) -> None:
        self.last = row
        self.count += 1
        self.latest.append(row.seq)

    def group(self, reasons: Mapping[int, str]) -> WarningGroup:
        first, last = self.first, self.last
        message = last.message
        reason = reasons.get(last.seq)
        if self.count > 1 and first.rule is not None and reason is not None:
            message = f"readings set aside by rule {first.rule}: {reason}"
        return WarningGroup(
            first.code,
            first.question,
            first.rule,
            self.count,
            first.seq,
            tuple(self.latest),
            message,
        )


def group_warnings(
    rows: Iterable[WarningRow], reasons: Mapping[int, str] | None = None
) -> tuple[WarningGroup, ...]:
    """One group per (code, question, rule), in the order each kind was first raised; one pass
    (the sort is a no-op on a tracker's list, which is already in seq order).

    ``reasons`` maps the seq of a ``reading.set_aside`` event to its reason, so that a group of
    set-aside records can state the reason once instead of quoting one reading's message.
    """
    tallies: dict[tuple[str, str | None, str | None], _Tally] = {}
    for row in sorted(rows, key=lambda r: r.seq):
        key = (row.code, row.question, row.rule)
        tally = tallies.get(key)
        if tally is None:
            tally = tallies[key] = _Tally(row)
        tally.add(row)
    return tuple(tally.group(reasons or {}) for tally in tallies.values())
