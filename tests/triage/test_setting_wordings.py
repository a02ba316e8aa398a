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
        # espnet-3041
        (
            "torch.backends.cudnn.deterministic = True -> False "
            "(ESPnet2 cudnn_deterministic=false)",
            "debug-setting",
            False,
        ),
        ("torch.use_deterministic_algorithms(True) removed", "debug-setting", False),
        ("deterministic mode off", "debug-setting", False),
        # model-serving-minefield-pr-55
        (
            "complete AC power removal (power cord out, then back) to reset the GB10's stuck "
            "low-power state, nothing else changed",
            "power-limit",
            False,
        ),
        ("GPU stuck in the P8 power state released by a driver reload", "power-limit", False),
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
        # the other way round: the job sent back to the integrated GPU
        ("dGPU -> iGPU", "gpu-offload", True),
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
    ],
)
def test_what_the_rules_read_before_is_read_as_before(change: str, rule: str | None) -> None:
    assert reading(change)[0] == rule
