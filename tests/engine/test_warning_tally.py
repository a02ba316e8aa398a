"""Active warnings counted by kind, and a restored tracker that builds its warnings only when
they are read: the tallies of the saved form are those of the warnings built one by one, and
the tracker behaves, once read or changed, as one given every warning up front."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.domain.beliefs import warnings as warnings_module
from casefile.domain.beliefs.warning_tally import tally, tally_saved
from casefile.domain.beliefs.warnings import CaseWarning, WarningTracker, set_aside_warning

RULES = ("sm-busy", "pcie-link-busy", "clock:reasons")  # a colon inside a rule id, too


def record(seq: int, reading: int, rule: str) -> dict[str, Any]:
    return {
        "observation_seq": reading,
        "reason": f"taken at idle ({rule})",
        "rule": {"id": rule, "version": 2},
        "seq": seq,
        "hash": "ab" * 32,
    }


@st.composite
def saved_warnings(draw: Any) -> tuple[list[int | CaseWarning], list[dict[str, Any]]]:
    """Set-aside records (seqs out of order and repeated across rules), and the saved form of
    an active list: positions of some records, interleaved with warnings written in full."""
    count = draw(st.integers(0, 25))
    records = [
        record(draw(st.integers(1, 40)), reading, draw(st.sampled_from(RULES)))
        for reading in range(count)
    ]
    positions = draw(st.permutations(range(count)))
    entries: list[int | CaseWarning] = list(positions[: draw(st.integers(0, count))])
    for _ in range(draw(st.integers(0, 6))):
        code = draw(
            st.sampled_from(["never-measured", "catch-all-rising", "unparsed", "set-aside"])
        )
        seq = draw(st.integers(1, 40))
        question = None if code in ("unparsed", "set-aside") else draw(st.sampled_from("qr"))
        subject = {"unparsed": f"obs:{seq}", "set-aside": f"{900 + seq}:{RULES[seq % 3]}"}.get(code)
        entries.insert(
            draw(st.integers(0, len(entries))),
            CaseWarning(code, f"{code} at {seq}", seq, question, subject),
        )
    return entries, records


def built(entries: list[int | CaseWarning], records: list[dict[str, Any]]) -> list[CaseWarning]:
    return [
        e if isinstance(e, CaseWarning) else set_aside_warning(records[e]["seq"], records[e])
        for e in entries
    ]


@settings(max_examples=300, deadline=None)
@given(saved_warnings())
def test_the_tallies_of_saved_warnings_are_those_of_the_warnings_built(
    saved: tuple[list[int | CaseWarning], list[dict[str, Any]]],
) -> None:
    entries, records = saved
    assert tally_saved(entries, records) == tally(built(entries, records))


def test_a_tally_keeps_the_first_and_last_of_each_kind_and_the_latest_seqs() -> None:
    records = [record(seq, seq - 1, "sm-busy") for seq in (5, 9, 7, 11, 3)]
    never = CaseWarning("never-measured", "leads on reported evidence only", 4, "q", "h")
    (first, second) = tally_saved([0, 1, never, 2, 3, 4], records)
    assert (first.code, first.rule, first.count) == ("set-aside", "sm-busy", 5)
    assert (first.first.seq, first.last.seq, first.latest_seqs) == (3, 11, (7, 9, 11))
    assert first.last == set_aside_warning(11, records[3])
    assert (second.code, second.question_id, second.count, second.first) == (
        "never-measured",
        "q",
        1,
        never,
    )


def test_a_restored_tracker_counts_its_warnings_without_building_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = [record(10 + k, k, RULES[k % 2]) for k in range(50)]
    tracker = WarningTracker.restored_lazily(list(range(50)), records, {}, {})
    made: list[int] = []
    real = warnings_module.set_aside_warning

    def spy(seq: int, payload: dict[str, Any]) -> CaseWarning:
        made.append(seq)
        return real(seq, payload)

    monkeypatch.setattr(warnings_module, "set_aside_warning", spy)
    monkeypatch.setattr("casefile.domain.beliefs.warning_tally.set_aside_warning", spy)
    tallies = tracker.tallies()
    assert [t.count for t in tallies] == [25, 25]
    assert len(made) == 4  # the first and last of each kind
    assert tracker.saved_entries() == list(range(50))
    deferred = tracker.all_deferred()
    assert len(made) == 4
    assert len(tracker.active) == 50 and tracker.saved_entries() is None  # built on reading
    assert deferred() == tracker.all()


@settings(max_examples=100, deadline=None)
@given(saved_warnings())
def test_a_restored_tracker_once_read_is_the_tracker_given_every_warning(
    saved: tuple[list[int | CaseWarning], list[dict[str, Any]]],
) -> None:
    entries, records = saved
    kept: list[int | CaseWarning] = []
    warnings: dict[Any, CaseWarning] = {}
    for entry, warning in zip(entries, built(entries, records), strict=True):
        if warning.key not in warnings:  # a saved fold holds one warning per key
            warnings[warning.key] = warning
            kept.append(entry)
    eager = WarningTracker.restored(list(warnings.values()), {"q": ("h", True)}, {"q": True})
    lazy = WarningTracker.restored_lazily(kept, records, {"q": ("h", True)}, {"q": True})
    assert lazy.all_deferred()() == eager.all()
    assert lazy == eager
    assert lazy._slots == eager._slots


def test_clearing_a_state_warning_of_a_restored_tracker_builds_it_first() -> None:
    never = CaseWarning("catch-all-rising", "something not yet named is at 40 %", 3, "q")
    records = [record(5, 4, "sm-busy")]
    tracker = WarningTracker.restored_lazily([never, 0], records, {}, {"q": True})
    tracker.begin_step()
    tracker._clear("catch-all-rising", "q")  # what a fold does when the catch-all falls back
    raised, cleared = tracker.end_step()
    assert cleared == (never,) and raised == ()
    assert list(tracker.active.values()) == [set_aside_warning(5, records[0])]
