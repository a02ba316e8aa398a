"""A warm status (the fold restored from a snapshot) reads what it needs from the indexes the
restore starts, not by walking the case's evidence and observations: the rules read, the
evidence of each observation and the fact names of each observation. Every view is the same
bytes as from a fold of the events, on the reference case and every development case."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casefile.app import fold_cache, intake
from casefile.app.service import CaseService
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.by_observation import evidence_of
from casefile.domain.beliefs.evidence import EvidenceState
from casefile.domain.beliefs.fact_names import fact_names, names_of
from casefile.domain.beliefs.fold_codec import (
    ENGINE_VERSION,
    PROBE_RUN_KEYS,
    FoldUnreadable,
    dump_fold,
    restore_fold,
)
from casefile.domain.beliefs.rules_read import rules_read
from casefile.store.casedir import read_case_dir
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import builtin_registry
from tests.triage.devset import case_dirs

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = builtin_registry()  # the installation's playbooks and probes
CASES = [ROOT / "casefile" / "reference" / "glm5-pcie-pivot", *case_dirs()]


@pytest.fixture(autouse=True)
def snapshot_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CASEFILE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 1)
    yield


def views(store: SqlEventStore, case_id: str) -> str:
    """What ``status --json`` and ``intake --list`` show, as one string of bytes to compare."""
    service = CaseService(store, REGISTRY)
    try:
        status = service.reader.status(case_id).to_json()
        intake = [dataclasses.asdict(item) for item in service.reader.intake(case_id)]
        service.flush()
    finally:
        service.close()
    return json.dumps([status, intake], sort_keys=True, default=repr)


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_a_warm_status_is_the_same_bytes_as_a_fold_of_the_events(
    case_dir: Path, tmp_path: Path
) -> None:
    events, artifacts = read_case_dir(case_dir)
    case_id = events[0].case_id
    with SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}") as store:
        store.import_case(events, artifacts)
        cold = views(store, case_id)  # folds the events, then saves the snapshot
        assert store.load_snapshot(case_id, fold_cache.engine_key()) is not None
        assert views(store, case_id) == cold  # from the snapshot


def indexes_of(p: Projection) -> tuple[Any, ...]:
    observations = {seq: evidence_of(p, seq) for seq in p.observations}
    names = {seq: fact_names(p, seq) for seq in p.observations}
    return dict(rules_read(p)), observations, names


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_the_restored_indexes_are_those_of_a_fold_of_the_events(case_dir: Path) -> None:
    events, _ = read_case_dir(case_dir)
    folded = project(events, trajectory=False)
    restored = restore_fold(dump_fold(folded))
    assert indexes_of(restored) == indexes_of(folded)
    for seq, payload in folded.observations.items():
        assert fact_names(restored, seq) == names_of(payload["facts"])
    # and they keep up with what is folded after the restore (evidence that supersedes)
    half = len(events) // 2
    start = restore_fold(dump_fold(project(events[:half], trajectory=False)))
    start.keeps_trajectory = False
    assert indexes_of(project(events[half:], into=start)) == indexes_of(folded)


def test_a_restored_fold_answers_without_walking_its_evidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events, _ = read_case_dir(CASES[0])
    restored = restore_fold(dump_fold(project(events, trajectory=False)))
    walked: list[str] = []
    rule = EvidenceState.rule

    def spy(self: EvidenceState) -> Any:
        walked.append(self.id)
        return rule.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(EvidenceState, "rule", property(spy))
    assert rules_read(restored)  # the reference case's rules were read
    seqs = [s for s in restored.observations if evidence_of(restored, s)]
    assert seqs and walked == []


ARTIFACTS = CASES[0] / "artifacts"
#: reference-case outputs an ingest turns into observations (with facts no intake asks for)
OUTPUTS = (
    ("nvidia-smi topo -m", "cf361f834325b6ef92ffb30d36a49547b80cd93bbbe629f227589988068776ce"),
    ("nvidia-smi -q", "c79962d07c6d5e30d3d04e800bdf3e57c485426e497e307f3c79baecbb7e25c2"),
    (
        "nvidia-smi --query-gpu=index,utilization.gpu,utilization.memory,power.draw,power.limit"
        " --format=csv",
        "2962102382aa9817a0bdccf0054968502bda19f194c362adac480825fc2dcc12",
    ),
)


def playbook_case(store: SqlEventStore, case_id: str = "pb", *, idle: bool = False) -> None:
    """A case opened from the gpu-throughput playbook, one intake question answered, and a
    transcript of readings ingested (observations whose facts answer no open question)."""
    service = CaseService(store, REGISTRY)
    service.writer.new_case("bench", case_id=case_id, playbook="gpu-throughput")
    service.writer.answer_intake(case_id, {"platform": "vm"}, known=True)
    log = "".join(
        f"$ ssh gpu-box {command}\n{(ARTIFACTS / digest).read_text()}"
        for _ in range(4)
        for command, digest in OUTPUTS
    )
    proposal = service.probing.propose_ingest(log.encode(), "shell-log", load="under-load")
    service.probing.ingest(case_id, proposal)
    if idle:  # the same readings at idle: set aside, each with its warning
        again = log.replace("gpu-box", "gpu-box-2").encode()
        proposal = service.probing.propose_ingest(again, "shell-log", load="idle")
        service.probing.ingest(case_id, proposal)
    service.close()


def test_intake_reads_from_the_store_only_observations_holding_a_wanted_fact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}") as store:
        playbook_case(store)
        cold = views(store, "pb")
        folded = project(store.load("pb"), trajectory=False)
        reads: list[int] = []
        facts = intake._LazyFacts._facts

        def spy(self: Any, seq: int) -> Any:
            reads.append(seq)
            return facts(self, seq)

        monkeypatch.setattr(intake._LazyFacts, "_facts", spy)
        assert views(store, "pb") == cold  # from the snapshot
    wanted = {
        spec.fact
        for question in REGISTRY.playbook("gpu-throughput").intake
        for spec in question.facts
    }
    holding = {
        seq
        for seq, payload in folded.observations.items()
        if wanted.intersection(names_of(payload["facts"]))
    }
    assert reads and len(holding) < len(folded.observations)
    assert set(reads) <= holding  # none read that holds no fact of a wanted name


def saved(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The JSON state and binary section of a saved fold (its documented layout)."""
    _, _, rest = data.partition(b"\n")
    inflater = zlib.decompressobj()
    return json.loads(inflater.decompress(rest)), inflater.unused_data


def resealed(state: dict[str, Any], binary: bytes) -> bytes:
    rest = zlib.compress(json.dumps(state).encode()) + binary
    return f"casefile-fold {ENGINE_VERSION} {hashlib.sha256(rest).hexdigest()}\n".encode() + rest


def same_set_asides(a: Projection, b: Projection) -> None:
    assert json.dumps(a.set_asides) == json.dumps(b.set_asides)  # key order included
    assert a.warnings.saved_state() == b.warnings.saved_state()
    assert dump_fold(a) == dump_fold(b)


def idle_fold(tmp_path: Path) -> Projection:
    """The playbook case with readings set aside, folded from its events."""
    with SqlEventStore(f"sqlite:///{tmp_path / 'idle.db'}") as store:
        playbook_case(store, idle=True)
        return project(store.load("pb"), trajectory=False)


def test_set_aside_readings_and_their_warnings_are_saved_as_columns(tmp_path: Path) -> None:
    folded = idle_fold(tmp_path)
    assert len(folded.set_asides) >= 8
    state, _ = saved(dump_fold(folded))
    assert set(state["set_asides"]) == {"columns"}
    assert len(state["set_asides"]["columns"]["shapes"]) < len(folded.set_asides)
    raised = [w for w in state["warnings"]["active"] if not isinstance(w, int)]
    assert len(raised) == len(state["warnings"]["active"]) - len(folded.set_asides)
    assert all(w[0] != "set-aside" for w in raised)
    same_set_asides(restore_fold(dump_fold(folded)), folded)


def test_set_asides_that_do_not_fit_the_columns_are_kept_whole(tmp_path: Path) -> None:
    folded = idle_fold(tmp_path)
    folded.set_asides[0]["hash"] = None  # no event hash: not a column
    first = folded.set_asides[1]
    key = ("set-aside", None, f"{first['observation_seq']}:{first['rule']['id']}")
    folded.warnings.active[key] = dataclasses.replace(folded.warnings.active[key], message="x")
    state, _ = saved(dump_fold(folded))
    assert set(state["set_asides"]) == {"list"}
    assert ["set-aside", "x", first["seq"], None, key[2]] in state["warnings"]["active"]
    same_set_asides(restore_fold(dump_fold(folded)), folded)


@pytest.mark.parametrize("position", [-1, 10**6, "0"])
def test_a_warning_naming_no_set_aside_record_is_unreadable(position: Any, tmp_path: Path) -> None:
    folded = idle_fold(tmp_path)
    state, binary = saved(dump_fold(folded))
    state["warnings"]["active"][0] = position
    with pytest.raises(FoldUnreadable):
        restore_fold(resealed(state, binary))


def test_a_warning_given_twice_is_unreadable(tmp_path: Path) -> None:
    folded = idle_fold(tmp_path)
    state, binary = saved(dump_fold(folded))
    active = state["warnings"]["active"]
    assert active.count(0) == 1
    twice = {**state, "warnings": {**state["warnings"], "active": [*active, 0]}}
    with pytest.raises(FoldUnreadable, match="given twice"):
        restore_fold(resealed(twice, binary))
    # a record's warning written out in full beside its position
    record = folded.set_asides[0]
    warning = [
        "set-aside",
        "x",
        record["seq"],
        None,
        f"{record['observation_seq']}:{record['rule']['id']}",
    ]
    spelled = {**state, "warnings": {**state["warnings"], "active": [*active, warning]}}
    with pytest.raises(FoldUnreadable, match="given twice"):
        restore_fold(resealed(spelled, binary))


def test_two_records_of_one_reading_and_rule_cannot_both_raise_a_warning(tmp_path: Path) -> None:
    folded = idle_fold(tmp_path)
    first, second = folded.set_asides[0], folded.set_asides[1]
    second["observation_seq"], second["rule"] = first["observation_seq"], first["rule"]
    state, binary = saved(dump_fold(folded))
    active = state["warnings"]["active"]
    assert active[0] == 0 and active[1][0] == "set-aside"  # its own warning no longer fits
    active[1] = 1  # saved as the record's position all the same
    with pytest.raises(FoldUnreadable, match="given twice"):
        restore_fold(resealed(state, binary))


def test_a_warm_status_builds_no_warning_until_its_rows_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text status shows the warnings' groups only; the rows are built when read (JSON),
    as they stood when the status was taken, whatever is folded after."""
    from casefile.app.views import build_status
    from casefile.domain.beliefs import warnings as warnings_module

    folded = idle_fold(tmp_path)
    cold = build_status(folded).to_json()
    restored = restore_fold(dump_fold(folded))
    made: list[int] = []
    real = warnings_module.set_aside_warning

    def spy(seq: int, payload: dict[str, Any]) -> Any:
        made.append(seq)
        return real(seq, payload)

    monkeypatch.setattr(warnings_module, "set_aside_warning", spy)
    monkeypatch.setattr("casefile.domain.beliefs.warning_tally.set_aside_warning", spy)
    view = build_status(restored)
    assert view.warning_groups and len(made) <= 2 * len(view.warning_groups)
    restored.warnings._clear("set-aside", None)  # the fold moves on: every warning cleared
    assert restored.warnings.all() == []
    assert view.to_json() == cold  # the rows as they stood
    assert len(made) >= len(folded.set_asides)


def test_the_evidence_of_each_observation_is_indexed_when_first_asked() -> None:
    from casefile.domain.beliefs.by_observation import INDEX, SCANS

    events, _ = read_case_dir(CASES[0])
    folded = project(events, trajectory=False)
    restored = restore_fold(dump_fold(folded))
    index = restored.indexes[INDEX]
    assert index.pending is not None and index.ids == {}  # a status with no known answer
    seqs = [s for s in folded.observations if evidence_of(folded, s)]
    assert seqs
    for seq in (seqs * SCANS)[:SCANS]:  # the first questions scan the saved columns
        assert evidence_of(restored, seq) == evidence_of(folded, seq)
    assert index.pending is not None and index.ids == {}
    for seq in seqs:  # later ones index them
        assert evidence_of(restored, seq) == evidence_of(folded, seq)
    assert index.pending is None and index.ids


def test_intake_visits_only_restored_observations_holding_a_wanted_fact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a fold restored from a snapshot, intake looks only at the observations whose saved
    fact names include one a question asks for (a long case's others are never visited)."""
    from casefile.domain.beliefs.fact_names import restored_holding

    with SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}") as store:
        playbook_case(store)
        cold = views(store, "pb")
        visited: list[int] = []
        answer = intake._LazyFacts._answer

        def spy(self: Any, question: Any, wanted: frozenset[str], seq: int) -> Any:
            visited.append(seq)
            return answer(self, question, wanted, seq)

        monkeypatch.setattr(intake._LazyFacts, "_answer", spy)
        assert views(store, "pb") == cold  # from the snapshot
        restored = restore_fold(dump_fold(project(store.load("pb"), trajectory=False)))
    asked = [
        frozenset(spec.fact for spec in question.facts)
        for question in REGISTRY.playbook("gpu-throughput").intake
        if question.facts
    ]
    holding = {seq for wanted in asked for seq in restored_holding(restored, wanted)[1]}
    assert len(holding) < len(restored.observations)
    assert set(visited) <= holding


def test_restored_evidence_reads_its_hash_when_first_asked() -> None:
    events, _ = read_case_dir(CASES[0])
    folded = project(events, trajectory=False)
    restored = restore_fold(dump_fold(folded))
    states = list(restored.evidence.values())
    assert states and all(s._hash is None for s in states)  # no hex string built yet
    assert [s.hash for s in states] == [s.hash for s in folded.evidence.values()]
    states[0].hash = "ab" * 32  # what adopting the sealed event does
    assert states[0].hash == "ab" * 32


def test_a_restored_fold_builds_its_probe_runs_and_hashes_when_first_read(tmp_path: Path) -> None:
    folded = idle_fold(tmp_path)
    restored = restore_fold(dump_fold(folded))
    assert set(restored._restorers) == {"probe_runs", "probe_run_hashes", "observation_hashes"}
    assert restored._probe_runs == {} and restored._probe_run_hashes == {}  # none built yet
    runs = {seq: stub(r, PROBE_RUN_KEYS) for seq, r in folded.probe_runs.items()}
    assert restored.probe_runs == runs
    assert restored.probe_run_hashes == folded.probe_run_hashes
    assert restored.observation_hashes == folded.observation_hashes
    assert restored._restorers == {}
    restored.probe_runs = {}  # set, as a fold of the events does: nothing left to build
    assert restored.probe_runs == {}


def stub(record: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: record[k] for k in keys if record.get(k) is not None}
