"""A change of how many GPUs a job runs on is fewer-gpus' A/B, read the right way round
(:mod:`casefile.domain.gpu_counts`): fewer GPUs faster says the traffic between them was the
cost, more GPUs faster the work inside each."""

from __future__ import annotations

import json

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.app.experiment_reading import chosen_rule
from casefile.domain.beliefs import project
from casefile.domain.gpu_counts import gpu_count_change, only_gpu_count
from tests.cli.conftest import CLI

RULES = PLAYBOOK_V3.experiments


@pytest.mark.parametrize(
    ("change", "counts"),
    [
        ("8 GPUs -> 2 GPUs", (8, 2)),
        ("4 GPUs -> 8 GPUs", (4, 8)),
        ("8x A100 -> 4x A100", (8, 4)),
        ("6x RTX 4090 -> 1x RTX 4090", (6, 1)),
        ("2 RTX 3090 -> 1 RTX 3090", (2, 1)),
        ("H100 x8 -> H100 x4", (8, 4)),
        ("A6000 ×4 -> A6000 ×2", (4, 2)),
        ("from 8 GPUs to 4", (8, 4)),
        ("from 2 to 4 GPUs", (2, 4)),
        ("8 GPUs -> 2", (8, 2)),
        ("8 -> 4 GPUs", (8, 4)),
        ("the same UCX-Py transfer benchmark on 2 GPUs of the DGX-1 instead of all 8", (8, 2)),
        ("using 4 GPUs instead of 8", (8, 4)),
        ("2 GPUs (NVLink) -> 4 GPUs", (2, 4)),
        # what a second review found missing
        ("8x A100 80GB -> 4x A100 80GB", (8, 4)),
        ("8x A100-SXM4-80GB -> 4x A100-SXM4-80GB", (8, 4)),
        ("8 H100 SXM5 -> 4 H100 SXM5", (8, 4)),
        ("8 A100s -> 4 A100s", (8, 4)),
        ("2x 4090 -> 1x 4090", (2, 1)),
        ("8 T4 -> 4 T4", (8, 4)),
        ("2x L40S -> 1x L40S", (2, 1)),
        ("2 MI300X -> 1 MI300X", (2, 1)),
        ("--gpus 8 -> --gpus 2", (8, 2)),
        ("nproc_per_node=8 -> 4", (8, 4)),
        ("--num-gpus 8 -> 2", (8, 2)),
        ("8卡 -> 4卡", (8, 4)),
        ("GPUs 8 -> 4", (8, 4)),
        ("16 GPUs (2 nodes) -> 8 GPUs (1 node)", (16, 8)),
        # a part of the GPUs: the whole was the baseline (fairseq-3342's wording, and its kin)
        ("4 of the DGX A100's GPUs used instead of all 8", (8, 4)),
        ("using 4 of the 8 GPUs", (8, 4)),
        ("on 2 out of 8 A100s", (8, 2)),
        ("4 of the GPUs instead of 8", (8, 4)),
        # an inference server's tensor-parallel size is its GPU count
        ("--tensor-parallel-size 2 -> 1", (2, 1)),
        ("vllm serve --tensor-parallel-size 1 -> 2", (1, 2)),
        ("-tp 4 -> 2", (4, 2)),
        ("--tp-size 2 -> 1", (2, 1)),
        ("tensor_parallel_size=4 -> tensor_parallel_size=2", (4, 2)),
        ("LLM(model=m, tensor_parallel_size=2) -> LLM(model=m, tensor_parallel_size=1)", (2, 1)),
        ("the same UCX-Py benchmark on 2 of the 8 GPUs", (8, 2)),
        ("ran on 4 of the 8 GPUs", (8, 4)),
    ],
)
def test_the_counts_before_and_after(change: str, counts: tuple[int, int]) -> None:
    assert gpu_count_change(change) == counts


@pytest.mark.parametrize(
    "change",
    [
        "batch 8 -> 16 on 4 GPUs",  # a batch beside a count
        "num_workers 2 -> 8 on 4 GPUs",
        "batch size 8 on 4 GPUs -> 16",
        "RTX 3090 -> RTX 4090",  # a model, not a count
        "PCIe Gen4 x16 -> Gen3 x16",  # a link's width
        "PCIe x16 -> x8",
        "tp 4 -> 2",  # a training launcher's parallel size: launch-config's
        "tensor parallel 4 -> 2",
        "--tensor-model-parallel-size 4 -> 2",
        # beside another parallel size or the world size the GPUs may stay
        "--tensor-parallel-size 4 -> 2 with --data-parallel-size 2",
        "--tp 4 -> 2 --dp 2",
        "--tensor-parallel-size 4 -> 2 --pipeline-parallel-size 1 -> 2",
        # a fresh review: vLLM's short -pp and -dp, Accelerate's dp_shard_size
        "-tp 4 -> 2 -pp 2",
        "-tp 4 -> 2 -dp 2",
        "--tensor-parallel-size 4 -> 2 and -pp 2",
        "tp_size=4 -> tp_size=2, dp_shard_size 2 -> 4",
        "--tp 2 -> 1 --ep 2",
        "12 GB instead of 20 GB",
        "4 GPUs -> 4 GPUs",
        "CUDA_VISIBLE_DEVICES=0",
        "TCP -> CUDA IPC on 8 GPUs",
        # a second review: another setting's number after "instead of" …
        "2 GPUs at 300 W instead of 350",
        "on 4 GPUs with NCCL_NTHREADS=256 instead of 512",
        "4 GPUs with NCCL_MIN_NCHANNELS=4 instead of 32",
        "4 GPUs at batch 16 instead of 32",
        "2 GPUs with OMP_NUM_THREADS=8 instead of 32",
        "2 cards fans at 80 instead of 30",
        "4 GPUs capped at 250 W instead of 400 W",
        "2 GPUs in x16 slots instead of 8 lanes",
        "8 GPUs at PCIe Gen3 instead of 4",
        "2 GPUs bound to socket 0 instead of 1",
        "8 GPUs with 2 NICs instead of 4",
        "2 GPUs with 16 GB instead of 24",
        # … a link's width …
        "A100 x16 → x8 after reseating",
        "RTX 4090 x16 -> x4 riser",
        "H100 x16 link -> x8",
        "GPU x16 -> x8",
        "GPUs x16 -> x8 (bifurcation)",
        "PCIe link of GPU x16 -> x8",
        # … GPUs per node, nodes, network cards
        "8 GPUs per node -> 4 GPUs per node, 2 nodes -> 4 nodes",
        "from 8 GPUs to 4 nodes",
        "2 nodes -> 1 node",
        "from 2 cards to 1 NIC",
        "bonded 2 cards -> 1 card",
        # a GPU's index, the whole, or a part beside an arrow (either side may hold it)
        "GPU 2 of 8 GPUs slow",
        "rank 3 of 8 GPUs",
        "8 of 8 GPUs",
        "4 of 8 GPUs -> 8 of 8 GPUs",
        # a fresh review: a part of the GPUs a setting, a fault or a repair touched is no
        # count of the GPUs the job ran on, nor is an index
        "power capped 4 of the 8 GPUs",
        "power limit 250 W on 4 of the 8 GPUs",
        "disabled NVLink on 2 of the 8 GPUs",
        "NVLink bridge removed from 2 of the 4 GPUs",
        "reseated 2 of 8 A100s",
        "moved 2 of the 8 GPUs to the other socket",
        "fixed cooling on 2 of the 8 GPUs",
        "replaced 1 of the 8 GPUs",
        "ECC off on 4 of the 8 GPUs",
        "GPU: 2 of 8 GPUs",
        "card 3 of 4 GPUs throttles",
        "worker 3 of 8 GPUs",
        "id 2 of 8 GPUs",
    ],
)
def test_no_change_of_count(change: str) -> None:
    assert gpu_count_change(change) is None


@pytest.mark.parametrize(
    ("change", "only"),
    [
        ("the same UCX-Py transfer benchmark on 2 GPUs of the DGX-1 instead of all 8", True),
        ("8x A100 80GB -> 4x A100 80GB", True),
        ("2 GPUs -> 4 GPUs, UCX", True),
        ("4 GPUs -> 8 GPUs with NCCL_P2P_DISABLE=1", False),
        ("2 GPUs instead of 8 and NCCL_ALGO=Ring", False),
        ("vllm 0.4 -> 0.5 with 8 GPUs instead of 4", False),
        ("batch 8 -> 16 on 4 GPUs", False),
        ("using 4 of the 8 GPUs", True),
        ("4 of the DGX A100's GPUs used instead of all 8", True),
        ("3 of the 8 GPUs at batch 16 instead of 32", False),
        ("vllm serve --tensor-parallel-size 2 -> 1", True),
        # a flag without a value is as often the command's own as a second change
        (
            "the same UCX-Py benchmark with --enable-nvlink on 2 GPUs of the DGX-1 "
            "instead of all 8",
            True,
        ),
        ("torchrun --standalone --nproc_per_node 8 -> 4", True),
    ],
)
def test_whether_the_count_is_all_a_change_changes(change: str, only: bool) -> None:
    assert only_gpu_count(change) is only


@pytest.mark.parametrize(
    ("change", "reader", "backwards"),
    [
        ("8 GPUs -> 2 GPUs", "fewer-gpus", False),
        ("4 GPUs -> 8 GPUs", "fewer-gpus", True),
        ("8x A100 -> 4x A100", "fewer-gpus", False),
        ("2 GPUs instead of 4", "fewer-gpus", False),
        # the transport rule reads UCX, but a count on both sides is a change of count
        (
            "the same UCX-Py transfer benchmark on 2 GPUs of the DGX-1 instead of all 8",
            "fewer-gpus",
            False,
        ),
        ("NIXL over UCX sockets -> CUDA IPC transport", "transport", False),
        ("TCP -> CUDA IPC on 8 GPUs", "transport", False),
        ("num_workers 2 -> 8 on 4 GPUs", "data-pipeline", False),
        # what fewer-gpus read before: one GPU, told as before
        ("2x A10 -> 1 GPU", "fewer-gpus", False),
        ("4 of the DGX A100's GPUs used instead of all 8", "fewer-gpus", False),
        ("--tensor-parallel-size 2 -> 1", "fewer-gpus", False),
        ("--tensor-parallel-size 1 -> 2", "fewer-gpus", True),
        ("tp 4 -> 2", "launch-config", None),
        ("-tp 4 -> 2 -pp 2", "launch-config", None),
        # a part of the GPUs a setting touched is that setting's
        ("power capped 4 of the 8 GPUs", "power-limit", None),
        ("disabled NVLink on 2 of the 8 GPUs", "interconnect", None),
        ("reseated 2 of 8 A100s", "pcie-link", None),
        ("moved 2 of the 8 GPUs to the other socket", "numa-binding", None),
        ("fixed cooling on 2 of the 8 GPUs", "cooling", None),
        ("CUDA_VISIBLE_DEVICES=0", "fewer-gpus", False),
        # a change that also sets something else goes to the rules in their order
        ("4 GPUs -> 8 GPUs with NCCL_P2P_DISABLE=1", "p2p-disable", False),
        ("2 GPUs at 300 W instead of 350", "power-limit", False),
        ("A100 x16 → x8 after reseating", "pcie-link", None),  # its way round is its own
    ],
)
def test_the_rule_that_reads_it_and_which_way(
    change: str, reader: str, backwards: bool | None
) -> None:
    first = chosen_rule(RULES, project([]), change, None)
    assert first is not None and first.id == reader
    if backwards is not None:
        assert first.undoes(change) is backwards


def test_more_gpus_slower_reads_as_fewer_faster(cli: CLI) -> None:
    """Told either way round, one scaling result is one reading: 4 -> 8 GPUs halving the
    rate is 8 -> 4 doubling it."""
    outcomes = []
    for change, figures in (("4 GPUs -> 8 GPUs", "20:10"), ("8 GPUs -> 4 GPUs", "10:20")):
        case = cli("new", "scaling", "--playbook", "gpu-throughput@3").out.strip()
        assert cli("intake", case, "gpu-count=several").code == 0
        done = cli(
            "experiment", case, "--change", change, "--reported", figures, "--unit", "samples/s",
            "--json",
        )  # fmt: skip
        assert done.code == 0, done.err
        read = json.loads(done.out)
        outcomes.append((read["rule"], read["outcome"]))
    assert outcomes == [("experiment.fewer-gpus", "faster")] * 2
