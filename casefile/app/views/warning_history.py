"""Which warnings were active after each step of a case, kept compactly.

A long case raises and clears warnings all the time (a 100,000-event case: about 14,000 steps
that change them, thousands active at once). Holding the whole active list at every such step
costs the number of steps times the number active; this keeps, per step that changed them, only
what changed (the keys cleared, the rows raised), and a full copy of the active list once every
:data:`CHECKPOINT_EVERY` changes. The warnings active at any step are the checkpoint before it
with at most that many changes applied: the same rows, in the same order, as a list rebuilt at
every change would hold.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from casefile.app.views.warning_groups import WarningRow

#: A full copy of the active warnings is kept once every this many changes.
CHECKPOINT_EVERY = 128

Key = tuple[str, str | None, str | None]


def row_key(row: WarningRow) -> Key:
    return (row.code, row.question, row.subject)


class WarningHistory:
    """The active warnings after every step, recorded step by step in seq order."""

    __slots__ = ("_active", "_changes", "_checkpoints", "_last", "_seqs")

    def __init__(self) -> None:
        self._seqs: list[int] = []  # the steps that raised or cleared a warning
        #: per such step: the keys it cleared, then the rows it raised (applied in that order)
        self._changes: list[tuple[tuple[Key, ...], tuple[WarningRow, ...]]] = []
        #: the active rows right after change number ``i * CHECKPOINT_EVERY``
        self._checkpoints: list[tuple[WarningRow, ...]] = []
        self._active: dict[Key, WarningRow] = {}  # after the newest step recorded
        self._last: tuple[int, tuple[WarningRow, ...]] | None = None  # the latest lookup

    def __len__(self) -> int:
        return len(self._seqs)

    @property
    def seqs(self) -> list[int]:
        """The steps that raised or cleared a warning, ascending."""
        return self._seqs

    def record(self, seq: int, cleared: Iterable[Key], raised: Iterable[WarningRow]) -> None:
        """Step ``seq`` cleared the warnings keyed ``cleared``, then raised ``raised``."""
        gone = tuple(cleared)
        new = tuple(raised)
        _apply(self._active, gone, new)
        if len(self._changes) % CHECKPOINT_EVERY == 0:
            self._checkpoints.append(tuple(self._active.values()))
        self._seqs.append(seq)
        self._changes.append((gone, new))

    def at(self, seq: int) -> tuple[WarningRow, ...]:
        """The warnings active right after step ``seq``, oldest raised first."""
        change = bisect_right(self._seqs, seq) - 1
        if change < 0:
            return ()
        if self._last is not None and self._last[0] == change:
            return self._last[1]
        if change == len(self._changes) - 1:
            rows = tuple(self._active.values())
        else:
            base = change // CHECKPOINT_EVERY
            active = {row_key(row): row for row in self._checkpoints[base]}
            for gone, new in self._changes[base * CHECKPOINT_EVERY + 1 : change + 1]:
                _apply(active, gone, new)
            rows = tuple(active.values())
        self._last = (change, rows)
        return rows


def _apply(
    active: dict[Key, WarningRow], gone: tuple[Key, ...], new: tuple[WarningRow, ...]
) -> None:
    for key in gone:
        active.pop(key, None)
    for row in new:
        active[row_key(row)] = row
