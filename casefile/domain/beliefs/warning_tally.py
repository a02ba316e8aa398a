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
from typing import Any

from casefile.domain.beliefs.warnings import CaseWarning, set_aside_rule, set_aside_warning

#: How many of a kind's most recent seqs a tally keeps.
LATEST_SEQS = 3

TallyKey = tuple[str, str | None, str | None]


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
    entries: Sequence[int | CaseWarning], records: list[dict[str, Any]]
) -> list[WarningTally]:
    """:func:`tally` of the warnings ``entries`` describe, in raised order: a warning, or the
    position in ``records`` of the set-aside record whose warning
    (:func:`~casefile.domain.beliefs.warnings.set_aside_warning`) it is. Only the first and
    last warning of each kind are built."""
    # per kind: the seqs and raised positions of its members, in raised order
    seqs: dict[TallyKey, list[int]] = {}
    raised: dict[TallyKey, list[int]] = {}
    built: dict[int, CaseWarning] = {}
    for index, entry in enumerate(entries):
        if isinstance(entry, CaseWarning):
            key, seq = key_of(entry), entry.seq
            built[index] = entry
        else:
            record = records[entry]
            key = ("set-aside", None, record["rule"]["id"])
            seq = record["seq"]
        found = seqs.get(key)
        if found is None:
            seqs[key] = [seq]
            raised[key] = [index]
        else:
            found.append(seq)
            raised[key].append(index)

    def warning_at(index: int) -> CaseWarning:
        found = built.get(index)
        if found is not None:
            return found
        position = entries[index]
        assert isinstance(position, int)
        return set_aside_warning(records[position]["seq"], records[position])

    tallies = []
    for key, kind_seqs in seqs.items():
        order: Sequence[int] = range(len(kind_seqs))
        if kind_seqs != sorted(kind_seqs):  # a stable sort: ties stay in raised order
            order = sorted(order, key=kind_seqs.__getitem__)
        first, last = order[0], order[-1]
        positions = raised[key]
        tallies.append(
            (
                (kind_seqs[first], key[0], positions[first]),
                WarningTally(
                    *key,
                    len(kind_seqs),
                    warning_at(positions[first]),
                    warning_at(positions[last]),
                    tuple(kind_seqs[k] for k in order[-LATEST_SEQS:]),
                ),
            )
        )
    tallies.sort(key=_first_key)
    return [t for _, t in tallies]


def _first_key(item: tuple[tuple[int, str, int], WarningTally]) -> tuple[int, str, int]:
    return item[0]
