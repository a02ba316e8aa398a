"""Hand-written cases for the ``torch-env`` parser: each fact it gives, and what it will not
read (bare values without the command that printed them, a Mac's CUDA, a value of the wrong
shape); and its recogniser as the recorder uses it, on a paste recorded under ``command``."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.command import PROBE as COMMAND
from casefile_probes.torch_env import PROBE, looks_like_torch_env, parse_torch_env

from casefile.app.recording import Readers, read_by_others
from casefile.plugins import Registry
from casefile.probes.api import RunOutput

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "torch-env"

REPORT = """Collecting environment information...
PyTorch version: 2.4.0+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
Python platform: Linux-6.5.0-35-generic-x86_64-with-glibc2.35
Is CUDA available: False
CUDA runtime version: No CUDA
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
cuDNN version: No CUDA
"""


def facts(text: str) -> dict[tuple[str, str], object]:
    return {(f.name, f.subject): f.value for f in parse_torch_env(text).facts}


def test_a_cpu_build_cannot_run_on_the_gpu() -> None:
    got = facts(REPORT)
    assert got[("app.device_cpu", "host")] is True
    assert got[("torch.cpu_only", "host")] is True
    assert got[("torch.cuda_available", "host")] is False
    assert got[("torch.version", "host")] == "2.4.0+cpu"
    assert ("torch.cuda_build", "host") not in got  # "None" is no version
    assert ("app.gpu_devices", "host") not in got  # "No CUDA" lists nothing


def test_cuda_used_to_build_none_alone_says_cpu_only() -> None:
    text = REPORT.replace("2.4.0+cpu", "2.4.0")
    assert facts(text)[("torch.cpu_only", "host")] is True


def test_a_cuda_build_where_cuda_is_not_available_is_on_the_cpu() -> None:
    text = (GOLDEN / "003.txt").read_text(encoding="utf-8")
    got = facts(text)
    assert got[("torch.cuda_build", "host")] == "11.1"
    assert got[("torch.cpu_only", "host")] is False
    assert got[("app.device_cpu", "host")] is True


def test_cuda_available_gives_no_device_verdict() -> None:
    got = facts((GOLDEN / "005.txt").read_text(encoding="utf-8"))
    assert got[("torch.cuda_available", "host")] is True
    assert ("app.device_cpu", "host") not in got  # the job may still keep its tensors on the CPU


def test_one_gpu_gives_its_name_and_a_count_of_one() -> None:
    got = facts((GOLDEN / "005.txt").read_text(encoding="utf-8"))
    assert got[("app.gpu_name", "gpu0")] == "GeForce RTX 2080 Ti"
    assert got[("app.gpu_devices", "host")] == 1
    assert got[("torch.driver_version", "host")] == "440.64"
    assert got[("torch.cuda_build", "host")] == "10.2"


def test_several_gpus_are_listed_one_a_line() -> None:
    got = facts((GOLDEN / "006.txt").read_text(encoding="utf-8"))
    assert [got[("app.gpu_name", f"gpu{i}")] for i in range(3)] == ["NVIDIA GeForce RTX 3090"] * 3
    assert got[("app.gpu_devices", "host")] == 3


def test_a_uuid_in_the_gpu_list_is_left_out_of_the_name() -> None:
    text = REPORT.replace(
        "GPU models and configuration: No CUDA",
        "GPU models and configuration: GPU 0: NVIDIA L4 (UUID: GPU-1c2d3e4f-aaaa-bbbb)",
    )
    assert facts(text)[("app.gpu_name", "gpu0")] == "NVIDIA L4"


def test_a_rocm_build_names_device_zero_but_gives_no_count() -> None:
    got = facts((GOLDEN / "009.txt").read_text(encoding="utf-8"))
    assert got[("torch.rocm_build", "host")] == "3.7.20315-077bcfa0"
    assert got[("torch.cpu_only", "host")] is False
    assert got[("app.gpu_name", "gpu0")] == "Device 66a1"
    assert ("app.gpu_devices", "host") not in got
    assert ("app.device_cpu", "host") not in got


def test_a_mac_without_cuda_is_not_called_cpu_bound() -> None:
    got = facts((GOLDEN / "008.txt").read_text(encoding="utf-8"))
    assert got[("torch.cuda_available", "host")] is False
    assert ("app.device_cpu", "host") not in got  # MPS is Apple's GPU; the report cannot tell
    assert ("torch.cpu_only", "host") not in got


def test_an_available_xpu_is_not_the_cpu() -> None:
    text = REPORT.replace("2.4.0+cpu", "2.5.0+xpu") + "Is XPU available: True\n"
    got = facts(text)
    assert ("app.device_cpu", "host") not in got
    assert got[("torch.cpu_only", "host")] is False


def test_the_old_layout_says_yes_and_no() -> None:
    got = facts((GOLDEN / "002.txt").read_text(encoding="utf-8"))
    assert got[("torch.cuda_available", "host")] is False
    assert got[("app.device_cpu", "host")] is True


def test_crlf_and_a_banner_on_the_label_line_read_alike() -> None:
    text = REPORT.replace("Collecting environment information...\nPyTorch", "Collecting  PyTorch")
    assert facts(text.replace("\n", "\r\n")) == facts(REPORT)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '$ python -c "import torch; print(torch.__version__); print(torch.version.cuda); '
            'print(torch.cuda.is_available())"\n2.4.0+cpu\nNone\nFalse\n',
            {"torch.version": "2.4.0+cpu", "torch.cpu_only": True, "app.device_cpu": True},
        ),
        (
            "$ python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available(), "
            "torch.cuda.device_count())'\n2.3.1+cu121 True 1\n",
            {"torch.version": "2.3.1+cu121", "torch.cuda_available": True, "app.gpu_devices": 1},
        ),
        (
            ">>> import torch\n>>> torch.__version__\n'2.0.1+cpu'\n>>> torch.cuda.is_available()\n"
            "False\n",
            {"torch.version": "2.0.1+cpu", "app.device_cpu": True},
        ),
        (
            "In [2]: torch.cuda.get_device_name(0)\nOut[2]: 'NVIDIA GeForce RTX 4090'\n",
            {"app.gpu_name": "NVIDIA GeForce RTX 4090"},
        ),
        (
            "torch.__version__ = 2.2.0\ntorch.cuda.is_available(): True\n",
            {"torch.version": "2.2.0", "torch.cuda_available": True},
        ),
    ],
)
def test_a_one_liner_is_read_where_it_shows_what_printed(
    text: str, expected: dict[str, object]
) -> None:
    got = {name: value for (name, _), value in facts(text).items()}
    assert {name: got.get(name) for name in expected} == expected


def test_bare_values_are_not_read_without_their_command_line() -> None:
    bare = "2.4.0+cpu\nNone\nFalse\n"
    result = parse_torch_env(bare)
    assert not result.parsed and "give the command" in result.problems[0]
    assert looks_like_torch_env(bare)  # offered, so that a recorded command line can read it
    # the recorder's retry with the command the user gave (``-- python -c …``)
    run = RunOutput(
        ("python", "-c", "import torch; print(torch.__version__); print(torch.version.cuda); "
         "print(torch.cuda.is_available())"),
        bare, source="pasted",
    )  # fmt: skip
    read = {f.name: f.value for f in PROBE.safe_parse(bare, run).facts}
    assert read["app.device_cpu"] is True and read["torch.cpu_only"] is True


def test_a_warning_among_the_printed_lines_reads_nothing_of_that_command() -> None:
    text = (
        "$ python -c 'import torch; print(torch.__version__); print(torch.cuda.is_available())'\n"
        "UserWarning: Failed to initialize NumPy\n2.4.0\nFalse\n"
    )
    result = parse_torch_env(text)
    assert not result.facts and "2 print call(s) but 3 line(s)" in result.problems[0]


def test_a_value_of_the_wrong_shape_is_not_read() -> None:
    text = "$ python -c 'import torch; print(torch.cuda.is_available())'\nmaybe\n"
    assert not parse_torch_env(text).facts


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello\nworld\n",
        "- PyTorch Version (e.g., 1.0):\n- OS (e.g., Linux):\n- GPU models and configuration:\n",
        "Epoch 1: loss 0.5\nUsing device: cuda\n",
        "PyTorch version: 2.1.0\n",
        "x" * 100_000,
    ],
)
def test_unrelated_text_is_not_recognised(text: str) -> None:
    assert not looks_like_torch_env(text)


def _recorded_under_command(text: str, argv: tuple[str, ...] = ("true",)) -> list[str]:
    readers = Readers.of(Registry.discover(), with_rules=False)
    output = RunOutput(argv, text, source="pasted")
    parsed = COMMAND.safe_parse(text, output)
    _, read = read_by_others(readers, COMMAND, parsed, text, output)
    return [probe.name for probe in read]


def test_a_collect_env_paste_under_command_is_read_by_torch_env() -> None:
    assert _recorded_under_command(REPORT) == ["torch-env"]
    fenced = "```\n" + (GOLDEN / "006.txt").read_text(encoding="utf-8") + "```\n"
    assert "torch-env" in _recorded_under_command(fenced)


def test_bare_values_under_command_are_read_with_the_command_line_only() -> None:
    bare = "2.4.0+cpu\nNone\nFalse\n"
    assert "torch-env" not in _recorded_under_command(bare)
    argv = ("python", "-c", "import torch;print(torch.__version__);print(torch.version.cuda);"
            "print(torch.cuda.is_available())")  # fmt: skip
    assert "torch-env" in _recorded_under_command(bare, argv)


def test_unrelated_text_under_command_is_not_read_by_torch_env() -> None:
    text = "total 12\ndrwxr-xr-x 2 user user 4096 Jan 1 00:00 .\n"
    assert "torch-env" not in _recorded_under_command(text)
