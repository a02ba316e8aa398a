"""Three kinds of change people write that version 3 read with no rule, so the A/B that decided
a thread went in unread: cuDNN's deterministic mode turned off (a checking setting, as anomaly
detection is), a GPU let out of a low power state it was stuck in (its clocks held down as a
power cap holds them), and a laptop's application moved from the integrated GPU to the NVIDIA
one (the work moved onto the GPU)."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK


def reading(change: str) -> tuple[str | None, bool]:
    """The first rule of gpu-throughput@3 that reads ``change``, and whether it reads it
    backwards (the change takes away what the rule reads)."""
    rule = next((r for r in PLAYBOOK.experiments if r.matches(change)), None)
    return (rule.id, rule.undoes(change)) if rule else (None, False)


@pytest.mark.parametrize(
    ("change", "rule", "backwards"),
    [
        # espnet-3041, and the switch written every way people write one turned off
        ("torch.backends.cudnn.deterministic = True -> False", "debug-setting", False),
        ("cudnn_deterministic: true -> false", "debug-setting", False),
        ("Trainer(deterministic=True) -> Trainer(deterministic=False)", "debug-setting", False),
        ("torch.use_deterministic_algorithms(True) removed", "debug-setting", False),
        ("CUBLAS_WORKSPACE_CONFIG=:4096:8 removed", "debug-setting", False),
        ("deterministic mode off", "debug-setting", False),
        ("deterministic mode on -> off", "debug-setting", False),
        ("anomaly detection on -> off", "debug-setting", False),
        ("CUDA_LAUNCH_BLOCKING=1 -> 0", "debug-setting", False),
        # mdm-pr-81: anomaly detection scoped to a block
        (
            "torch.autograd.set_detect_anomaly(True) to with "
            "torch.autograd.set_detect_anomaly(True):",
            "debug-setting",
            False,
        ),
        # turned on, the same A/B read backwards
        ("anomaly detection off -> on", "debug-setting", True),
        ("CUDA_LAUNCH_BLOCKING=0 -> 1", "debug-setting", True),
        # model-serving-minefield-pr-55
        (
            "complete AC power removal (power cord out, then back) to reset the GB10's stuck "
            "low-power state, nothing else changed",
            "power-limit",
            False,
        ),
        ("GPU stuck in the P8 power state released by a driver reload", "power-limit", False),
        ("GPU power state P8 -> P0 after a driver reload", "power-limit", False),
        ("GPU P-states unlocked", "power-limit", False),
        # gephi-2704
        (
            "Gephi bound to the NVIDIA High Performance profile in the NVIDIA Control Panel "
            "(GTX 1650 Ti instead of the Intel UHD iGPU)",
            "gpu-offload",
            False,
        ),
        ("Blender set to the high-performance NVIDIA processor", "gpu-offload", False),
        ("run under prime-run", "gpu-offload", False),
        ("iGPU -> dGPU", "gpu-offload", False),
        ("prime-select nvidia", "gpu-offload", False),
        ("DRI_PRIME=1", "gpu-offload", False),
    ],
)
def test_the_change_is_read_by_the_rule_of_its_mechanism(
    change: str, rule: str, backwards: bool
) -> None:
    assert reading(change) == (rule, backwards)


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("power limit raised from 250 W to 350 W", "power-limit"),
        ("anomaly detection off", "debug-setting"),
        ("fans at 100 %", "cooling"),
        ("NCCL_P2P_DISABLE=1", "p2p-disable"),
        # a power cycle that names no power state is not read as a power limit lifted
        ("rebooted the machine", None),
        # a switch set, not turned off
        ("CUDA_LAUNCH_BLOCKING=1", None),
        # a PCIe link's power states are the link's, not a power cap
        ("disabled PCIe ASPM (link power states L0s/L1 off)", None),
        ("PCIe link power state management disabled", None),
        # the integrated GPU chosen, or another machine's GPU, is no work moved onto the GPU
        ("switched from dGPU to iGPU", None),
        ("dGPU -> iGPU", None),
        (
            "set the app to Power Saving (integrated) instead of High Performance NVIDIA processor",
            None,
        ),
        ("moved the job to a high-performance GPU node (A100 instead of T4)", None),
        # a cuBLAS build still reads as one; its workspace setting is debug-setting's (above)
        ("-DLLAMA_CUBLAS=ON", "gpu-offload"),
    ],
)
def test_what_the_rules_read_before_is_read_as_before(change: str, rule: str | None) -> None:
    assert reading(change)[0] == rule


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        # a sampler's temperature is no heat, nor its numbers a version
        ("temperature 0.7 -> 0.2", None),
        ("set temperature=0 for greedy decoding", None),
        ("temperature: 1.0 -> 0.6, top_p 0.95", None),
        ("sampling temperature lowered from 0.8 to 0.1", None),
        ("the memory utilisation was raised from 0.90 to 0.95", None),
        # a GPU's temperature, in degrees, is the cooling's; a version stays a version
        ("GPU temperature 83C -> 65C", "cooling"),
        ("temperature 85 -> 70", "cooling"),
        ("GPU temperature dropped from 88 to 71 after repasting", "cooling"),
        ("fans at 100 % (the sampling interval was 1 s)", "cooling"),
        ("nccl bumped from 2.18.3 to 2.19.3", "version"),
        # found by a review: a sampler's word beside a cooling change does not hide it, and a
        # sampler's temperature in more spellings is still none
        ("repasted the GPU; tokens/s with greedy decoding went from 30 to 40", "cooling"),
        ("fans to 100% (top_k=1)", "cooling"),
        ("temperature 1.5x lower after repaste", "cooling"),
        ("temperature decreased from 0.8 to 0.1", None),
        ("set temperature to 0", None),
        ("lower the temperature to 0.1", None),
        ("temperature is set to 0.0", None),
        ('{"temperature":0}', None),
        ("Temperature 0.7→0.2", None),
        ("temperature→0", None),
        ("temperatures 0.7 -> 0.2", None),
        ("torch changed from 2.1 to 2.2", "version"),
    ],
)
def test_a_samplers_temperature_is_not_the_gpus(change: str, rule: str | None) -> None:
    assert reading(change)[0] == rule
