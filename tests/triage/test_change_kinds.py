"""Ways of writing a change that the fresh public wordings (change 127) showed the readers
missing, each read as a kind and not as one sentence: a value "instead of" another, a count
set "to 0", a limit set to a share of itself, P2P enabled in words. Beside each, the near
misses it must leave alone, among them those a review found ("left low power mode", "so
that P2P is allowed", results and lists "instead of" others)."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain.change_arrow import instead_of, sides
from casefile.domain.change_forms import change_readings, said_raised, set_to_zero, stated_state
from casefile.domain.version_direction import direction
from tests.triage.test_wording_breadth import _reading

RULES = {rule.id: rule for rule in PLAYBOOK_V3.experiments}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("save around 100W (285 instead of 385)", "save around 100W (385 -> 285)"),
        ("I set kvstore = 'local' instead of 'device'", "I set kvstore = 'device' -> 'local'"),
        ("batch 64 instead of 8", "batch 8 -> 64"),
        ("power 300 W instead of 450 W", "power 450 W -> 300 W"),
        ("the limit to 250W instead of 350W.", "the limit to 350W -> 250W."),
        ("nccl 2.18.1 instead of 2.19.3", "nccl 2.19.3 -> 2.18.1"),
        # results and lists are no values set
        ("bus bandwidth is 12 GB instead of 20 GB", "bus bandwidth is 12 GB instead of 20 GB"),
        ("clocks at 1400 MHz instead of 1980 MHz", "clocks at 1400 MHz instead of 1980 MHz"),
        ("ran on devices 0,1 instead of 0,1,2,3", "ran on devices 0,1 instead of 0,1,2,3"),
        # words on either side are no values: which one a rule names says nothing of the order
        ("using NICs instead of SHM", "using NICs instead of SHM"),
        ("NCCL instead of gloo", "NCCL instead of gloo"),
        # an arrow already says the order
        ("8 -> 16 instead of 32", "8 -> 16 instead of 32"),
    ],
)
def test_a_value_instead_of_another_is_an_arrow(text: str, expected: str) -> None:
    assert instead_of(text) == expected


def test_instead_of_splits_a_change_into_its_sides() -> None:
    assert sides("power limit 285 instead of 385") == ("power limit 385", "285")


@pytest.mark.parametrize(
    ("change", "backwards"),
    [
        ("power limit 285 W instead of 385 W", True),
        ("power limit 385 W instead of 285 W", False),
    ],
)
def test_a_limit_instead_of_another_runs_its_way(change: str, backwards: bool) -> None:
    assert RULES["power-limit"].undoes(change) is backwards


@pytest.mark.parametrize(
    ("change", "zero"),
    [
        ("I have set num_workers to 0", True),
        ("num_workers=0", True),
        ("set num_workers to 0.5", False),
        ("set num_workers to 04", False),
        ("set --seed to 0", False),  # another setting's zero
    ],
)
def test_a_count_set_to_zero_in_words(change: str, zero: bool) -> None:
    assert set_to_zero(change, "workers") is zero


@pytest.mark.parametrize(
    ("change", "up"),
    [
        ("When I set power limit to about 60%", False),
        # "low" and "high" say nothing: the verbs around them decide ("left low power mode")
        ("when you run it in low power mode", None),
        ("left low power mode", None),
        ("power limit to 110 %", True),
        ("power limit to 100%", None),
        # a share of something else, or a low word beside another name
        ("power limit 250 W, fans to 60%", None),
        ("low latency mode, power limit unchanged", None),
    ],
)
def test_a_limit_set_low_or_to_a_share(change: str, up: bool | None) -> None:
    assert said_raised(change, r"power.?(limit|mode)") is up


@pytest.mark.parametrize(
    ("change", "state"),
    [
        ("After the 4090 four card P2P was enabled", "on"),
        ("NCCL_P2P_DISABLE=1", "off"),
        ("NCCL_P2P_DISABLE=0", "on"),
        ("disable P2P", "off"),
    ],
)
def test_p2p_allowed_or_enabled_in_words(change: str, state: str) -> None:
    rule = RULES["p2p-disable"]
    assert stated_state(change, rule._names_any) == state
    assert rule.undoes(change) is (state == "on")


@pytest.mark.parametrize("change", ["p2p.enabled", "nccl.p2p.enabled.max", "p2p-enabled-gain"])
def test_a_name_that_says_enabled_is_no_p2p_turned_on(change: str) -> None:
    """Fact names ("p2p.unidir_bw.enabled") hold "P2P" and "enabled" a dot apart: P2P turned on
    is read only from words ("P2P was enabled")."""
    assert _reading(change) == (None, False)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("we tried forcing the tree algorithm with NCCL_ALGO", "algorithm"),
        ("the ring algorithm", "algorithm"),
        ("Pin each worker to the NUMA node of its GPU", "numa-binding"),
        ("slow after 2 hours of training", "heat-soak"),
        ("Back to v0.3.11 for the build", "version"),
        ("now my rig is opened", "cooling"),
        ("two blower cards", "cooling"),
        ("by setting CUDA_DEVICE_ORDER=PCI_BUS_ID", "visible-devices"),
        ("using only devices 0,1,6,7", "visible-devices"),
        # a parallel layout over a list of devices is the layout's change, not which GPUs it sees
        ("tensor parallel across devices 0,1", "launch-config"),
        ("TP=2 on devices 0,1 -> TP=1 on device 0", "launch-config"),
        ("CUDA_VISIBLE_DEVICES=0,1 with tensor parallel 2", "visible-devices"),
        ("After removing the item function", "host-sync"),
        ("`CMAKE_ARGS=-DGGML_CUDA=on`", "gpu-offload"),
        ("cmake -B build -DGGML_CUDA=ON", "gpu-offload"),
        # near misses
        ("after 20 minutes", None),
        ("reran after an hour of cooldown", None),
        ("-DGGML_CUDA=OFF", None),
        ("rebuilt without GGML_CUDA", None),
        ("NVLink bridge installed, logging enabled", "interconnect"),
        ("case.opened", None),
        ("disable nvlink related metrics", None),
        ("the algorithm is documented", None),
    ],
)
def test_kinds_of_wording_each_rule_reads(change: str, rule: str | None) -> None:
    assert _reading(change)[0] == rule


def test_adding_a_setting_is_not_turning_its_thing_on() -> None:
    """ "added iommu=pt" turns translation off, "add no_cuda_launch_blocking" a debug check
    off: "add" says nothing of which way, so it is not read as enabling."""
    assert not RULES["iommu-acs-off"].undoes("added iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT")
    assert not RULES["debug-setting"].undoes("add no_cuda_launch_blocking")


@pytest.mark.parametrize(
    ("change", "reading"),
    [
        ("ACS turned off in BIOS so that P2P is allowed", ("iommu-acs-off", False)),
        ("iommu=pt, which allows P2P to work", ("iommu-acs-off", False)),
        ("set_detect_anomaly(False) to allow faster training", ("debug-setting", False)),
        ("NCCL_SHM_DISABLE=1, P2P enabled", ("shm-disable", False)),
        ("NCCL_IB_DISABLE=1 with P2P enabled", ("network-path", False)),
        ("enabled P2P via NCCL_P2P_LEVEL=PHB", ("p2p-level", False)),
        ("left low power mode", ("power-limit", False)),
        ("exited the low power mode", ("power-limit", False)),
        ("I set the power limit to 250W instead of 350W.", ("power-limit", True)),
        ("NCCL_P2P_DISABLE=1: bus bandwidth 12 GB instead of 20 GB", ("p2p-disable", False)),
    ],
)  # fmt: skip
def test_what_a_review_found_read_the_wrong_way(change: str, reading: tuple[str, bool]) -> None:
    """Each was read the other way round, or by p2p-disable, by a first draft of change 129."""
    assert _reading(change) == reading


@pytest.mark.parametrize(
    ("change", "reading"),
    [
        ("NCCL_LL128_THRESHOLD=0", ("algorithm", False)),
        ("the RCCL channels for allreduce were raised to 32", ("nccl-override", False)),
        ("NCCL channels 16 -> 32", ("nccl-override", False)),
        ("a larger NCCL buffsize", ("nccl-override", False)),
        ("custom all-reduce kernels are disabled", ("custom-allreduce-off", False)),
        ("disabling `use_custom_all_reduce`", ("custom-allreduce-off", False)),
        ("installed libibverbs and rdma-core", ("network-path", False)),
        ("PCIe at version 3.0 now", ("pcie-link", False)),
        ("echo 0 > /proc/sys/kernel/numa_balancing", ("numa-bios", False)),
        ("restrict the CPUs of each GPU to its NUMA node", ("numa-binding", False)),
        ("run whisper on cuda instead of cpu", ("gpu-offload", False)),
        ("use only the one GPU", ("fewer-gpus", False)),
        ("pin the decoder threads to cores 0-7", ("host-threads", False)),
        ('mode="reduce-overhead"', ("cuda-graphs", False)),
        ("try an older version of the driver", ("version", False)),
        ("we downgraded and it was fast again", ("version", False)),
        ("reverting the torch upgrade", ("version", False)),
        ("ran until the GPU reached thermal equilibrium", ("heat-soak", False)),
        ("copied the dataset to /dev/shm", ("data-pipeline", False)),
        ("increased /dev/shm to 16 GB", ("launch-config", False)),
        ("enable iommu=pt", ("iommu-acs-off", False)),
        ("iommu=pt, no other change", ("iommu-acs-off", False)),
        ("2.NCCL_P2P_DISABLE=Enabled", ("p2p-disable", False)),
        # near misses: what those readings must leave alone (a review found each taken)
        ("3 input channels for the model", (None, False)),
        ("RGB channels -> grayscale, DDP with NCCL", (None, False)),
        ("audio channels 2 -> 1 for the NCCL backend", (None, False)),
        ("iperf buffsize 128K -> 1M", (None, False)),
        ("the video decoder's buffsize 4M -> 16M", ("data-pipeline", False)),
        ("with CUDA graphs disabled, custom all-reduce left on", ("cuda-graphs", True)),
        ("A100 PCIe NCCL version 2.18.3 -> 2.19.3", ("version", False)),
        ("H100 PCIe torch version 2.1 -> 2.3", ("version", False)),
        ("power_dpm_force_performance_level auto -> high", (None, False)),
        ("image decoding on GPU instead of CPU", ("data-pipeline", False)),
        ("not cuda instead of cpu", (None, False)),
        ("increased batch size to reduce overhead", ("batch-size", False)),
        ("enabled ACS on the bridges, iommu=pt kept", ("iommu-acs-off", True)),
        ("enabled IOMMU instead of iommu=pt", ("iommu-acs-off", True)),
        ("moved the TP=2 job from devices 0,1 to devices 2,3", ("visible-devices", False)),
        ("MLNX_OFED 5.8 -> 23.10", ("version", False)),
        ("libibverbs not found warning", (None, False)),
        ("FAN_MODE=quiet", (None, False)),
        ("assigning IRQs to NUMA node 0", (None, False)),
        ("we downgraded to 4 GPUs", (None, False)),
        ("we downgraded the model from 70B to 8B", (None, False)),
        ("we downgraded to fp16", (None, False)),
        ("try an older version of the dataset", (None, False)),
        ("revert the config update", (None, False)),
        ("Speed 8GT/s (downgraded), Width x8", ("pcie-link", False)),
        ("pcie.link.width.downgraded", (None, False)),
        ("the link downgraded to x8 after a reboot", (None, False)),
        ("enable iommu", ("iommu-acs-off", True)),
    ],
)  # fmt: skip
def test_kinds_the_second_fresh_round_showed(change: str, reading: tuple[str, bool]) -> None:
    """Kinds of wording the second round's 120 fresh ones were misread by; each is read the
    way its kind should be, and the neighbours the widening could have taken (those a review
    found taken by its first draft among them) are not."""
    assert _reading(change) == reading


@pytest.mark.parametrize(
    ("change", "way"),
    [
        ("try an older version of the driver", "back"),
        ("an earlier release of NCCL", "back"),
        ("undo the driver update", "back"),
        ("upgraded from the previous release 0.6.8 to 0.7.0", "forward"),
        ("upgrade to 2.3", "forward"),
    ],
)
def test_an_older_version_is_a_version_back(change: str, way: str) -> None:
    """In a case whose trouble followed an upgrade, "try an older version of the driver" that
    comes out faster blames the upgrade: the variant is the earlier version."""
    assert direction(change_readings(change)) == way


@pytest.mark.parametrize(
    ("change", "reading"),
    [
        ("removed torch.compile", ("cuda-graphs", True)),
        ("torch.compile removed", ("cuda-graphs", True)),
        ("without CUDA graphs", ("cuda-graphs", True)),
        ('removed mode="reduce-overhead"', ("cuda-graphs", True)),
        ("torch.compile", ("cuda-graphs", False)),
        ("CUDA graphs only for decode", ("cuda-graphs", False)),
        ("--enforce-eager removed", ("cuda-graphs", False)),
        ("12.0 s per step before CUDA graphs, 6.0 s after: not a slowdown", ("cuda-graphs", False)),
        ("removed .item() and used torch.compile", ("host-sync", False)),
    ],
)  # fmt: skip
def test_the_on_state_taken_away_is_the_off_state(change: str, reading: tuple[str, bool]) -> None:
    """Taking away what turns CUDA graphs on runs the A/B backwards; it had read forwards, as
    if "removed torch.compile" had turned graphs on. Another rule's thing beside it (the
    .item() calls removed) and a "not" in another clause say nothing of it."""
    assert _reading(change) == reading


@pytest.mark.parametrize(
    ("change", "reading"),
    [
        ("--xla_gpu_cuda_graph_level=0", ("cuda-graphs", True)),
        ("pin_memory=0", ("host-sync", True)),
        ("Automatically set `NCCL_SOCKET_IFNAME` to prefer ethernet.", ("network-path", False)),
        ("NCCL_SOCKET_NTHREADS=4", ("network-path", False)),
        ("moved from ethernet to InfiniBand", ("network-path", False)),
        ("Disable NCCL_NVLS by default", ("algorithm", False)),
        ("force NCCL to use only one channel", ("nccl-override", False)),
        ("rollback your nvidia driver back to 531.xx", ("version", False)),
        ("Set torch num threads to 2 instead of autodetect", ("host-threads", False)),
        ("use_cuda=True", ("gpu-offload", False)),
        ("enabling GPU acceleration in the settings", ("gpu-offload", False)),
        ("采用单卡推理", ("fewer-gpus", False)),
        ("NVreg_EnableResizableBar=1", ("numa-bios", False)),
        # near misses
        ("num_workers=0", ("data-pipeline", True)),
        # a count's 1 is no switch; a batch's 1 is its floor, so it was lowered
        ("max_num_seqs=1", ("batch-size", True)),
        ("Changing gpu_memory_utilization from 0.9 to 0.95", (None, False)),
        ("dropout_rate from 0.1 to 0.2", (None, False)),
        ("vllm from 0.4.2 to 0.5.0", ("version", False)),
        ("nccl.env.NCCL_IB_HCA", (None, False)),
        ("more llama.cpp server slots", (None, False)),
        ("moved the GPU to the second slot", ("pcie-link", False)),
        ("resized images to 224 on the GPU", ("data-pipeline", False)),
        ("Add /dev/shm tmpfs mount to workflow pods", ("launch-config", False)),
        ("data on a tmpfs", ("data-pipeline", False)),
        ("num_threads of the data loader to 8", ("data-pipeline", False)),
        ("单机单卡换成8卡", (None, False)),
    ],
)  # fmt: skip
def test_kinds_the_third_fresh_round_showed(change: str, reading: tuple[str, bool]) -> None:
    """Kinds of wording the third round's 86 fresh ones were misread by (a flag's 0 or 1 in
    lower case, NCCL's socket settings named alone, a driver version written 531.xx, a library's
    thread count, a setting's fraction that is no version, Resizable BAR, llama.cpp's slots),
    with the neighbours each widening must leave alone."""
    assert _reading(change) == reading
