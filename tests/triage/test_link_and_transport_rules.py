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
        # not gpu-offload: a part of the host's work moved onto the GPU
        ("sampling for the model moved from the CPU to the GPU", "host-work"),
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
        # two generations or more below under load: a quarter of the link, which a busy GPU
        # does not choose (rtx6kpro-pr-88's Gen2 of Gen5 at x16)
        ("far-below", "full", 15.0, None),
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
    if not later:  # the last rule: what it leaves is read by none, and is said so
        assert all(not r.matches(w) for r in PLAYBOOK.experiments for w in wordings(rule.unless))
        return
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


def _behind(**values: float) -> list[float]:
    """``pcie.link.gen.behind`` derived from one GPU's facts."""
    from casefile.domain.facts import Fact
    from casefile.domain.rules import LINK_GENERATIONS_BEHIND, derived_facts

    facts = [Fact(name.replace("_", "."), value, "gpu0") for name, value in values.items()]
    return [float(f.value) for f in derived_facts(facts) if f.name == LINK_GENERATIONS_BEHIND]  # type: ignore[arg-type]


def test_a_link_is_read_by_the_generations_it_lost_not_their_ratio() -> None:
    """Gen2 of Gen4 and Gen1 of Gen2 share a ratio (0.5), but one is a quarter of the link and
    the other half: the rule reads generations below the top."""
    assert _behind(pcie_link_gen_current=2, pcie_link_gen_max=4) == [2.0]
    assert _behind(pcie_link_gen_current=1, pcie_link_gen_max=2) == [1.0]
    assert _behind(pcie_link_gen_current=5, pcie_link_gen_max=5) == [0.0]


def test_the_host_maximum_does_not_hide_a_lost_generation() -> None:
    """nvidia-smi's Max is already the lower of the device's and the system's top; its Host
    Max is the root port's, which may sit behind a faster switch (smi-q/008: Max 4, Current 4,
    Host Max 3), so a link that fell below Max is read against Max."""
    assert _behind(pcie_link_gen_current=3, pcie_link_gen_max=4, pcie_link_gen_hostmax=3) == [1.0]
    assert _behind(pcie_link_gen_current=4, pcie_link_gen_max=4, pcie_link_gen_hostmax=3) == [0.0]


def test_a_looped_query_is_read_by_the_highest_generation_it_saw() -> None:
    """A looped query's means mix idle samples' Gen1 with busy ones' Gen4 (samples 1, 1, 4, 4
    at 0, 0, 100, 100 % mean 2.5 at 50 %): the link reached its top whenever the GPU worked."""
    looped = {
        "pcie_link_gen_current": 2.5,
        "pcie_link_gen_current_series_max": 4.0,
        "pcie_link_gen_max": 4,
        "utilization_gpu": 50.0,
        "utilization_gpu_series_max": 100.0,
    }
    assert _behind(**looped) == [0.0]
    never_busy = {
        **looped,
        "pcie_link_gen_current_series_max": 1.0,
        "utilization_gpu_series_max": 0.0,
    }
    assert _behind(**never_busy) == []
    assert _behind(pcie_link_gen_current=3.9, pcie_link_gen_max=4) == []  # a mean, no generation


def test_an_idle_gpu_in_a_loaded_reading_gives_no_low_generation() -> None:
    """A one-GPU job on an eight-GPU machine leaves seven idle links at Gen1 in a reading taken
    under load: an idle GPU's low generation is power saving, not a fault. At its top it is a
    link at its top, which power saving does not explain. The NVML sampler's mean utilisation
    hides a GPU busy in a few samples: its peak counts."""
    assert _behind(pcie_link_gen_current=1, pcie_link_gen_max=4, utilization_gpu=0) == []
    assert _behind(pcie_link_gen_current=4, pcie_link_gen_max=4, utilization_gpu=0) == [0.0]
    assert _behind(pcie_link_gen_current=2, pcie_link_gen_max=5, utilization_gpu=100) == [3.0]
    sampled = {"pcie_link_gen_current": 1, "pcie_link_gen_max": 5, "utilization_gpu": 4.0}
    assert _behind(**sampled, utilization_gpu_max=100.0) == [4.0]


def test_a_looped_query_without_times_gives_no_generation() -> None:
    """Without timestamps a looped query keeps means: Gen2 and Gen4 samples average to a whole
    3.0, which is no generation the link ran at."""
    looped = {"pcie_link_gen_current": 3.0, "pcie_link_gen_max": 4, "query_samples": 2}
    assert _behind(**looped) == []
    assert _behind(**{**looped, "query_samples": 1}) == [1.0]


@pytest.mark.parametrize(
    ("current", "load", "outcome"),
    [(2, "under-load", "far-below"), (4, "under-load", "reduced"), (5, "idle", "full")],
)
def test_the_link_speed_rule_grades_a_link_by_how_far_it_fell(
    current: int, load: str, outcome: str
) -> None:
    from casefile.domain.facts import Fact
    from casefile.domain.rules import Applied, SetAside, evaluate

    rule = next(r for r in PLAYBOOK.rules if r.id == "link-speed-at-max")
    facts = [
        Fact("pcie.link.gen.current", current, "gpu0"),
        Fact("pcie.link.gen.max", 5, "gpu0"),
        Fact("utilization.gpu", 100, "gpu0", "%"),
    ]
    verdict = evaluate(rule, facts, load)
    assert isinstance(verdict, Applied) and verdict.outcome == outcome
    low = evaluate(rule, [*facts[:1], *facts[1:2]], "idle") if current < 5 else None
    assert low is None or isinstance(low, SetAside)
