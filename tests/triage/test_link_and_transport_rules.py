"""The A/Bs of a PCIe link, of NVLink in place of PCIe, and of the transport inside a node.

Three leaves of gpu-throughput@3 had no experiment rule that tested their mechanism, so the
change that decided a thread (a card moved out of a slot wired PCIe 2.0 x4, the generation set
back in firmware, the provider's interconnect fixed, a connector that uses CUDA IPC instead of
falling back to TCP) was recorded and read by nothing. And an offload taken away ("no longer
offloaded to the GPU") was read as work moved onto the GPU.
"""

from __future__ import annotations

import json

import pytest
from casefile_gpu_playbook import PLAYBOOK

from casefile.domain.experiments import ExperimentRule
from casefile.domain.wordings import wordings
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log


def first_rule(change: str) -> str | None:
    """The rule of gpu-throughput@3 a change is read by (the first in file order)."""
    return next((r.id for r in PLAYBOOK.experiments if r.matches(change)), None)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("PCIe generation set back from Gen1 to PCIe 3.0 in the UEFI", "pcie-link"),
        ("GPU moved out of the slot that is wired PCIe 2.0 x4", "pcie-link"),
        ("riser cable replaced", "pcie-link"),
        ("reseated the second card", "pcie-link"),
        ("Above 4G decoding enabled in the BIOS", "numa-bios"),
        # the process bound to the GPU's own node (change 66): not a thread count or launcher
        ("numactl -m1 -N1 -> numactl -m0 -N0", "numa-binding"),
        ("numactl --cpunodebind=1 --membind=1 -> --cpunodebind=0 --membind=0", "numa-binding"),
        ("the benchmark process moved to the GPU's own socket", "numa-binding"),
        ("taskset -c 0-7", "host-threads"),
        ("numactl --physcpubind=0-7 python train.py", "launch-config"),
        # a version without a dotted number beside a named library (change 66)
        ("neosr with commit 2dcafe4 -> reverted to before 2dcafe4", "version"),
        ("git bisect: the commit before abc1234 -> that commit", "version"),
        ("NVIDIA driver 536 -> 546", "version"),
        ("batch 8 -> 16", "batch-size"),
        ("the provider fixed the interconnect: NVLink instead of PHB", "interconnect"),
        ("NVLink bridge fitted", "interconnect"),
        ("DDP with NVLink disabled (NCCL_P2P_DISABLE=1) -> DDP with NVLink", "p2p-disable"),
        ("NCCL_P2P_LEVEL=PHB", "p2p-level"),
        ("connector using CUDA IPC instead of the TCP fallback", "transport"),
        ("UCX_TLS=cuda_ipc,cuda_copy", "transport"),
        ("NCCL_SHM_DISABLE=1", "shm-disable"),
        ("-ngl 99", "gpu-offload"),
        ("33 layers offloaded to the GPU", "gpu-offload"),
        ("fewer host to device copies: weights no longer offloaded to the GPU", "host-sync"),
        ("expert weights not offloaded to the GPU for small batches", "batch-size"),
        # the model or job itself moved from the CPU (change 53); a part of the work moved
        # there stays with the rule of that part
        ("Whisper moved from the CPU onto the GPU", "gpu-offload"),
        ("the model moved from CPU to GPU", "gpu-offload"),
        ("moved the model from the CPU to the GPU", "gpu-offload"),
        ("--device cpu -> cuda", "gpu-offload"),
        ("--device cpu => cuda", "gpu-offload"),
        ("image decoding moved from the CPU to the GPU (DALI)", "data-pipeline"),
        ("image decoding for the model moved from the CPU to the GPU (DALI)", "data-pipeline"),
        ("the model's image decoding moved from the CPU to the GPU", "data-pipeline"),
        ("sampling for the model moved from the CPU to the GPU", None),  # not gpu-offload
        ("the model is no longer moved from the CPU to the GPU", None),
        # a power budget raised, and cooling improved, are two rules (change 54)
        ("power cap 500 W -> 1400 W", "power-limit"),
        ("nvidia-smi -pl 450", "power-limit"),
        ("Jetson power mode changed from 30 W to MAXN", "power-limit"),
        ("the card moved so its fans get air", "cooling"),
        ("heatsink cleaned and repasted", "cooling"),
        ("case fans set to full speed", "cooling"),
        # a debugging switch turned off (change 55)
        ("torch.autograd.set_detect_anomaly(True) removed", "debug-setting"),
        ("CUDA_LAUNCH_BLOCKING=1 unset", "debug-setting"),
        # a serving framework's own P2P all-reduce switched (change 57): see CUSTOM_ALL_REDUCE
        ("--disable-custom-all-reduce", "custom-allreduce-off"),
    ],
)
def test_each_change_is_read_by_the_rule_of_its_mechanism(change: str, rule: str | None) -> None:
    assert first_rule(change) == rule


@pytest.mark.parametrize(
    ("rule", "tested", "above"),
    [
        ("pcie-link", "link-degraded", ("pcie-bandwidth", "host-transfer", "consumer-no-p2p")),
        ("interconnect", "pcie-bandwidth", ("p2p-lost", "library-path", "over-split")),
        ("transport", "transport-fallback", ("p2p-policy", "acs-iommu", "internode-network")),
        ("power-limit", "power-cap", ("thermal-degradation",)),
        ("cooling", "thermal-degradation", ("power-cap",)),
        ("debug-setting", "misconfiguration", ("gpu-unused", "over-split", "host-cpu")),
    ],
)
def test_a_faster_run_speaks_most_for_the_mechanism_the_change_restores(
    rule: str, tested: str, above: tuple[str, ...]
) -> None:
    table = next(r for r in PLAYBOOK.experiments if r.id == rule).rule
    faster = {h: row["faster"] for h, row in table.likelihoods.items()}
    assert all(faster[tested] > faster[h] for h in above), faster
    assert faster[tested] >= 8 * table.otherwise["faster"]
    same = {h: row["same"] for h, row in table.likelihoods.items()}
    assert same[tested] < table.otherwise["same"] / 4  # no change speaks against it


def test_a_link_fixed_in_firmware_is_read_and_moves_the_case_toward_a_degraded_link(
    cli: CLI,
) -> None:
    assert cli("new", "SLI scales badly", "--id", "l1", "--playbook", "gpu-throughput@3").code == 0
    before = json.loads(cli("status", "l1", "--json").out)
    said = cli(
        "experiment", "l1", "--change", "PCIe generation in the UEFI set back from Gen1 to "
        "PCIe 3.0", "--outcome", "fixed", "--json",
    )  # fmt: skip
    assert said.code == 0, said.err
    assert json.loads(said.out)["rule"] == "experiment.pcie-link"
    verdict = log(cli, "l1")[-1]["payload"]
    assert verdict["outcome"] == "faster"  # type: ignore[index]
    after = json.loads(cli("status", "l1", "--json").out)

    def share(view: dict[str, object], hid: str) -> float:
        rows = view["hypotheses"]
        assert isinstance(rows, list)
        return float(next(h["confidence"] for h in rows if h["id"] == hid))

    assert share(after, "link-degraded") > 3 * share(before, "link-degraded")
    assert share(after, "compute-launch") < share(before, "compute-launch")


#: how people write the custom all-reduce switch, and how change 57's rule reads each: "off"
#: (the rule's own direction), "on" (its A/B read backwards), None (no change of the switch),
#: or the id of another rule that reads it
CUSTOM_ALL_REDUCE = [
    ("--disable-custom-all-reduce", "off"),
    ("disable_custom_all_reduce=True", "off"),
    ("disable_custom_all_reduce: true", "off"),
    ("disable_custom_all_reduce=False", None),  # the switch left on
    ("disable_custom_all_reduce False", None),
    ("--disable-custom-all-reduce false", None),
    ("disable_custom_all_reduce False -> True", "off"),
    ("disable_custom_all_reduce=False -> True (custom all-reduce over the NVLink pair)", "off"),
    ("disable_custom_all_reduce: false -> true", "off"),
    ("disable_custom_all_reduce=True -> False (custom all-reduce over the NVLink pair)", "on"),
    ("custom all-reduce on -> off over the NVLink pair", "off"),
    ("custom all-reduce enabled -> disabled", "off"),
    ("custom all-reduce off -> on", "on"),
    ("--disable-custom-all-reduce -> custom all-reduce on", "on"),
    ("custom allreduce disabled", "off"),
    ("disabled custom all-reduce", "off"),
    ("disabling custom all-reduce", "off"),
    ("custom AR off", "off"),
    ("custom_all_reduce=off", "off"),
    ("use_custom_all_reduce=False", "off"),  # TensorRT-LLM's spelling
    ("use_custom_all_reduce=True -> False", "off"),
    ("custom all-reduce on", None),
    ("custom architecture off", None),
    ("custom all-reduce over the NVLink pair", "interconnect"),
]


@pytest.mark.parametrize(("change", "read"), CUSTOM_ALL_REDUCE)
def test_the_custom_all_reduce_switch_is_read_the_way_it_was_turned(
    change: str, read: str | None
) -> None:
    rule = next(r for r in PLAYBOOK.experiments if r.id == "custom-allreduce-off")
    first = first_rule(change)
    if read in (None, "interconnect"):
        assert first == read
        return
    assert first == "custom-allreduce-off"
    assert rule.undoes(change) is (read == "on")


def test_the_custom_all_reduce_turned_back_on_and_faster_speaks_for_a_path_policy() -> None:
    """Turned back on and faster is the rule's "slower" (its A/B read backwards): the peer-to-
    peer path worked and what kept it off was the limit (p2p-policy), not a broken path (ACS,
    consumer cards), which turning it off speeds up instead."""
    table = next(r for r in PLAYBOOK.experiments if r.id == "custom-allreduce-off")
    slower = {h: row["slower"] for h, row in table.rule.likelihoods.items()}
    faster = {h: row["faster"] for h, row in table.rule.likelihoods.items()}
    assert max(slower, key=slower.__getitem__) == "p2p-policy"
    assert slower["p2p-policy"] >= 5 * table.rule.otherwise["slower"]
    assert max(faster, key=faster.__getitem__) == "acs-iommu"
    assert faster["consumer-no-p2p"] > faster["p2p-policy"]


def _link_rows(rule_id: str) -> tuple[dict[str, float], dict[str, float]]:
    """A link rule's row for link-degraded and its ``otherwise`` row, on version 3."""
    rule = next(r for r in PLAYBOOK.rules if r.id == rule_id)
    return rule.likelihoods["link-degraded"], rule.otherwise


@pytest.mark.parametrize(
    ("speed", "width", "at_least", "at_most"),
    [
        # the commonest degraded link: one dimension below its maximum, the other at it
        ("reduced", "full", 3.0, None),
        ("full", "narrowed", 3.0, None),
        ("reduced", "narrowed", 20.0, None),
        # a link at its top generation and width is no degraded link
        ("full", "full", None, 0.25),
    ],
)
def test_one_reading_of_a_link_weighs_as_what_a_degraded_link_is(
    speed: str, width: str, at_least: float | None, at_most: float | None
) -> None:
    """link-degraded is "speed *or* width below capability", and one reading feeds both rules,
    whose outcomes are multiplied as if independent. When each rule said most degraded links
    lost its own dimension (0.85 each), a link that lost only its generation (Gen2 of Gen5 at
    x16, the rtx6kpro-pr-88 incident) counted about 2x for link-degraded: the full width took
    back most of what the low generation gave. The rows now hold each dimension's own share
    of degraded links, so one dimension down is telling and both at maximum still clears."""
    speed_row, speed_other = _link_rows("link-speed-at-max")
    width_row, width_other = _link_rows("link-width-at-max")
    ratio = (speed_row[speed] * width_row[width]) / (speed_other[speed] * width_other[width])
    if at_least is not None:
        assert ratio >= at_least
    if at_most is not None:
        assert ratio <= at_most


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        # cosmos-framework-pr-150: the copy is the change's subject; "storage" is the tensor's
        (
            "each checkpoint tensor materialised into anonymous host memory (clone) before the "
            "host to device copy, instead of copying from the mmap-backed safetensors storage",
            "host-sync",
        ),
        ("pinned staging buffer for the H2D copies of the dataset storage", "host-sync"),
        ("[CUDA memcpy HtoD] from the mmap-backed storage replaced by a pinned copy", "host-sync"),
        ("device to host copy of the augmented images removed from the loader", "host-sync"),
        ("prefetch of the next batch replaced by one D2H copy per epoch", "host-sync"),
        # what data-pipeline reads without naming the copy stays data-pipeline's
        ("dataset moved from HDD to NVMe storage", "data-pipeline"),
        ("num_workers 8, pin_memory", "data-pipeline"),
        ("JPEG decoding moved to DALI", "data-pipeline"),
    ],
)
def test_a_change_that_names_the_host_device_copy_is_that_copys(change: str, rule: str) -> None:
    assert first_rule(change) == rule


def test_experiment_rules_say_what_leaves_a_change_to_a_later_rule(cli: CLI) -> None:
    text = cli("experiment", "rules", "--playbook", "gpu-throughput@3").out
    block = text.split("experiment.data-pipeline ", 1)[1].split("\nexperiment.", 1)[0]
    assert (
        "  unless:  host to device / device to host / H2D / D2H / HtoD / DtoH "
        "(left to a later rule)"
    ) in block
    shown = json.loads(cli("experiment", "rules", "--playbook", "gpu-throughput@3", "--json").out)
    unless = {rule["id"]: rule["unless"] for rule in shown}
    assert unless["experiment.data-pipeline"] == [
        "host to device", "device to host", "H2D", "D2H", "HtoD", "DtoH"
    ]  # fmt: skip
    assert unless["experiment.host-sync"] == []


def test_unless_decides_which_rule_reads_a_change_not_which_side_holds_it() -> None:
    """Named with ``--rule``, data-pipeline reads "num_workers 0 -> num_workers 8 with H2D
    prefetch" as the workers raised: its ``unless`` (the H2D copy named) must not make the
    after side look as if it no longer held the setting, which read the A/B backwards."""
    rule = next(r for r in PLAYBOOK.experiments if r.id == "data-pipeline")
    assert not rule.matches("num_workers 0 -> num_workers 8 with H2D prefetch")
    assert not rule.undoes("num_workers 0 -> num_workers 8 with H2D prefetch")
    assert not rule.undoes("num_workers 0 -> num_workers 8")


@pytest.mark.parametrize("rule", [r for r in PLAYBOOK.experiments if r.unless], ids=lambda r: r.id)
def test_what_a_rule_leaves_to_later_rules_a_later_rule_reads(rule: ExperimentRule) -> None:
    """ "Left to a later rule" (what ``experiment rules`` says of an ``unless``) must be so:
    each wording it names is read by a rule after it, or the change is read by none."""
    later = PLAYBOOK.experiments[PLAYBOOK.experiments.index(rule) + 1 :]
    for wording in wordings(rule.unless):
        assert any(r.matches(wording) for r in later), wording


@pytest.mark.parametrize(
    "change",
    [
        "NCCL_GRAPH_FILE removed from the test scripts (NCCL builds its own graph)",
        "NCCL_TOPO_FILE=/opt/topo/ndv4-topo.xml",
        "NCCL_MIN_NCHANNELS=32",
        "NCCL_BUFFSIZE=8388608 -> default",
        "export NCCL_MAX_NCHANNELS=4",
    ],
)
def test_an_nccl_override_is_read_either_way(change: str) -> None:
    """Topology, graph, channel and buffer overrides (change 89): a removed override that
    restores speed supports a setting that worked against the hardware, and so does one set;
    neither is read backwards."""
    assert first_rule(change) == "nccl-override"
    rule = next(r for r in PLAYBOOK.experiments if r.id == "nccl-override")
    assert not rule.undoes(change)
    faster = rule.rule.row("misconfiguration")["faster"]
    assert faster > 4 * rule.rule.row("host-side")["faster"]
    # the algorithm's rule is directional: a forced algorithm dropped reads the other way
    algorithm = next(r for r in PLAYBOOK.experiments if r.id == "algorithm")
    assert algorithm.undoes("NCCL_ALGO=Tree -> default")


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == "transport"
    assert rule.undoes(change) is backwards


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
    from casefile.domain.experiments import experiment_from_dict
    from casefile.errors import RuleError

    raw = {
        "id": "t", "version": 1, "title": "t", "change": "TCP", "probes": ["command"],
        "metric": ["throughput"], "noise": 0.1, "noise_why": "spread",
        "likelihoods": {"otherwise": {"faster": 0.1, "same": 0.8, "slower": 0.1}},
        "rationale": "why", "toward": toward, "either_way": either_way,
    }  # fmt: skip
    known = {h.id for h in PLAYBOOK.hypotheses}
    with pytest.raises(RuleError, match="toward"):
        experiment_from_dict(raw, "throughput", known, "test")


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == "pcie-link"
    assert rule.undoes(change) is backwards


def test_number_in_needs_raises() -> None:
    from casefile.domain.experiments import experiment_from_dict
    from casefile.errors import RuleError

    raw = {
        "id": "t", "version": 1, "title": "t", "change": "gen", "probes": ["command"],
        "metric": ["throughput"], "noise": 0.1, "noise_why": "spread",
        "likelihoods": {"otherwise": {"faster": 0.1, "same": 0.8, "slower": 0.1}},
        "rationale": "why", "number_in": r"gen\s*([1-6])",
    }  # fmt: skip
    known = {h.id for h in PLAYBOOK.hypotheses}
    with pytest.raises(RuleError, match="number_in"):
        experiment_from_dict(raw, "throughput", known, "test")


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == "batch-size"
    assert rule.undoes(change) is backwards


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == rule_id
    assert rule.undoes(change) is backwards


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == "power-limit"
    assert rule.undoes(change) is backwards


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == rule_id
    assert rule.undoes(change) is backwards


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
    rule = next(r for r in PLAYBOOK.experiments if r.matches(change))
    assert rule.id == "p2p-level"
    assert rule.undoes(change) is backwards


@pytest.mark.parametrize("order", [["LOC"], "LOC", ["LOC", ""], ["LOC", 1]])
def test_a_malformed_order_is_refused(order: object) -> None:
    from casefile.domain.change_toward import toward_from
    from casefile.errors import RuleError

    with pytest.raises(RuleError, match="order"):
        toward_from({"order": order}, "test")
