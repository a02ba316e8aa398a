"""The GLM-5 reference case replays as the seed story says it must.

Each test pins one thing a reader of the replay must see; together they are the audit of the
PCIe-to-compute pivot.
"""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V1 as PLAYBOOK
from casefile_probes import dmon, lspci, nvml, query_gpu, smi_q, topo

from casefile.app.views import build_replay, runner_up
from casefile.domain.beliefs import Projection, project
from casefile.domain.beliefs.ranking import Candidate, rank_next_steps
from casefile.domain.beliefs.scoring import decisive_evidence
from casefile.domain.events import Event
from casefile.store.casedir import export_case, read_case_dir
from casefile.store.memory import MemoryEventStore

ROOT = Path(__file__).resolve().parents[2]
CASE_DIR = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"
BUILDER = ROOT / "cases" / "_build" / "build_glm5_pcie_pivot.py"
Q = "throughput"
PCIE_BOUND = ("pcie-bound", "pcie-bandwidth", "link-degraded")


@pytest.fixture(scope="module")
def events() -> list[Event]:
    loaded, _ = read_case_dir(CASE_DIR)
    return loaded


@pytest.fixture(scope="module")
def projection(events: list[Event]) -> Projection:
    return project(events)


def seq_of(events: list[Event], predicate: object) -> int:
    for event in events:
        if predicate(event):  # type: ignore[operator]
            return event.seq
    raise AssertionError("no such event")


def pivot_observation_seq(events: list[Event]) -> int:
    """The user's reading under load: ~1 GB/s on links capable of ~64 GB/s."""
    return seq_of(
        events,
        lambda e: (
            e.type == "evidence.assessed"
            and e.payload.get("rule", {}).get("id") == "pcie-link-busy"
        ),
    )


def gen5_reading_seqs(events: list[Event]) -> list[int]:
    """The link checks at idle: `nvidia-smi -q -i 0` and `lspci -vvs 00:10.0`."""
    return [
        e.seq
        for e in events
        if e.type == "probe.ran"
        and e.payload["probe"] in ("nvidia-smi-q", "lspci")
        and e.payload["conditions"]["load"] == "idle"
    ]


def test_pcie_bound_leads_on_calculations_with_never_measured_warning(
    events: list[Event], projection: Projection
) -> None:
    first_calculation = seq_of(events, lambda e: e.payload.get("kind") == "calculated")
    pivot = pivot_observation_seq(events)
    stretch = [s for s in projection.trajectory if first_calculation <= s.seq < pivot]
    assert stretch
    for step in stretch:
        assert step.snapshots[Q].leader == "pcie-bound", step.seq
    raised = [w for s in stretch for w in s.raised if w.code == "never-measured"]
    assert raised and raised[0].subject == "pcie-bound"
    assert raised[0].seq == first_calculation
    cleared_before_pivot = [w for s in stretch for w in s.cleared if w.code == "never-measured"]
    assert not cleared_before_pivot


def test_pivot_is_flagged_at_the_one_gigabyte_observation_with_high_surprise(
    events: list[Event], projection: Projection
) -> None:
    pivot = pivot_observation_seq(events)
    step = projection.trajectory[pivot - 1]
    assert step.seq == pivot
    assert Q in step.pivots and step.pivots[Q][0] == "pcie-bound"
    assert step.unexpected_bits is not None and step.unexpected_bits >= 1.0
    view = build_replay(projection).to_json()["steps"][pivot - 1]
    assert view["surprising"] and view["questions"][Q]["pivot"]
    evidence = events[pivot - 1].payload
    assert evidence["outcome"] == "idle" and evidence["statistic"] < 0.05
    # no pivot anywhere before it: the belief held until the measurement
    assert not [s for s in projection.trajectory if s.pivots and s.seq < pivot]


def test_link_degraded_falls_below_five_percent_after_the_gen5_x16_readings(
    events: list[Event], projection: Projection
) -> None:
    readings = gen5_reading_seqs(events)
    assert len(readings) >= 2
    for step in projection.trajectory[readings[-1] :]:
        assert step.snapshots[Q].confidences["link-degraded"] < 0.05
    proposed = next(
        s
        for s in projection.trajectory
        if Q in s.snapshots and "link-degraded" in s.snapshots[Q].confidences
    )
    assert proposed.snapshots[Q].confidences["link-degraded"] > 0.05


def test_idle_utilisation_and_tx_rx_readings_are_set_aside(
    events: list[Event], projection: Projection
) -> None:
    idle_full = [
        e.seq
        for e in events
        if e.type == "observation.recorded"
        and e.payload["conditions"]["load"] == "idle"
        and any(f["name"] == "utilization.gpu" and f["value"] == 0 for f in e.payload["facts"])
    ]
    assert len(idle_full) == 1
    observation = idle_full[0]
    facts = {f["name"]: f["value"] for f in events[observation - 1].payload["facts"]}
    assert facts["pcie.tx_throughput"] == 581 and facts["pcie.rx_throughput"] == 693
    aside = {
        e.payload["rule"]["id"]: e.payload["reason"]
        for e in events
        if e.type == "reading.set_aside" and e.payload["observation_seq"] == observation
    }
    assert {"sm-busy", "pcie-link-busy"} <= set(aside)
    assert all("taken at idle" in reason for reason in aside.values())
    # visible: a warning for each, and no evidence drawn from that reading by those rules
    subjects = {w.subject for w in projection.warnings.all() if w.code == "set-aside"}
    assert f"{observation}:sm-busy" in subjects and f"{observation}:pcie-link-busy" in subjects
    drawn = {
        e.rule["id"]
        for e in projection.evidence.values()
        if e.observation_seq == observation and e.rule
    }
    assert not drawn & {"sm-busy", "pcie-link-busy"}


def test_compute_bound_leads_at_the_end_with_collective_latency_the_strongest_alternative(
    projection: Projection,
) -> None:
    question = projection.questions[Q]
    assert question.leader() == "compute-launch"
    confidences = question.confidences
    others = {
        h: c
        for h, c in confidences.items()
        if h not in ("compute-launch", "pcie-bound")
        and question.nodes.get(h, None) is not None
        and question.nodes[h].parent_id is None
    }
    assert max(others, key=others.__getitem__) == "collective-latency"
    assert runner_up(question) == "collective-latency"
    assert confidences["collective-latency"] > confidences["pcie-bound"]
    assert projection.concluded is not None
    assert projection.concluded["root_cause"] == "compute-launch"


def test_decisive_evidence_puts_the_under_load_measurements_first(
    events: list[Event], projection: Projection
) -> None:
    ranking = decisive_evidence(projection)
    top = ranking[:4]
    for item in top:
        evidence = projection.evidence[item.evidence_id]
        assert evidence.kind == "measured"
        observation = projection.observations[evidence.observation_seq or 0]
        assert observation["conditions"]["load"] == "under-load", item


def test_next_step_at_the_shared_belief_ranks_pcie_throughput_under_load_in_top_two(
    events: list[Event],
) -> None:
    shared_belief = seq_of(events, lambda e: e.payload.get("evidence_id") == "belief-user")
    before = project(events[:shared_belief])
    probes = {
        p.name: p
        for p in (smi_q.PROBE, dmon.PROBE, nvml.PROBE, topo.PROBE, lspci.PROBE, query_gpu.PROBE)
    }
    candidates = [
        Candidate(name, rule, probes[name].cost if name in probes else "moderate")
        for rule in PLAYBOOK.rules
        for name in rule.probes
    ]
    ranked = rank_next_steps(before, candidates)
    best_rules: list[str] = []
    for step in ranked:
        if step.rule_id not in best_rules:
            best_rules.append(step.rule_id)
    assert "pcie-link-busy" in best_rules[:2]
    assert ranked[0].load == "under-load"


def test_replay_is_deterministic(events: list[Event]) -> None:
    a = [s.snapshots for s in project(events).trajectory]
    b = [s.snapshots for s in project(events).trajectory]
    assert a == b


def test_every_probe_run_is_marked_reconstructed(events: list[Event]) -> None:
    runs = [e for e in events if e.type == "probe.ran"]
    assert runs and all(e.payload["reconstructed"] for e in runs)
    assert {e.actor for e in events} == {"user", "assistant"}
    times = [e.occurred_at for e in events]
    assert all(times) and times == sorted(times)


def test_verify_and_export_import_export_is_byte_identical(tmp_path: Path) -> None:
    events, artifacts = read_case_dir(CASE_DIR)
    store = MemoryEventStore()
    store.import_case(events, artifacts)
    out = tmp_path / "again"
    export_case(store.load(events[0].case_id), artifacts, out)
    comparison = filecmp.dircmp(CASE_DIR, out)
    assert not comparison.diff_files and not comparison.left_only and not comparison.right_only
    for name in ("events.jsonl", "README.md"):
        assert (CASE_DIR / name).read_bytes() == (out / name).read_bytes()
    for blob in (CASE_DIR / "artifacts").iterdir():
        assert blob.read_bytes() == (out / "artifacts" / blob.name).read_bytes()


def test_the_builder_reproduces_the_shipped_case_byte_for_byte(tmp_path: Path) -> None:
    """The shipped case is exactly what the builder writes: nothing in it was edited by hand."""
    subprocess.run(
        [sys.executable, str(BUILDER), str(tmp_path / "case")], check=True, capture_output=True
    )
    comparison = filecmp.dircmp(CASE_DIR, tmp_path / "case")
    assert not comparison.left_only and not comparison.right_only
    for path in CASE_DIR.rglob("*"):
        if path.is_file():
            assert (
                path.read_bytes() == (tmp_path / "case" / path.relative_to(CASE_DIR)).read_bytes()
            )
