"""Where folded things came from (event hashes), where a projection starts, and its steps."""

from __future__ import annotations

import pytest

from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs import warnings as warnings_module
from casefile.domain.beliefs.warnings import CaseWarning
from casefile.domain.events import GENESIS_HASH, NewEvent, seal
from casefile.errors import DomainError

from .test_fold_codec import reference_events


def test_an_empty_projection_starts_at_genesis() -> None:
    empty = Projection()
    assert (empty.base_seq, empty.base_hash) == (0, GENESIS_HASH)
    assert (empty.last_seq, empty.last_hash, empty.event_count) == (0, GENESIS_HASH, 0)
    assert empty.step_at(1) is None


def test_every_folded_record_keeps_the_hash_of_its_event() -> None:
    events = list(reference_events())
    p = project(events)
    by_seq = {e.seq: e for e in events}
    assert (p.last_seq, p.last_hash, p.event_count) == (len(events), events[-1].hash, len(events))
    assert p.evidence and all(s.hash == by_seq[s.seq].hash for s in p.evidence.values())
    assert p.set_asides and all(r["hash"] == by_seq[r["seq"]].hash for r in p.set_asides)
    runs = [e for e in events if e.type == "probe.ran"]
    observations = [e for e in events if e.type == "observation.recorded"]
    assert p.probe_run_hashes == {e.seq: e.hash for e in runs}
    assert p.observation_hashes == {e.seq: e.hash for e in observations}


def test_step_at_finds_every_step_and_nothing_else() -> None:
    events = list(reference_events())
    p = project(events)
    assert all(p.step_at(e.seq) is p.trajectory[e.seq - 1] for e in events)
    assert p.step_at(0) is None and p.step_at(len(events) + 1) is None


def test_step_at_searches_when_seqs_are_not_contiguous() -> None:
    """A hand-built stream may skip seqs; the lookup must not assume position = seq − 1."""
    news = [
        NewEvent("case.opened", {"title": "gaps"}),
        NewEvent("note.added", {"text": "a"}),
        NewEvent("note.added", {"text": "b"}),
    ]
    events = [
        seal("c", seq, GENESIS_HASH, new, "t") for seq, new in zip((1, 5, 9), news, strict=True)
    ]
    p = project(events)
    assert [p.step_at(s) is not None for s in range(11)] == [s in (1, 5, 9) for s in range(11)]
    step = p.step_at(5)
    assert step is not None and step.seq == 5


def test_adopt_takes_the_sealed_hashes_of_the_events_folded_last() -> None:
    events = list(reference_events())
    p = project(events[:-12])
    provisional = [
        seal(e.case_id, e.seq, "provisional", NewEvent(e.type, e.payload, e.actor), "")
        for e in events[-12:]
    ]
    project(provisional, into=p)
    assert p.last_hash != events[-1].hash
    p.adopt(events[-12:])
    full = project(events)
    assert p.events == full.events and p.last_hash == full.last_hash
    assert {e: s.hash for e, s in p.evidence.items()} == {
        e: s.hash for e, s in full.evidence.items()
    }
    assert p.set_asides == full.set_asides
    assert p.probe_run_hashes == full.probe_run_hashes
    assert p.observation_hashes == full.observation_hashes
    other = seal("c", events[-1].seq, "x", NewEvent("note.added", {"text": "other"}), "")
    with pytest.raises(DomainError, match="not the events folded last"):
        p.adopt([other])


def test_the_warning_class_no_longer_shadows_the_builtin() -> None:
    assert warnings_module.Warning is CaseWarning  # the old name, for modules not yet moved
    assert CaseWarning.__name__ == "CaseWarning"
    assert not issubclass(CaseWarning, Warning)  # the builtin
