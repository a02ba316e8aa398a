"""The active warnings counted by kind: one tally per (code, question, rule).

A long case holds tens of thousands of active warnings, nearly all of them set-aside readings;
a status lists one line per kind instead. A kind is the warning's code and question, and for a
set-aside reading also the rule that set it aside (each rule has its own reason), so the
number of tallies is bounded by the rules and questions of a case, not by its length.

Warnings are taken in seq order (ties in the order they were raised); a tally keeps the first
and the last of its kind, how many there are and the latest seqs. :func:`tally` counts
warnings at hand; a tracker restored from a saved fold counts its set-aside readings from
their records without building a warning for each (see
:meth:`~casefile.domain.beliefs.warnings.WarningTracker.tallies`), to the same result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any, cast

from casefile.domain.beliefs.warnings import (
    CaseWarning,
    Written,
    set_aside_rule,
    set_aside_warning,
    without,
)

#: How many of a kind's most recent seqs a tally keeps.
LATEST_SEQS = 3

TallyKey = tuple[str, str | None, str | None]

_SEQ = itemgetter("seq")
_RULE = itemgetter("rule")
_ID = itemgetter("id")


@dataclass(frozen=True, slots=True)
class WarningTally:
    """Every active warning of one kind."""

    code: str
    question_id: str | None
    rule: str | None  # set-aside readings only
    count: int
    first: CaseWarning
    last: CaseWarning
    latest_seqs: tuple[int, ...]  # ascending, at most LATEST_SEQS


def key_of(warning: CaseWarning) -> TallyKey:
    return (warning.code, warning.question_id, set_aside_rule(warning.code, warning.subject))


def tally(warnings: Iterable[CaseWarning]) -> list[WarningTally]:
    """The tallies of ``warnings`` (in the order given, which ties in seq keep), in the order
    each kind first appears in seq order."""
    ordered = sorted(warnings, key=lambda w: (w.seq, w.code))
    members: dict[TallyKey, list[CaseWarning]] = {}
    for warning in ordered:
        key = key_of(warning)
        found = members.get(key)
        if found is None:
            members[key] = [warning]
        else:
            found.append(warning)
    return [
        WarningTally(
            *key,
            len(group),
            group[0],
            group[-1],
            tuple(w.seq for w in group[-LATEST_SEQS:]),
        )
        for key, group in members.items()
    ]


def tally_saved(
    entries: Sequence[int | CaseWarning],
    records: list[dict[str, Any]],
    written: Written | None = None,
) -> list[WarningTally]:
    """:func:`tally` of the warnings ``entries`` describe, in raised order: a warning, or the
    position in ``records`` of the set-aside record whose warning
    (:func:`~casefile.domain.beliefs.warnings.set_aside_warning`) it is. Only the first and
    last warning of each kind are built; the positions (tens of thousands on a long case) are
    sorted into kinds by their records' rules at C speed."""
    if written is None:
        written = {k: e for k, e in enumerate(entries) if isinstance(e, CaseWarning)}
    raised_at: Sequence[int] = range(len(entries))
    positions = cast("list[int]", entries)
    if written:
        raised_at = without(list(raised_at), written)
        positions = without(list(entries), written)
    named = list(map(records.__getitem__, positions))
    rules = list(map(_ID, map(_RULE, named)))
    seq_of = list(map(_SEQ, named))
    # per kind: its members' seqs and raised indices, in raised order
    kinds: dict[TallyKey, tuple[list[int], list[int]]] = {}
    for rule, run in groupby(sorted(range(len(rules)), key=rules.__getitem__), rules.__getitem__):
        members = list(run)  # a stable sort: raised order within the rule
        kinds[("set-aside", None, rule)] = (
            list(map(seq_of.__getitem__, members)),
            list(map(raised_at.__getitem__, members)),
        )
    for k, warning in written.items():
        seqs, raised = kinds.setdefault(key_of(warning), ([], []))
        seqs.append(warning.seq)
        raised.append(k)

    def warning_at(index: int) -> CaseWarning:
        entry = entries[index]
        if isinstance(entry, CaseWarning):
            return entry
        return set_aside_warning(records[entry]["seq"], records[entry])

    tallies = []
    for key, (seqs, raised) in kinds.items():
        if raised != sorted(raised):  # a written warning among records of its kind
            pairs = sorted(zip(raised, seqs, strict=True))
            raised, seqs = [r for r, _ in pairs], [s for _, s in pairs]
        order: Sequence[int] = range(len(seqs))
        if seqs != sorted(seqs):  # a stable sort: ties stay in raised order
            order = sorted(order, key=seqs.__getitem__)
        first, last = order[0], order[-1]
        tallies.append(
            (
                (seqs[first], key[0], raised[first]),
                WarningTally(
                    *key,
                    len(seqs),
                    warning_at(raised[first]),
                    warning_at(raised[last]),
                    tuple(seqs[k] for k in order[-LATEST_SEQS:]),
                ),
            )
        )
    tallies.sort(key=_first_key)
    return [t for _, t in tallies]


def _first_key(item: tuple[tuple[int, str, int], WarningTally]) -> tuple[int, str, int]:
    return item[0]
