"""An A/B whose change takes away what its rule reads ("NCCL_P2P_DISABLE=1 -> NVLink on") is
the rule's A/B run backwards: a faster variant reads as the rule's "slower"."""

from __future__ import annotations

import json

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from tests.cli.conftest import CLI
from tests.triage.test_experiments import log


def rule(rule_id: str):  # type: ignore[no-untyped-def]
    return next(r for r in PLAYBOOK_V3.experiments if r.id == rule_id)


@pytest.mark.parametrize(
    ("rule_id", "change", "undone"),
    [
        ("p2p-disable", "DDP with NVLink disabled (NCCL_P2P_DISABLE=1) -> DDP with NVLink", True),
        ("p2p-disable", "NCCL_P2P_DISABLE=1", False),
        ("p2p-disable", "P2P on -> NCCL_P2P_DISABLE=1", False),
        ("cuda-graphs", "eager -> CUDA graph at batch size 1", False),
        ("cuda-graphs", "CUDA graphs → eager (--enforce-eager)", True),
        ("container-gpus", "two containers with two GPUs each -> one container", False),
        ("power-limit", "power cap 500 W -> 1400 W", False),
        ("batch-size", "batch size 1 -> 16", False),
        ("batch-size", "concurrent requests 1 -> 64", False),
        ("p2p-disable", "NCCL_P2P_DISABLE=1 -> NCCL_P2P_DISABLE=0", True),
        # a count taken down, or set to zero with no arrow: loader workers, offloaded layers
        ("data-pipeline", "num_workers 8 -> 0", True),
        ("data-pipeline", "dataloader workers 16 -> 2", True),
        ("data-pipeline", "--num-workers 0 -> 16", False),
        ("data-pipeline", "num_workers=0", True),
        ("data-pipeline", "num_workers: 0", True),
        ("data-pipeline", "num_workers=4", False),
        ("data-pipeline", "prefetch_factor 4 -> 1", True),
        # the size an image is resized to is no count of workers
        ("data-pipeline", "resize 512 -> 256", False),
        ("data-pipeline", "HDD -> NVMe", False),
        ("gpu-offload", "-ngl 99 -> -ngl 0", True),
        ("gpu-offload", "-ngl 0 -> -ngl 99", False),
        ("gpu-offload", "-ngl 0", True),
        ("gpu-offload", "--n-gpu-layers 0", True),
        ("gpu-offload", "num_gpu 0", True),
        # none of the counted thing
        ("gpu-offload", "Without -ngl", True),
        ("data-pipeline", "without dataloader workers", True),
        # "no" near the count is no "none" ("no layers left on the CPU" is all on the GPU)
        ("gpu-offload", "-ngl 99, no layers left on the CPU", False),
        ("data-pipeline", "dataset moved to NVMe, no change in workers", False),
        # another setting's zero is not the count's
        ("gpu-offload", "all layers offloaded to the GPU, --temp 0", False),
        ("gpu-offload", "layers offloaded to the GPU with --main-gpu 0", False),
        ("data-pipeline", "num_workers increased, --seed 0", False),
        # a direction word about something else says nothing of the number
        ("data-pipeline", "num_workers=16 reduced the data loading time", False),
        ("batch-size", "batch size 64 for lower latency", False),
        ("power-limit", "nvpmodel -m 0 (MAXN) for lower latency", False),
        ("gpu-offload", "-ngl 33 with lower context", False),
        # a setting the rule does not read, and a take-away word in another clause
        ("host-sync", "pin_memory=True, removed the per-step .item() calls", False),
        ("host-sync", "pin_memory=True, no other changes", False),
        ("host-sync", "non_blocking copies, shuffle=False", False),
        ("cuda-graphs", "cuda_graph=True, without --enforce-eager", False),
        ("custom-allreduce-off", "--disable-custom-all-reduce, use_v2_block_manager=True", False),
        ("host-sync", "removes the forced pin_memory=True", True),
        ("data-pipeline", "without DALI", False),
        ("gpu-offload", "-ngl 99 without flash attention", False),
        # with no arrow, words that say which way the number went
        ("power-limit", "set a lower power/temp limit", True),
        ("power-limit", "power limit raised", False),
        ("batch-size", "reduced batch size", True),
        ("batch-size", "a larger batch", False),
        ("data-pipeline", "more loader workers", False),
        ("data-pipeline", "fewer loader workers", True),
        ("gpu-offload", "fewer layers offloaded to the GPU", True),
        # "from OLD to NEW" and "to NEW from OLD" with no arrow
        ("power-limit", "power limit from 390 W to 230 W", True),
        ("power-limit", "was set to 230.00 W from 390.00 W", True),
        ("batch-size", "batch size from 8 to 32", False),
        ("batch-size", "batch size changed to 8 from 32", True),
        # an environment variable's 1 or 0 is a switch; opt-in turns its thing on
        ("custom-allreduce-off", "SGLANG_CUSTOM_AR_ALLOW_PCIE=1", True),
        ("custom-allreduce-off", "opt-in custom all-reduce", True),
        ("custom-allreduce-off", "disable_fast_allreduce=True", False),
        # a device's index is not a count of layers
        ("gpu-offload", "--device cuda:0", False),
        ("gpu-offload", "layers offloaded to GPU 0", False),
        # zero names a mode here, not a limit taken away (Jetson's nvpmodel 0 is MAXN)
        ("power-limit", "sudo nvpmodel -m 0", False),
        # a setting given a switch word with no arrow: the state it leaves
        ("host-sync", "pin_memory=False", True),
        ("host-sync", '"pin_memory": false', True),
        ("host-sync", "pin_memory=True", False),
        ("host-sync", "non_blocking=False", True),
        ("cuda-graphs", "enable_cuda_graph=False", True),
        ("cuda-graphs", "use_cuda_graph: true", False),
        # P2P's disabling set to 0, unset or taken away: P2P back on, the A/B reversed, and
        # the same with both sides naming the variable
        ("p2p-disable", "NCCL_P2P_DISABLE=0", True),
        ("p2p-disable", "unset NCCL_P2P_DISABLE", True),
        ("p2p-disable", "NCCL_P2P_DISABLE removed", True),
        ("p2p-disable", "NCCL_P2P_DISABLE=0 -> NCCL_P2P_DISABLE=1", False),
        # the short forms: a bare value after the arrow is the before side's setting's, and
        # a "disable" in a name is no off state whatever its value (0 -> 1 turns P2P off)
        ("p2p-disable", "NCCL_P2P_DISABLE=0 -> 1", False),
        ("p2p-disable", "NCCL_P2P_DISABLE=1 -> 0", True),
        ("p2p-disable", "NCCL_P2P_DISABLE unset -> 1", False),
        ("p2p-disable", "NCCL_P2P_DISABLE from 1 to 0", True),
        ("p2p-disable", "NCCL_P2P_DISABLE from 0 to 1", False),
        ("p2p-disable", "env -u NCCL_P2P_DISABLE", True),
    ],
)
def test_a_change_undoes_a_rule_when_only_its_before_side_is_what_the_rule_reads(
    rule_id: str, change: str, undone: bool
) -> None:
    assert rule(rule_id).matches(change)
    assert rule(rule_id).undoes(change) is undone


@pytest.fixture
def case(cli: CLI) -> str:
    new = cli(
        "new", "DDP no faster on 2 GPUs", "--id", "u1", "--playbook", "gpu-throughput@3",
        "--env", "gpus=2x A100",
    )  # fmt: skip
    assert new.code == 0, new.err
    return "u1"


def test_a_figure_for_an_undone_setting_is_read_the_other_way_round(cli: CLI, case: str) -> None:
    recorded = cli(
        "experiment", case, "--change", "NCCL_P2P_DISABLE=1 -> P2P and NVLink back on",
        "--reported", "10:20", "--probe", "app-log", "--unit", "samples/s", "--json",
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    verdict = log(cli, case)[-1]["payload"]
    assert verdict["rule"]["id"] == "experiment.p2p-disable"  # type: ignore[index]
    assert verdict["outcome"] == "slower"  # type: ignore[index]
    assert verdict["statistic"] == 2.0  # type: ignore[index]  # the figures as measured
    assert "read the other way round" in verdict["rationale"]  # type: ignore[index]
    slower = rule("p2p-disable").rule.likelihoods["acs-iommu"]["slower"]
    assert verdict["likelihoods"]["acs-iommu"] == slower  # type: ignore[index]
    assert json.loads(recorded.out)["outcome"] == "slower"


def test_an_outcome_in_words_for_an_undone_setting_is_read_the_other_way_round(
    cli: CLI, case: str
) -> None:
    said = cli(
        "experiment", case, "--change", "NCCL_P2P_DISABLE=1 -> without it", "--outcome",
        "fixed", "--note", "removing it fixed the speed",
    )  # fmt: skip
    assert said.code == 0, said.err
    verdict = log(cli, case)[-1]["payload"]
    assert verdict["outcome"] == "slower"  # type: ignore[index]
    assert "read the other way round" in verdict["rationale"]  # type: ignore[index]


def test_a_change_that_does_what_the_rule_reads_is_read_as_written(cli: CLI, case: str) -> None:
    said = cli(
        "experiment", case, "--change", "NVLink on -> NCCL_P2P_DISABLE=1", "--outcome", "fixed",
        "--note", "n",
    )  # fmt: skip
    assert said.code == 0, said.err
    verdict = log(cli, case)[-1]["payload"]
    assert verdict["outcome"] == "faster"  # type: ignore[index]
    assert "other way round" not in verdict["rationale"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("change", "undone"),
    [
        ("fresh (cool) GPU against the same run after about an hour at full load", False),
        ("heat-soaked after ~3.5 min continuous decode -> cold start", True),
        ("steady state at 90 C", False),
    ],
)
def test_a_heat_soak_is_its_own_a_b_and_the_hot_run_is_the_variant(
    change: str, undone: bool
) -> None:
    first = next(r for r in PLAYBOOK_V3.experiments if r.matches(change))
    assert first.id == "heat-soak"
    assert first.undoes(change) is undone
    thermal = first.rule.likelihoods["thermal-degradation"]
    assert thermal["slower"] > 0.8 and first.rule.otherwise["slower"] < 0.2


def test_a_power_cap_change_is_not_a_heat_soak() -> None:
    change = "power cap 500 W -> 1400 W"
    assert next(r for r in PLAYBOOK_V3.experiments if r.matches(change)).id == "power-limit"


@pytest.mark.parametrize(
    "change",
    [
        "srun --gpus-per-task 1 (each rank sees one GPU) -> srun --gpus 2 (both ranks see all)",
        "two containers with two GPUs each -> one container with all four GPUs",
    ],
)
def test_gpus_isolated_per_process_are_read_as_gpus_split_across_containers(change: str) -> None:
    first = next(r for r in PLAYBOOK_V3.experiments if r.matches(change))
    assert first.id == "container-gpus" and not first.undoes(change)


def test_p2ps_disabling_at_0_beside_a_p2p_level_is_the_levels_change() -> None:
    """With NCCL_P2P_LEVEL set beside it, NCCL_P2P_DISABLE=0 is the default spelled out: the
    level is what changed (nccl#1773's command line)."""
    change = "NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=4 NCCL_DEBUG=info ./build/all_reduce_perf"
    assert not rule("p2p-disable").matches(change)
    assert rule("p2p-level").matches(change)
