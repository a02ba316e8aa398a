"""A change of which GPUs a job sees is its own A/B, not a launcher's layout.

``CUDA_VISIBLE_DEVICES = "1" -> "0"`` on a machine of one GPU is the fix for a job that saw no
GPU and ran on the CPU; read as a launcher setting it counted against the GPU being left unused
(0.15 against 0.75 for the rest of misconfiguration), the very thing it fixed (animegan-50).
"""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import CLI


@pytest.fixture
def case(cli: CLI) -> str:
    made = cli(
        "new", "training at 20 % GPU", "--id", "vd", "--playbook", "gpu-throughput",
        "--env", "gpus=1x RTX 2080 Ti",
    )  # fmt: skip
    assert made.code == 0, made.err
    return "vd"


def _verdict(cli: CLI, case: str, change: str) -> dict[str, object]:
    result = cli("experiment", case, "--change", change, "--outcome", "fixed", "--json")
    assert result.code == 0, result.err
    payload: dict[str, object] = json.loads(cli("log", case, "--json").out)[-1]["payload"]
    return payload


@pytest.mark.parametrize(
    "change",
    [
        'os.environ["CUDA_VISIBLE_DEVICES"] = "1" changed to "0"',
        "CUDA_VISIBLE_DEVICES=1 -> 0",
        "HIP_VISIBLE_DEVICES unset",
    ],
)
def test_showing_the_job_its_gpu_speaks_for_the_gpu_left_unused(
    cli: CLI, case: str, change: str
) -> None:
    verdict = _verdict(cli, case, change)
    assert verdict["rule"] == {"id": "experiment.visible-devices", "version": 1}
    likelihoods = verdict["likelihoods"]
    assert isinstance(likelihoods, dict)
    assert likelihoods["gpu-unused"] > 4 * float(str(verdict["otherwise"]))


def test_a_launchers_layout_is_still_the_launchers(cli: CLI, case: str) -> None:
    verdict = _verdict(cli, case, "tensor parallel 4 -> 2")
    assert verdict["rule"] == {"id": "experiment.launch-config", "version": 2}
