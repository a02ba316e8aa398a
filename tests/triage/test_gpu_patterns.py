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
    """The answers ``--env gpus=VALUE`` reads (the patterns of the ``gpus`` key)."""
    specs = question(qid).environment_matches
    return [spec.answer for spec in specs if spec.key == "gpus" and spec.holds(value)]


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
        # how first posts write a count: a star or a multiplication sign, a word, a plain number
        ("8*H100", ["several"]),
        ("8 × A100", ["several"]),
        ("A6000 ×4", ["several"]),
        ("GTX 1080 Ti ×2", ["several"]),
        ("dual RTX 4090", ["several"]),
        ("Quad A6000", ["several"]),
        ("two RTX 3090s", ["several"]),
        ("four 3090", ["several"]),
        ("2 RTX 3090", ["several"]),
        ("8 A100s", ["several"]),
        ("i9 with 2 RTX 3090 and NVLink", ["several"]),
        ("a single RTX 4090", ["one"]),
        ("one A100", ["one"]),
        # "dual" of something else is no count of GPUs
        ("dual-socket EPYC, one RTX 4090", ["one"]),
        ("dual EPYC 7302, 8x A40", ["several"]),
        ("1x RTX 4090 (PCIe 4.0 x16)", ["one"]),  # a link width after a PCIe version
        ("RTX 4090 24GB", []),  # a card named, no count
        # a number that is a version, not a count; one GPU of several nodes or cards
        ("Windows 11 RTX 4090 laptop", []),
        ("CUDA 12 RTX 4090", []),
        ("two nodes, one A100 each", ["several"]),
        ("single A100 (of 8 in the node)", []),
        ("T4 (g4dn.2xlarge)", []),  # an instance size, not two GPUs
        ("two nodes of 8x H100", ["several"]),
    ],
)
def test_gpu_count_from_the_gpus_environment(gpus: str, answers: list[str]) -> None:
    assert env_answers("gpu-count", gpus) == answers


@pytest.mark.parametrize(
    ("gpus", "answers"),
    [
        ("2x3090", ["consumer"]),
        ("two RTX 3090s", ["consumer"]),
        ("Quad A6000", ["datacenter"]),
        ("A100s x 8", ["datacenter"]),
        ("RTX 3090 Ti x2", ["consumer"]),
        ("Jetson AGX Orin", []),
        ("8xH100 SXM", ["datacenter"]),
        # both kinds named: both patterns hold, and the question takes neither
        ("RTX 4090 + A100", ["consumer", "datacenter"]),
    ],
)
def test_gpu_class_from_the_gpus_environment(gpus: str, answers: list[str]) -> None:
    assert env_answers("gpu-class", gpus) == answers


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


def env_answer(qid: str, environment: dict[str, str]) -> str | None:
    known = question(qid).from_environment(environment)
    return None if known is None else known.answer


@pytest.mark.parametrize(
    ("environment", "answer"),
    [
        ({"platform": "Azure VM (NC48ads_A100_v4)"}, "vm"),
        ({"platform": "cloud instance (Lambda), Docker container"}, "vm"),
        ({"instance": "AWS p5"}, "vm"),
        ({"host": "Proxmox (KVM) virtual machine, GPUs passed through"}, "vm"),
        ({"platform": "bare metal (workstations)"}, "bare-metal"),
        ({"platform": "Windows 10 desktop"}, "bare-metal"),
        ({"platform": "bare-metal"}, "bare-metal"),  # an answer as written comes first
        # a hedge, or both sides named, answers nothing
        ({"platform": "bare metal (not stated otherwise)"}, None),
        ({"platform": "AWS bare metal p4d.metal"}, None),
        ({"platform": "DGX-2"}, None),
        ({"platform": "Azure VM", "host": "bare metal"}, None),  # two keys that disagree
        # containers and notebooks are no VM by those words; WSL2 and VMware are
        ({"platform": "Docker container, GPUs passed through with --gpus all"}, None),
        ({"platform": "LXC container on Proxmox"}, None),
        ({"platform": "Kaggle notebook (2x T4)"}, "vm"),
        ({"platform": "Docker Desktop (WSL2 backend)"}, "vm"),
        ({"platform": "VMware Workstation guest"}, "vm"),
    ],
)
def test_platform_from_a_description_in_the_environment(
    environment: dict[str, str], answer: str | None
) -> None:
    assert env_answer("platform", environment) == answer


@pytest.mark.parametrize(
    ("environment", "answer"),
    [
        ({"interconnect": "NVLink bridge (nvidia-smi topo NV4)"}, "yes"),
        ({"interconnect": "NVLink / NVSwitch (DGX-2)"}, "yes"),
        ({"gpus": "8x A100-SXM4-80GB"}, "yes"),
        ({"gpus": "2x RTX 3090 (NVLink)"}, "yes"),
        ({"gpus": "4x RTX A6000, no NVLink"}, "no"),
        ({"interconnect": "PCIe only"}, "no"),
        ({"interconnect": "without an NVLink bridge"}, "no"),
        # NVLink-C2C joins a Grace CPU to its GPU: no GPU-to-GPU link
        ({"interconnect": "NVLink-C2C between Grace CPU and Hopper GPU"}, None),
        # two machines, one with NVLink and one without
        (
            {"gpus": "2 GPUs with an NVLink bridge; another with 4x RTX 8000, no NVLink"},
            None,
        ),
        ({"interconnect": "PCIe Gen4 x16 through a PLX switch"}, None),
        # a word that takes NVLink back, wherever it stands in its clause
        ({"interconnect": "NVLink bridge removed"}, "no"),
        ({"interconnect": "NVLink: no"}, "no"),
        ({"interconnect": "does not have NVLink"}, "no"),
        ({"interconnect": "NVLink C2C (Grace Hopper)"}, None),
    ],
)
def test_nvlink_from_a_description_in_the_environment(
    environment: dict[str, str], answer: str | None
) -> None:
    assert env_answer("nvlink", environment) == answer
