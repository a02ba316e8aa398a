"""Which way each experiment rule reads a change: its own A/B, or the same A/B reversed.

Where both sides of a change name what a rule reads ("CUDA IPC -> TCP", "PCIe Gen4 -> Gen3",
"NV4 -> PHB", "nvpmodel MAXN -> 30W", a move of NCCL's P2P level), the side its pattern names
says nothing of the way it ran; the kinds each side names, or their rank, do
(``casefile.domain.change_toward``, pcie-link's ``number_in``). A batch set to one on its own is
at its floor. Wordings found by three reviews are kept here as they were met.
"""

from __future__ import annotations

from typing import Any

import pytest
from casefile_gpu_playbook import PLAYBOOK

from casefile.domain.change_toward import toward_from
from casefile.domain.experiments import ExperimentRule, experiment_from_dict
from casefile.errors import RuleError
from tests.cli.conftest import CLI


def reading(change: str) -> tuple[str, bool]:
    """The rule of gpu-throughput@3 that reads ``change`` (the first in file order), and
    whether it reads it backwards."""
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    return rule.id, rule.undoes(change)


def load_rule(**fields: Any) -> ExperimentRule:
    """An experiment rule of the smallest valid table with ``fields`` added, as the playbook
    loader checks it."""
    raw = {
        "id": "t", "version": 1, "title": "t", "probes": ["command"],
        "metric": ["throughput"], "noise": 0.1, "noise_why": "spread",
        "likelihoods": {"otherwise": {"faster": 0.1, "same": 0.8, "slower": 0.1}},
        "rationale": "why", **fields,
    }  # fmt: skip
    return experiment_from_dict(raw, "throughput", {h.id for h in PLAYBOOK.hypotheses}, "test")


@pytest.mark.parametrize(
    ("change", "backwards"),
    [
        # onto a direct path between GPUs: the rule's own A/B
        ("TCP -> CUDA IPC", False),
        ("sockets -> IB", False),  # had read backwards: "IB" is no word of the pattern
        ("NIXL over UCX sockets -> CUDA IPC transport", False),
        ("NCCL instead of gloo", False),
        (
            "UCX_RNDV_THRESH=1: worker-to-worker GPU transfers go peer-to-peer over CUDA IPC "
            "instead of UCX's TCP transport",
            False,
        ),
        # onto a fallback through the host: the same A/B reversed
        ("CUDA IPC -> TCP", True),  # had read forwards: both sides name a transport
        ("IB -> sockets", True),
        ("UCX over TCP instead of CUDA IPC", True),
        ("backend nccl -> gloo", True),
        ("you need to switch the backend to gloo", True),
        ("the connector fell back to TCP", True),
        # found by a review: other word orders, a state named alone, the clause a move ends in
        ("backend=gloo", True),
        ('init_process_group(backend="gloo")', True),
        ("instead of nccl, use gloo", True),
        ("replace nccl with gloo", True),
        ("NCCL_NET=Socket", True),
        ("Instead of CUDA IPC, use TCP", True),
        ("use TCP rather than CUDA IPC", True),
        ("use TCP, not CUDA IPC", True),
        ("replaced CUDA IPC with TCP", True),
        ("from CUDA IPC to TCP", True),
        ("falls back to sockets when IB is unavailable", True),
        ("switched to TCP (was CUDA IPC)", True),
        ("switched to TCP. IB was flaky", True),
        ("NCCL over IB -> NCCL over TCP", True),
        ("nccl-tests over IB -> nccl-tests over TCP", True),
        ("NCCL with sockets instead of NCCL with IB", True),
        ("TCP -> RoCE", False),
        ("btl tcp -> openib", False),
        ("disable TCP", False),
        ("x " * 150 + "the KV connector uses TCP instead of CUDA IPC", True),
    ],
)
def test_a_transport_change_runs_the_way_the_data_moved(change: str, backwards: bool) -> None:
    assert reading(change) == ("transport", backwards)


@pytest.mark.parametrize(
    ("toward", "either_way"),
    [
        ("TCP", False),
        ({"to": "IPC"}, False),
        ({"to": "IPC", "away": "TCP", "x": 1}, False),
        ({"to": "IPC", "away": "("}, False),
        ({"to": "", "away": "TCP"}, False),
        ({"to": "IPC", "away": "TCP"}, True),
    ],
)
def test_a_malformed_toward_is_refused_when_the_playbook_loads(
    toward: object, either_way: bool
) -> None:
    with pytest.raises(RuleError, match="toward"):
        load_rule(change="TCP", toward=toward, either_way=either_way)


def test_experiment_rules_says_which_way_a_transport_change_reads(cli: CLI) -> None:
    out = cli("experiment", "rules", "--playbook", "gpu-throughput@3").out
    assert "a change onto CUDA IPC, P2P, NVLink" in out
    assert "gloo is read backwards" in out


@pytest.mark.parametrize(
    ("change", "backwards"),
    [
        # the link raised: the rule's own A/B
        ("PCIe Gen3 -> Gen4", False),
        ("card reseated: x4 -> x16 link", False),
        ("PCIe 3.0 x4 -> PCIe 3.0 x16 slot", False),
        ("8 GT/s -> 16 GT/s", False),
        # the link lowered, a test of whether PCIe matters: the same A/B reversed (both
        # sides name a link, so they had read forwards)
        ("PCIe Gen4 -> Gen3", True),
        ("x16 link -> x8 link", True),
        ("PCIe 3.0 x16 -> PCIe 3.0 x4 slot", True),  # the width, where the generation is equal
        ("16GT/s -> 2.5GT/s", True),
        ("PCIe 4.0 -> 3.0", True),
        # a slot's number is no link's
        ("slot 3 -> slot 1", False),
    ],
)
def test_a_link_change_runs_the_way_the_link_moved(change: str, backwards: bool) -> None:
    assert reading(change) == ("pcie-link", backwards)


def test_number_in_needs_raises() -> None:
    with pytest.raises(RuleError, match="number_in"):
        load_rule(change="gen", number_in=r"gen\s*([1-6])")


@pytest.mark.parametrize(
    ("change", "backwards"),
    [
        # a batch, or the requests a server runs at once, set to one: its floor, so lowered
        ("batch size 1", True),
        ("--max-num-seqs 1", True),
        ("max_num_seqs=1", True),
        ("OLLAMA_NUM_PARALLEL=1", True),
        ("--parallel 1", True),
        # another value says nothing of the way it went; a move says it
        ("OLLAMA_NUM_PARALLEL=4", False),
        ("batch size 1 -> 16", False),
    ],
)
def test_a_batch_set_to_one_was_lowered(change: str, backwards: bool) -> None:
    assert reading(change) == ("batch-size", backwards)


@pytest.mark.parametrize("change", ["num_workers=1", "-ngl 1"])
def test_a_count_set_to_one_may_be_a_raise_from_none(change: str) -> None:
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.counts and not rule.undoes(change)


def test_mpiruns_process_count_is_no_batch() -> None:
    change = "mpirun -np 2 all_reduce_perf -b 32 -f 2 -e 8G"
    assert not any(r.id == "batch-size" and r.matches(change) for r in PLAYBOOK.experiments)


@pytest.mark.parametrize(
    ("change", "rule_id", "backwards"),
    [
        # both sides name a link, a container or a NUMA place: the kind decides the way
        ("PHB -> NV4 between the pair", "interconnect", False),
        ("NV4 between the pair -> PHB", "interconnect", True),  # had read forwards
        ("NVLink bridge removed", "interconnect", True),  # had read forwards
        ("without NVLink", "interconnect", True),
        ("NVLink disabled", "interconnect", True),
        ("NVLink bridge fitted", "interconnect", False),
        ("two containers -> one container with all GPUs", "container-gpus", False),
        ("one container with all GPUs -> two containers", "container-gpus", True),
        ("process on the other socket -> the GPU's own NUMA node", "numa-binding", False),
        ("process on the GPU's own NUMA node -> process on the other socket", "numa-binding", True),
        ("numactl --cpunodebind=0 -> no binding", "numa-binding", True),
        # a removal word beside another thing, or an exclusion taken out, is no removal
        ("Enable GET over CUDA IPC on GPU without NVLINK", "transport", False),
        ("Removed `UCX_TLS=^cuda_ipc` export from build script", "transport", False),
    ],
)
def test_a_move_between_kinds_runs_the_way_it_moved(
    change: str, rule_id: str, backwards: bool
) -> None:
    assert reading(change) == (rule_id, backwards)


def test_a_gloo_timeout_is_no_transport() -> None:
    change = "increase the gloo timeout to 3600 s"
    assert not any(r.id == "transport" and r.matches(change) for r in PLAYBOOK.experiments)


@pytest.mark.parametrize(
    ("change", "backwards"),
    [
        # a Jetson's named top mode against modes in watts or numbered lower
        ("nvpmodel 30W -> MAXN", False),
        ("nvpmodel MAXN -> 30W", True),  # had read forwards: both sides name a power mode
        ("sudo nvpmodel -m 0 -> -m 2", True),  # had read forwards: mode 0 is the top
        ("nvpmodel -m 2 -> -m 0", False),
        ("switched from MAXN to 15W", True),
        # limits in watts as before, and one-sided changes by their own words
        ("power limit 250 W -> 350 W", False),
        ("power limit 350 W -> 250 W", True),
        ("power limit raised to 450 W", False),
    ],
)
def test_a_power_mode_change_runs_the_way_the_power_moved(change: str, backwards: bool) -> None:
    assert reading(change) == ("power-limit", backwards)


@pytest.mark.parametrize(
    ("change", "rule_id", "backwards"),
    [
        # found by a second review: a raise from one is a raise
        ("increased batch from 1 to 16", "batch-size", False),
        ("raised OLLAMA_NUM_PARALLEL from 1 to 4", "batch-size", False),
        ("max_num_seqs from 1 to 256", "batch-size", False),
        # a switch's one and a mode's one are no floor
        ("DYNAMIC_BATCHING=1", "batch-size", False),
        ("--enable-dynamic-batching 1", "batch-size", False),
        ("nvpmodel -m 1", "power-limit", False),
        # a slot's or a card's number is no link's, beside a link that did not change
        ("x16 slot 2 -> x16 slot 1", "pcie-link", False),
        ("PCIe Gen4 x16 (RTX 4090) -> PCIe Gen4 x16 (RTX 3090)", "pcie-link", False),
        ("from Gen4 to Gen3", "pcie-link", True),
        ("downgraded PCIe from Gen4 to Gen3", "pcie-link", True),
        # a move's source is no target, and advice against a move is no move
        ("switched from TCP", "transport", False),
        ("moved off gloo", "transport", False),
        ("stop using gloo", "transport", False),
        ("don't use gloo", "transport", False),
        ("do not switch to TCP", "transport", False),
        ("never fall back to sockets", "transport", False),
        ("moved the process off the remote NUMA node", "numa-binding", False),
        # a mention is no state reached; a setting's value is, an excluded one the other way
        ("upgraded gloo", "transport", False),
        ("tuned TCP window size", "transport", False),
        ("init_method='tcp://127.0.0.1:29500'", "transport", False),
        ("GPUs connected via PHB", "interconnect", False),
        ("two containers", "container-gpus", False),
        ("tested with and without NVLink", "interconnect", False),
        ("UCX_TLS=^cuda_ipc", "transport", True),
        ("--mca btl tcp,self", "transport", True),
        ("use TCP", "transport", True),
        # found by a third review
        ("power limit 300 -> 450W", "power-limit", False),  # a unit on one side is no kind
        ("GPU power limit raised from 300 to 450W", "power-limit", False),
        ("power limit from 2.5 kW to 2.75 kW", "power-limit", False),
        ("use --max-num-seqs 1", "batch-size", True),
        ("--dynamic-batch-size 1", "batch-size", True),
        ("torchrun with gloo backend", "transport", True),
        ("split into separate containers", "container-gpus", True),
        ("bound to the remote NUMA node", "numa-binding", True),
        ("moved the pair off NVLink to PCIe", "interconnect", True),
        ("moved off MAXN to 15W", "power-limit", True),
        ("stopped using NVLink", "interconnect", True),
        ("nvpmodel mode 0 -> mode 2", "power-limit", True),
        ("power mode 25W -> MAXN_SUPER", "power-limit", False),
        ("changed PCIe from 4.0 to 3.0", "pcie-link", True),
        ("NVLink dropped packets fixed", "interconnect", False),
        ("dropped NVLink", "interconnect", True),
    ],
)
def test_what_a_second_review_found_reads_right(change: str, rule_id: str, backwards: bool) -> None:
    assert reading(change) == (rule_id, backwards)


@pytest.mark.parametrize(
    ("change", "backwards"),
    [
        ("NCCL_P2P_LEVEL=NVL -> PHB", False),
        ("NCCL_P2P_LEVEL=PHB -> NVL", True),  # had read backwards as its reverse did
        ("NCCL_P2P_LEVEL=PHB -> SYS", False),
        ("NCCL_P2P_LEVEL from NVL to SYS", False),
        ("NCCL_P2P_LEVEL=PIX instead of NCCL_P2P_LEVEL=SYS", True),
        # one level alone: only the ends say a way
        ("export NCCL_P2P_LEVEL=LOC", True),
        ("NCCL_P2P_LEVEL=SYS", False),
        ("NCCL_P2P_LEVEL=PHB", False),
    ],
)
def test_a_p2p_level_runs_the_way_the_level_moved(change: str, backwards: bool) -> None:
    assert reading(change) == ("p2p-level", backwards)


@pytest.mark.parametrize("order", [["LOC"], "LOC", ["LOC", ""], ["LOC", 1]])
def test_a_malformed_order_is_refused(order: object) -> None:
    with pytest.raises(RuleError, match="order"):
        toward_from({"order": order}, "test")
