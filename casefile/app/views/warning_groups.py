"""Warnings one by one, and grouped so that a long case stays readable.

A 100,000-event case holds over ten thousand set-aside records; a status screen lists one line
per group instead. Groups are keyed by code and question, and set-aside records also by the
rule that set the reading aside (each rule has its own reason): the number of groups is bounded
by the rules and questions of the case, not by its length.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from casefile.domain.beliefs.warning_tally import LATEST_SEQS as LATEST_SEQS
from casefile.domain.beliefs.warning_tally import WarningTally
from casefile.domain.beliefs.warnings import CaseWarning, set_aside_rule


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
        return set_aside_rule(self.code, self.subject)

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


class LazyWarningRows(Sequence[WarningRow]):
    """The rows of ``source()``'s warnings, built when first read: a long case holds tens of
    thousands, and a status printed as text shows only their groups. Equal to any sequence of
    the same rows."""

    __slots__ = ("_rows", "_source")

    def __init__(self, source: Callable[[], Iterable[CaseWarning]]) -> None:
        self._source: Callable[[], Iterable[CaseWarning]] | None = source
        self._rows: tuple[WarningRow, ...] = ()

    def rows(self) -> tuple[WarningRow, ...]:
        if self._source is not None:
            self._rows = warning_rows(self._source())
            self._source = None
        return self._rows

    @overload
    def __getitem__(self, index: int) -> WarningRow: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[WarningRow, ...]: ...

    def __getitem__(self, index: int | slice) -> WarningRow | tuple[WarningRow, ...]:
        return self.rows()[index]

    def __len__(self) -> int:
        return len(self.rows())

    def __iter__(self) -> Iterator[WarningRow]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyWarningRows):
            other = other.rows()
        return isinstance(other, Sequence) and self.rows() == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyWarningRows({self.rows()!r})"


def group_warnings(
    tallies: Iterable[WarningTally], reasons: Mapping[int, str] | None = None
) -> tuple[WarningGroup, ...]:
    """One group per tally (the domain counts the active warnings by code, question and rule:
    see :mod:`~casefile.domain.beliefs.warning_tally`).

    ``reasons`` maps the seq of a ``reading.set_aside`` event to its reason, so that a group of
    set-aside records can state the reason once instead of quoting one reading's message.
    """
    groups = []
    for tally in tallies:
        first, last = tally.first, tally.last
        message = last.message
        reason = (reasons or {}).get(last.seq)
        if tally.count > 1 and tally.rule is not None and reason is not None:
            message = f"readings set aside by rule {tally.rule}: {reason}"
        groups.append(
            WarningGroup(
                tally.code,
                tally.question_id,
                tally.rule,
                tally.count,
                first.seq,
                tally.latest_seqs,
                message,
            )
        )
    return tuple(groups)
