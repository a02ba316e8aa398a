"""The TUI's compact warning history gives, at every step, the rows (and their order) that a
full copy of the active warnings at each change gave, on generated cases and the reference
case, looked up in any order."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.app.views.board import BoardIndex
from casefile.app.views.warning_groups import WarningRow
from casefile.app.views.warning_history import CHECKPOINT_EVERY, WarningHistory, row_key
from casefile.domain.beliefs import project
from tests.app.view_cases import reference_case

Key = tuple[str, str | None, str | None]


class FullCopies:
    """The computation the history replaces: every active warning copied at each change."""

    def __init__(self) -> None:
        self.active: dict[Key, WarningRow] = {}
        self.changes: list[tuple[int, tuple[WarningRow, ...]]] = []

    def record(self, seq: int, cleared: Iterable[Key], raised: Iterable[WarningRow]) -> None:
        for key in cleared:
            self.active.pop(key, None)
        for row in raised:
            self.active[row_key(row)] = row
        self.changes.append((seq, tuple(self.active.values())))

    def at(self, seq: int) -> tuple[WarningRow, ...]:
        at = bisect_right(self.changes, seq, key=lambda change: change[0])
        return self.changes[at - 1][1] if at else ()


CODES = ("set-aside", "never-measured")
KEYS = [(code, q, s) for code in CODES for q in ("q1", "q2") for s in "ab"]

step_changes = st.tuples(
    st.integers(min_value=1, max_value=3),  # gap to the previous step that changed something
    st.lists(st.sampled_from(KEYS), max_size=3),  # cleared
    st.lists(st.sampled_from(KEYS), max_size=3),  # raised (re-raising an active one included)
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(step_changes, min_size=0, max_size=3 * CHECKPOINT_EVERY),
    st.randoms(use_true_random=False),
)
def test_every_step_holds_what_full_copies_held(
    changes: list[tuple[int, list[Key], list[Key]]], rng: object
) -> None:
    compact, full = WarningHistory(), FullCopies()
    seq = 0
    for gap, cleared, raised in changes:
        seq += gap
        rows = [WarningRow(code, f"{code} at {seq}", seq, q, s) for code, q, s in raised]
        compact.record(seq, cleared, rows)
        full.record(seq, cleared, rows)
    steps = list(range(0, seq + 2))
    rng.shuffle(steps)  # type: ignore[attr-defined]
    for at in steps + steps[:20]:  # again, so that the latest lookup's cache is read too
        assert compact.at(at) == full.at(at), at
    assert len(compact) == len(full.changes)


def test_the_reference_case_shows_the_same_warnings_at_every_step() -> None:
    events, _ = reference_case()
    projection = project(events)
    index = BoardIndex()
    index.extend(projection)
    full = FullCopies()
    for step in projection.trajectory:
        if step.raised or step.cleared:
            full.record(
                step.seq, (w.key for w in step.cleared), (WarningRow.of(w) for w in step.raised)
            )
    assert any(full.at(step.seq) for step in projection.trajectory)
    for step in reversed(projection.trajectory):
        assert index.warnings_at(step.seq) == full.at(step.seq)


def test_a_case_that_grows_keeps_its_history() -> None:
    """Extending the index with new steps continues from the active warnings held."""
    events, _ = reference_case()
    half = len(events) // 2
    whole = project(events)
    index = BoardIndex()
    index.extend(project(events[:half]))
    grown = project(events[:half])
    project(events[half:], into=grown)
    index.extend(grown)
    reference = BoardIndex()
    reference.extend(whole)
    for step in whole.trajectory:
        assert index.warnings_at(step.seq) == reference.warnings_at(step.seq)
