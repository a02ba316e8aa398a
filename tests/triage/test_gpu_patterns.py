"""What the GPU patterns of gpu-throughput@3's intake read, against the words that say so.

A review found ``--env gpus="1 x 3090"`` answering "several" (the model number read as a
count after an x), "RTX 3090, 1 GPU" answering nothing ("one" was read only at the start),
"a single GPU, 2 nodes" answering both, and a Tesla T4, an L4 or a P100 named by a run
answering no GPU class, while ``playbook show`` said otherwise. Each pattern's ``says`` is
what it reads; these are the cases the words promise.
"""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain.intake import IntakeQuestion


def question(qid: str) -> IntakeQuestion:
    return next(q for q in PLAYBOOK_V3.intake if q.id == qid)


def env_answers(qid: str, value: str) -> list[str]:
    return [spec.answer for spec in question(qid).environment_matches if spec.holds(value)]


@pytest.mark.parametrize(
    ("gpus", "answers"),
    [
        ("1x V100", ["one"]),
        ("1 x 3090", ["one"]),  # a model, not 3090 GPUs
        ("1x 4090", ["one"]),
        ("RTX 3090, 1 GPU", ["one"]),
        ("one GPU (RTX 4090)", ["one"]),
        ("a single GPU, 2 nodes", ["several"]),  # a count of two nodes is no one-GPU job
        ("8x A40", ["several"]),
        ("H100 x8", ["several"]),
        ("8 x A100 80GB", ["several"]),
        ("2 nodes x 8x A100", ["several"]),
        ("4 GPUs on PCIe", ["several"]),
        ("single node 8x H100", ["several"]),
        ("1x RTX 4070 Ti + 2x GTX 1660 Ti", ["several"]),
        ("1x A100 vs 6x A100", []),  # a comparison is left unanswered
        ("NVIDIA B200", []),
        ("RTX 3090 x 1", ["one"]),  # a model, then its count
        ("A100 80GB x 1", ["one"]),
        ("RTX 3090 x2", ["several"]),
        ("1x 4090 + 1x 3090", []),  # two cards of one each: no single count to read
        ("RTX 3090 on PCIe x16", []),  # a link width is no count
        ("4 GPUs on PCIe Gen4 x16", ["several"]),
    ],
)
def test_gpu_count_from_the_gpus_environment(gpus: str, answers: list[str]) -> None:
    assert env_answers("gpu-count", gpus) == answers


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("Tesla T4", "datacenter"),
        ("NVIDIA L4", "datacenter"),
        ("Tesla P100-PCIE-16GB", "datacenter"),
        ("NVIDIA GB10", "datacenter"),
        ("NVIDIA A100-SXM4-80GB", "datacenter"),
        ("NVIDIA RTX A6000", "datacenter"),
        ("NVIDIA GeForce RTX 3090", "consumer"),
        ("NVIDIA GeForce RTX 4090 Laptop GPU", "consumer"),
        ("NVIDIA TITAN RTX", "consumer"),
    ],
)
def test_gpu_class_from_a_gpu_name_a_run_gives(name: str, answer: str) -> None:
    specs = [s for s in question("gpu-class").facts if s.fact == "name"]
    assert [s.answer for s in specs if s.holds(name)] == [answer]
