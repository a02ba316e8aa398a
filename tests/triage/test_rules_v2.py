"""gpu-throughput@2's rules on real outputs (the shared corpus) and on the shapes the issue
names: a table cut after its smallest rows, P2P that the driver allows but ACS reroutes, a
topology with host-bridge pairs, clocks sagging over a sustained run."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V1, PLAYBOOK_V2
from casefile_probes import dmon, nccl, p2p, topo

from casefile.domain.expected import NO_CONTEXT, CaseContext
from casefile.domain.facts import Fact
from casefile.domain.rules import Applied, NotApplicable, Rule, SetAside, evaluate
from tests.triage.conftest import nccl_table

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def rule(rule_id: str) -> Rule:
    return next(r for r in PLAYBOOK_V2.rules if r.id == rule_id)


def verdict(rule_id: str, facts: list[Fact], load: str = "under-load") -> object:
    return evaluate(rule(rule_id), [*facts, *PLAYBOOK_V2.context_facts(facts)], load)


def test_a_table_cut_after_its_small_rows_says_nothing_about_bandwidth() -> None:
    """8- and 16-byte rows read 0.00 GB/s on any hardware: version 1 read them as "low"."""
    cut = "\n".join(nccl_table(200.0, "NVIDIA A100-SXM4-80GB").splitlines()[:17]) + "\n"
    facts = nccl.parse_nccl(cut).facts
    assert [f.subject for f in facts if f.name == "nccl.busbw"] == ["size=8", "size=1024"]
    v1 = next(r for r in PLAYBOOK_V1.rules if r.id == "nccl-bus-bandwidth")
    old = evaluate(v1, facts, "any")
    assert isinstance(old, Applied) and old.outcome == "low"  # what the issue reported
    assert isinstance(verdict("nccl-bus-bandwidth", facts), NotApplicable)


@pytest.mark.parametrize(
    ("busbw", "device", "outcome"),
    [
        (210.0, "NVIDIA A100-SXM4-80GB", "as-expected"),  # NVLink 3: ~230 expected
        (40.0, "NVIDIA A100-SXM4-80GB", "far-below"),  # an NVLink box at PCIe speed
        (19.0, "NVIDIA A40", "as-expected"),  # PCIe Gen4: ~20 expected
        (8.0, "NVIDIA GeForce RTX 4090", "below"),
        (2.5, "NVIDIA GeForce RTX 4090", "far-below"),
    ],
)
def test_bus_bandwidth_is_judged_against_the_paths_expected_rate(
    busbw: float, device: str, outcome: str
) -> None:
    result = verdict("nccl-bus-bandwidth", nccl.parse_nccl(nccl_table(busbw, device)).facts)
    assert isinstance(result, Applied) and result.outcome == outcome


ONE_ROW = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "  4294967296    1073741824     float     sum      -1    81146   52.93  104.20    N/A"
    "    80945   53.06  104.46    N/A\n"
)


@pytest.mark.parametrize(
    ("context", "path", "outcome"),
    [
        # the table names neither GPUs nor hosts: without the case, the fallback row
        (NO_CONTEXT, "PCIe Gen4 x16, assumed", "as-expected"),
        # the case says 8 nodes of NVSwitch H100s: NVLSTree's rate, and 104 GB/s is below it
        (
            CaseContext(gpus=("8 nodes x 8x H100",), nodes="multi", nvlink=True),
            "NVLink SHARP inside each node",
            "below",
        ),
        # the same GPUs across nodes without NVLink between them: one NIC per GPU
        (
            CaseContext(gpus=("H100 PCIe",), nodes="multi", nvlink=False),
            "one 400 Gb/s NIC per GPU",
            "as-expected",
        ),
        # NVLink unanswered: no NVLS row is taken on a guess
        (CaseContext(gpus=("H100",), nodes="multi"), "one 400 Gb/s NIC per GPU", "as-expected"),
    ],
)
def test_a_run_that_leaves_its_gpus_and_nodes_unsaid_takes_them_from_the_case(
    context: CaseContext, path: str, outcome: str
) -> None:
    facts = nccl.parse_nccl(ONE_ROW).facts
    extra = PLAYBOOK_V2.context_facts(facts, lambda: context)
    assert str(next(f.value for f in extra if f.name == "path.expected")).startswith(path)
    result = evaluate(rule("nccl-bus-bandwidth"), [*facts, *extra], "any")
    assert isinstance(result, Applied) and result.outcome == outcome


NVSWITCH_NODES = CaseContext(gpus=("8 nodes x 8x H100",), nodes="multi", nvlink=True)


@pytest.mark.parametrize(
    ("context", "extra", "path"),
    [
        # NVLink bridges on PCIe parts are not NVSwitch: no NVLink SHARP across nodes
        (CaseContext(("NVIDIA H100 NVL",), "multi", True), [], "one 400 Gb/s NIC per GPU"),
        (CaseContext(("NVIDIA H100 PCIe",), "multi", True), [], "one 400 Gb/s NIC per GPU"),
        # the run says NVLS is unavailable, or forces an algorithm without it: the NIC's rate
        (NVSWITCH_NODES, [Fact("nccl.nvls", False, "gpu0")], "one 400 Gb/s NIC per GPU"),
        (NVSWITCH_NODES, [Fact("nccl.env.NCCL_ALGO", "Ring")], "one 400 Gb/s NIC per GPU"),
        # NCCL_ALGO=^LIST excludes what it lists
        (NVSWITCH_NODES, [Fact("nccl.env.NCCL_ALGO", "^Ring")], "NVLink SHARP inside each node"),
        (
            NVSWITCH_NODES,
            [Fact("nccl.env.NCCL_ALGO", "^NVLS,NVLSTree")],
            "one 400 Gb/s NIC per GPU",
        ),
        (
            NVSWITCH_NODES,
            [Fact("nccl.env.NCCL_ALGO", "allreduce:ring;broadcast:tree")],
            "one 400 Gb/s NIC per GPU",
        ),
        # hosts named, GPUs not (NCCL's init lines without the device list): the case's GPUs
        (NVSWITCH_NODES, [Fact("nccl.nnodes", 8)], "NVLink SHARP inside each node"),
        # NVLS among several transports shows it ran, whatever the case answered
        (
            CaseContext(("H100",), "multi"),
            [Fact("nccl.transports", "NET/IB,NVLS")],
            "NVLink SHARP inside each node",
        ),
        (CaseContext(("NVIDIA B300",), "multi"), [], "one 400 Gb/s NIC per GPU"),
    ],
)
def test_the_nvlstree_rate_needs_nvlink_sharp_to_be_possible(
    context: CaseContext, extra: list[Fact], path: str
) -> None:
    facts = [*nccl.parse_nccl(ONE_ROW).facts, *extra]
    expected = PLAYBOOK_V2.context_facts(facts, lambda: context)
    assert str(next(f.value for f in expected if f.name == "path.expected")).startswith(path)


def test_a_p2p_test_in_a_multi_node_case_is_still_judged_as_one_node() -> None:
    """The P2P test names its GPUs and never spans nodes: the case's "multi" must not move it
    to a multi-node row, which has no P2P rate (its verdict was lost)."""
    facts = [
        Fact("name", "NVIDIA A100-SXM4-80GB", "gpu0"),
        Fact("p2p.unidir_bw.enabled.max", 80.0, "host", "GB/s"),
    ]
    case = CaseContext(gpus=("2 nodes x 8x A100",), nodes="multi", nvlink=True)
    expected = PLAYBOOK_V2.context_facts(facts, lambda: case)
    assert next(f.value for f in expected if f.name == "p2p.bw.expected") == 270.0
    verdict = evaluate(rule("p2p-bandwidth-expected"), [*facts, *expected], "any")
    assert isinstance(verdict, Applied) and verdict.outcome == "far-below"


def test_the_runs_own_gpus_and_hosts_win_over_the_case() -> None:
    facts = nccl.parse_nccl(nccl_table(19.0, "NVIDIA A40")).facts
    asked: list[bool] = []

    def context() -> CaseContext:
        asked.append(True)
        return CaseContext(gpus=("H100 SXM",), nodes="multi", nvlink=True)

    extra = PLAYBOOK_V2.context_facts(facts, context)
    assert next(f.value for f in extra if f.name == "nccl.busbw.expected") == 20.0
    assert len(asked) <= 1  # asked once at most (for NVLink), and its GPUs and nodes unused


@needs_corpus
@pytest.mark.parametrize(
    ("sample", "outcome"),
    [("001", "as-expected"), ("006", "as-expected"), ("007", "as-expected")],
)
def test_corpus_tables_read_against_their_gpus(sample: str, outcome: str) -> None:
    text = (CORPUS / "nccl" / f"{sample}.txt").read_text(encoding="utf-8", errors="replace")
    result = verdict("nccl-bus-bandwidth", nccl.parse_nccl(text).facts)
    assert isinstance(result, Applied) and result.outcome == outcome


def test_p2p_the_driver_allows_is_nearly_neutral_for_rerouting() -> None:
    """Version 1 took a P2P-capable answer as evidence against P2P trouble while ACS was
    rerouting it; version 2's row for acs-iommu is within 20 % of its other row."""
    result = verdict("p2p-supported", [Fact("p2p.enabled", True, "gpu0-gpu1")], "any")
    assert isinstance(result, Applied) and result.outcome == "p2p"
    ratio = result.likelihoods["acs-iommu"] / result.otherwise
    assert 0.8 <= ratio <= 1.2
    assert result.likelihoods["consumer-no-p2p"] < 0.2


@needs_corpus
def test_a_p2p_test_where_enabling_p2p_gains_nothing() -> None:
    """corpus/p2p/003: eight GPUs at ~11 GB/s with P2P enabled and disabled alike."""
    text = (CORPUS / "p2p" / "003.txt").read_text(encoding="utf-8", errors="replace")
    result = verdict("p2p-enabled-gain", p2p.PROBE.parse(text).facts, "any")
    assert isinstance(result, Applied) and result.outcome == "no-gain"


@needs_corpus
def test_nvlink_bridged_pairs_gain_from_p2p() -> None:
    text = (CORPUS / "p2p" / "002.txt").read_text(encoding="utf-8", errors="replace")
    facts = p2p.PROBE.parse(text).facts
    gain = verdict("p2p-enabled-gain", facts, "any")
    assert isinstance(gain, Applied) and gain.outcome == "gain"
    expected = verdict("p2p-bandwidth-expected", facts, "any")
    assert isinstance(expected, Applied) and expected.outcome == "as-expected"


@needs_corpus
def test_topo_p2p_possible_is_read() -> None:
    """corpus/topo/003: two RTX 5090 on PHB, a pair without a P2P path."""
    text = (CORPUS / "topo" / "003.txt").read_text(encoding="utf-8", errors="replace")
    result = verdict("topology-p2p-path", topo.PROBE.parse(text).facts, "any")
    assert isinstance(result, Applied) and result.outcome == "some-via-host"


DMON_SAG = """# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
    0    300     62      -    100     60      0      0      0      0   1593   1980
    0    300     70      -    100     60      0      0      0      0   1593   1980
    0    300     78      -    100     60      0      0      0      0   1593   1890
    0    300     85      -    100     60      0      0      0      0   1593   1710
    0    300     88      -    100     60      0      0      0      0   1593   1605
"""


def test_clocks_falling_and_temperature_rising_over_a_sustained_run() -> None:
    facts = dmon.PROBE.parse(DMON_SAG).facts
    sag = verdict("clock-sag", facts)
    assert isinstance(sag, Applied) and sag.outcome == "sagging"
    trend = verdict("temperature-trend", facts)
    assert isinstance(trend, Applied) and trend.outcome == "rising"
    assert isinstance(verdict("clock-sag", facts, "idle"), SetAside)  # counts only under load


def test_every_rule_of_version_2_is_fed_by_a_probe_it_names() -> None:
    """The ranking credits a probe only with rules its facts can feed (ranking.feeds)."""
    from casefile.domain.beliefs.ranking import feeds
    from tests.cli.conftest import builtin_probes

    probes = {p.name: p for p in builtin_probes()}
    for candidate in PLAYBOOK_V2.rules:
        fed = [name for name in candidate.probes if feeds(candidate, probes[name].facts)]
        assert fed, f"rule {candidate.id}: none of {candidate.probes} can feed it"


def test_a_paste_of_the_bidirectional_matrices_only_still_shows_the_gain() -> None:
    """nccl-tests#74 as retrieved: only the bidirectional part of the P2P test survives."""
    import json

    material = Path(__file__).resolve().parents[2] / "cases" / "dev" / "material"
    steps = json.loads((material / "nccl-tests-74-a40-nps4.json").read_text())["steps"]
    (paste,) = [s for s in steps if s.get("probe") == "cuda-p2p-bandwidth"]
    facts = p2p.PROBE.parse(paste["output"]).facts
    assert not [f for f in facts if f.name.startswith("p2p.unidir_bw")]
    result = verdict("p2p-enabled-gain", facts, "any")
    assert isinstance(result, Applied) and result.outcome == "gain"  # NVLink pairs: ~5x
