"""A saved fold restores to a projection that shows and continues exactly like the full fold.

The promise: ``project(events[k:], into=restore_fold(dump_fold(project(events[:k]))))`` is the
full fold of ``events`` in everything but the history it leaves out (events, trajectory before
``k``, facts and run payloads), for every cut ``k``. Numbers are compared with ``==``.
"""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.fold_codec import (
    ENGINE_VERSION,
    OBSERVATION_KEYS,
    PROBE_RUN_KEYS,
    FoldUnreadable,
    dump_fold,
    restore_fold,
)
from casefile.domain.beliefs.ranking import Candidate, rank_next_steps, rank_probes
from casefile.domain.beliefs.scoring import contributions, decisive_at
from casefile.domain.events import GENESIS_HASH, Event
from casefile.errors import DomainError

from .streams import candidates_for, streams

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@cache
def reference_events() -> tuple[Event, ...]:
    from casefile.store.casedir import read_case_dir

    events, _ = read_case_dir(REFERENCE)
    return tuple(events)


def reference_candidates() -> list[Candidate]:
    from casefile_gpu_playbook import PLAYBOOK_V1 as PLAYBOOK

    return [Candidate(name, rule) for rule in PLAYBOOK.rules for name in rule.probes]


def continued(events: list[Event], cut: int) -> Projection:
    """Fold up to ``cut``, save, restore, and fold the rest into the restored state."""
    restored = restore_fold(dump_fold(project(events[:cut])))
    return project(events[cut:], into=restored)


def stub(record: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: record[k] for k in keys if record.get(k) is not None}


def graph_data(p: Projection) -> tuple[list[Any], list[Any]]:
    graph = p.graph
    return sorted(graph.nodes(data=True), key=repr), sorted(
        graph.edges(keys=True, data=True), key=repr
    )


def assert_same(a: Projection, full: Projection, cut: int, candidates: list[Candidate]) -> None:
    """``a`` (restored at ``cut`` and continued) against ``full``, everything a view reads."""
    assert (a.case_id, a.title, a.symptom, a.concluded) == (
        full.case_id,
        full.title,
        full.symptom,
        full.concluded,
    )
    assert (a.last_seq, a.last_hash, a.event_count) == (
        full.last_seq,
        full.last_hash,
        full.last_seq,
    )
    assert a.base_seq == cut and a.events == full.events[cut:]
    assert list(a.hypothesis_question.items()) == list(full.hypothesis_question.items())
    assert list(a.questions) == list(full.questions)
    for qid, question in full.questions.items():
        mine = a.questions[qid]
        assert mine.leader() == question.leader()
        assert mine.confidences == question.confidences  # bit for bit
        assert mine.snapshot().weights == question.snapshot().weights
        assert mine.snapshot().total == question.snapshot().total
        assert mine.leading_leaf() == question.leading_leaf()
        assert mine.leaf_distribution == question.leaf_distribution
        assert mine.node_sums == question.node_sums
        assert (mine.evidence_count, mine.support) == (question.evidence_count, question.support)
        assert (mine.text, mine.playbook, mine.proposed_seq, mine.top) == (
            question.text,
            question.playbook,
            question.proposed_seq,
            question.top,
        )
        assert mine.catch_all_reserve == question.catch_all_reserve
        assert mine.catch_all_prior() == question.catch_all_prior()
        assert mine.nodes == question.nodes  # text, meaning, retired, reason, children …
        assert a.snapshots[qid] == full.snapshots[qid]
    assert list(a.evidence) == list(full.evidence)
    for eid, state in full.evidence.items():
        mine_state = a.evidence[eid]
        for name in (
            "id",
            "seq",
            "question_id",
            "likelihoods",
            "otherwise",
            "kind",
            "reliability",
            "superseded_by",
            "supports",
            "hash",
            "rationale",
            "rule",
            "outcome",
            "statistic",
            "observation_seq",
            "probe_run_seq",
            "supersedes",
            "active",
        ):
            assert getattr(mine_state, name) == getattr(state, name), (eid, name)
        assert mine_state.payload == {"question_id": state.question_id, **state.payload}
        if state.seq <= cut:
            assert mine_state.effect is None and mine_state.surprise_bits is None
        else:
            assert mine_state.surprise_bits == state.surprise_bits
    assert a.warnings.all() == full.warnings.all()
    assert a.warnings.saved_state() == full.warnings.saved_state()
    assert a.set_asides == full.set_asides
    assert a.trajectory == full.trajectory[cut:]  # snapshots, pivots, raised and cleared
    for seq, record in full.probe_runs.items():
        assert stub(a.probe_runs[seq], PROBE_RUN_KEYS) == stub(record, PROBE_RUN_KEYS)
    for seq, record in full.observations.items():
        assert stub(a.observations[seq], OBSERVATION_KEYS) == stub(record, OBSERVATION_KEYS)
    assert list(a.probe_runs) == list(full.probe_runs)
    assert list(a.observations) == list(full.observations)
    assert a.probe_run_hashes == full.probe_run_hashes
    assert a.observation_hashes == full.observation_hashes
    assert graph_data(a) == graph_data(full)
    assert rank_next_steps(a, candidates) == rank_next_steps(full, candidates)
    assert rank_probes(a, candidates) == rank_probes(full, candidates)
    assert decisive_at(a) == decisive_at(full)
    for hid in list(full.hypothesis_question)[:3]:
        assert contributions(a, hid) == contributions(full, hid)
    assert dump_fold(a) == dump_fold(full)  # the strongest check: the same bytes


# --- continuing a restored fold ---------------------------------------------------------------


@SETTINGS
@given(events=streams())
def test_restoring_at_every_cut_and_continuing_equals_the_full_fold(events: list[Event]) -> None:
    full = project(events)
    candidates = candidates_for(events)
    for cut in range(len(events) + 1):
        assert_same(continued(events, cut), full, cut, candidates)


def test_the_reference_case_restored_at_every_seq_continues_exactly() -> None:
    events = list(reference_events())
    full = project(events)
    candidates = reference_candidates()
    for cut in range(len(events) + 1):
        assert_same(continued(events, cut), full, cut, candidates)


def test_a_restored_fold_restores_to_the_same_bytes_and_dump_is_deterministic() -> None:
    events = list(reference_events())
    data = dump_fold(project(events))
    assert dump_fold(project(events)) == data  # a fresh fold of the same events
    restored = restore_fold(data)
    assert dump_fold(restored) == data
    assert dump_fold(restored) == dump_fold(restored)
    # restoring reads nothing it would need later from the bytes
    assert restore_fold(bytearray(data)).confidences() == restored.confidences()


def test_a_restored_projection_holds_no_history_and_knows_where_it_starts() -> None:
    events = list(reference_events())
    cut = 40
    restored = restore_fold(dump_fold(project(events[:cut])))
    assert restored.events == [] and restored.trajectory == []
    assert (restored.base_seq, restored.last_seq, restored.event_count) == (cut, cut, cut)
    assert restored.base_hash == restored.last_hash == events[cut - 1].hash
    assert restored.step_at(cut) is None and restored.step_at(1) is None
    project(events[cut:], into=restored)
    step = restored.step_at(cut + 1)
    assert step is not None and step.seq == cut + 1
    assert restored.step_at(cut) is None
    # facts are gone, the keys views read are there
    before = [record for seq, record in restored.observations.items() if seq <= cut]
    after = [record for seq, record in restored.observations.items() if seq > cut]
    assert before and all("facts" not in record for record in before)
    assert after and all("facts" in record for record in after)
    first_run = min(s for s in restored.probe_runs if s <= cut)
    assert "started_at" in events[first_run - 1].payload
    assert "started_at" not in restored.probe_runs[first_run]


def test_an_empty_projection_round_trips() -> None:
    empty = restore_fold(dump_fold(Projection()))
    assert (empty.last_seq, empty.last_hash, empty.questions) == (0, GENESIS_HASH, {})


def test_evidence_from_a_restored_fold_can_be_superseded_and_assessed_against() -> None:
    """The commands' checks (known runs and readings, supersedable evidence) still hold."""
    from casefile.domain import commands

    events = list(reference_events())
    full = project(events)
    restored = restore_fold(dump_fold(full))
    observation = max(full.observations)
    run = full.observations[observation]["probe_run_seq"]
    live = next(e for e in reversed(full.evidence.values()) if e.active)
    for p in (full, restored):
        new = commands.assess_evidence(
            p,
            dict(live.likelihoods),
            "re-read",
            otherwise=live.otherwise,
            observation_seq=observation,
            probe_run_seq=run,
            supersedes=live.id,
        )
        assert new.payload["supersedes"] == live.id
    with pytest.raises(DomainError, match="not a probe run"):
        commands.assess_evidence(restored, dict(live.likelihoods), "x", probe_run_seq=observation)


# --- what cannot be restored ------------------------------------------------------------------


def split(data: bytes) -> tuple[bytes, dict[str, Any], bytes]:
    """(header, JSON state, binary section) of a saved fold, by its documented layout."""
    header, _, rest = data.partition(b"\n")
    inflater = zlib.decompressobj()
    text = inflater.decompress(rest)
    return header, json.loads(text), inflater.unused_data


def seal(state: Any, binary: bytes, version: str = ENGINE_VERSION) -> bytes:
    """A correctly enveloped fold around any JSON value (the digest matches)."""
    rest = zlib.compress(json.dumps(state).encode()) + binary
    digest = hashlib.sha256(rest).hexdigest()
    return f"casefile-fold {version} {digest}\n".encode() + rest


@cache
def reference_fold() -> bytes:
    return dump_fold(project(list(reference_events())))


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"casefile-fold",
        b"casefile-fold fold-2\n",
        b"casefile-fold fold-2 00\n{}",
        b"\x80\x04\x95pickle",
        "not bytes",
        None,
        12,
    ],
)
def test_garbage_is_unreadable(data: Any) -> None:
    with pytest.raises(FoldUnreadable):
        restore_fold(data)


def test_another_engine_version_is_refused_by_name() -> None:
    _, state, binary = split(reference_fold())
    with pytest.raises(FoldUnreadable, match=r"engine 'fold-0'; this is 'fold-10'"):
        restore_fold(seal(state, binary, version="fold-0"))
    assert ENGINE_VERSION == "fold-10"
    assert issubclass(FoldUnreadable, DomainError)


def test_truncated_or_damaged_bytes_are_unreadable() -> None:
    data = reference_fold()
    rng = random.Random(5)
    for end in sorted({*rng.sample(range(len(data)), 60), len(data) - 1}):
        with pytest.raises(FoldUnreadable):
            restore_fold(data[:end])
    for _ in range(60):
        at = rng.randrange(len(data))
        damaged = bytearray(data)
        damaged[at] ^= 1 << rng.randrange(8)
        with pytest.raises(FoldUnreadable):
            restore_fold(bytes(damaged))
    with pytest.raises(FoldUnreadable, match="binary section"):
        restore_fold(seal(split(data)[1], split(data)[2] + b"\0"))


@pytest.mark.parametrize(
    "state",
    [
        None,
        [],
        {},
        {"binary": 0},
        {"binary": 0, "case": "x"},
        "a string",
    ],
)
def test_well_sealed_json_that_is_no_fold_is_unreadable(state: Any) -> None:
    with pytest.raises(FoldUnreadable):
        restore_fold(seal(state, b""))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value[:4]):
            out.extend(paths(item, (*prefix, index)))
    return out


def use(p: Projection) -> None:
    """Read everything a view would: none of it may fail once a fold is accepted."""
    p.confidences()
    for question in p.questions.values():
        question.leading_leaf()
        question.snapshot().confidences  # noqa: B018
    for state in p.evidence.values():
        _ = (state.payload, state.rationale, state.rule, state.outcome, state.statistic)
        _ = state.likelihoods
    p.warnings.all()
    p.graph  # noqa: B018
    decisive_at(p)
    rank_next_steps(p, reference_candidates())
    for hid in list(p.hypothesis_question)[:2]:
        contributions(p, hid)
    dump_fold(p)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_fold_with_any_value_changed_is_refused_or_fully_usable(data: Any) -> None:
    """Fuzz: replace one value anywhere in the JSON (or drop it, or damage the binary section)
    and seal it again; restoring raises FoldUnreadable or gives a projection that works."""
    _, state, binary = split(reference_fold())
    where = data.draw(st.sampled_from(paths(state)[1:]), label="path")
    parent: Any = state
    for key in where[:-1]:
        parent = parent[key]
    action = data.draw(st.sampled_from(["replace", "drop", "binary"]), label="action")
    if action == "drop":
        del parent[where[-1]]
    elif action == "replace":
        parent[where[-1]] = data.draw(json_values, label="value")
    else:
        damaged = bytearray(binary)
        if damaged:
            damaged[data.draw(st.integers(0, len(damaged) - 1))] ^= 0xFF
        binary = bytes(damaged)
    try:
        restored = restore_fold(seal(state, binary))
    except FoldUnreadable:
        return
    use(restored)


def test_a_state_only_fold_is_the_full_fold_without_its_steps() -> None:
    """``trajectory=False`` (what one-shot commands fold) changes nothing but the steps."""
    from casefile.store.casedir import read_case_dir
    from tests.app.folds import fingerprint

    events, _ = read_case_dir(REFERENCE)
    full = project(events)
    state = project(events, trajectory=False)
    assert state.trajectory == [] and not state.keeps_trajectory
    assert fingerprint(state, trajectory=False) == fingerprint(full, trajectory=False)
    assert dump_fold(state) == dump_fold(full)
    for cut in range(1, len(events)):
        partial = project(events[:cut], trajectory=False)
        project(events[cut:], into=partial)
        assert fingerprint(partial, trajectory=False) == fingerprint(full, trajectory=False)


@pytest.mark.parametrize("bound", [0, 1, 3, 255, 256, 300])
def test_an_index_column_is_read_only_when_every_index_is_in_its_table(bound: int) -> None:
    from casefile.domain.beliefs.fold_columns import Binary, FoldUnreadable, Section

    for values in ([], [0], [bound - 1], [bound], [0, 255], [7, bound, 1]):
        if not all(0 <= v <= 255 for v in values):
            continue  # not one byte each
        binary = Binary()
        column = binary.ints(values, below=256)  # one byte each
        section = Section(b"".join(binary.parts))
        fits = all(0 <= v < bound for v in values)
        if fits:
            assert section.indices(column, bound, "x") == values
            assert section.indices(values, bound, "x") == values  # as a JSON list
        else:
            with pytest.raises(FoldUnreadable):
                section.indices(column, bound, "x")
            with pytest.raises(FoldUnreadable):
                section.indices(values, bound, "x")
