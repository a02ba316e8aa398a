"""Fuzzing: mutated real outputs never make a parser raise.

The samples are the shared corpus (or realistic made-up ones where the corpus has none), damaged
as ``fuzzing`` describes; the parser must return a well-formed result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from casefile_probes.command import make_command_probe, parse_command
from casefile_probes.nvml import parse_nvml, sample
from casefile_probes.virt import parse_virt
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.domain.facts import ParseResult

from .corpus import OTHER_PARSERS, check_result, read_samples
from .fuzzing import fuzz_mutated

_REPO = Path(__file__).resolve().parents[2]
if str(_REPO) not in sys.path:  # tests/ is not a package: reach tests/fakes from the repo root
    sys.path.insert(0, str(_REPO))

from tests.fakes.nvml import FakeClock, FakeGpu, FakeNvml  # noqa: E402

VIRT_SAMPLES = [
    "none\n",
    "kvm\n",
    "$ systemd-detect-virt\nmicrosoft\n$ cat /sys/class/dmi/id/product_name\nVirtual Machine\n",
    "product_name: Standard PC (Q35 + ICH9, 2009)\nsys_vendor: QEMU\n",
    "root@h:~# cat /sys/class/dmi/id/product_name\nVMware Virtual Platform\n",
    "HVM domU\n",
]


def _nvml_samples() -> list[str]:
    gpus = [
        FakeGpu(tx_kb_s=[693, 1200, 800], unsupported={"power_limit"}),
        FakeGpu(name=b"NVIDIA A100", util_gpu=[0, 100], fail_at={"power": {1}}),
    ]
    clock = FakeClock()
    return [sample(FakeNvml(gpus), 0.5, 0.1, clock=clock, sleep=clock.sleep)]


def _command(text: str) -> ParseResult:
    probe = make_command_probe("x", ("x",), {r"(?P<speed>\d+(?:\.\d+)?)\s*GT/s": "GT/s"})
    return probe.parse(text)


CASES: dict[str, tuple[Callable[[str], ParseResult], Callable[[], list[str]]]] = {
    **{
        folder: (parse, partial(read_samples, corpus=(folder,)))
        for folder, parse in OTHER_PARSERS.items()
    },
    "virt": (parse_virt, lambda: VIRT_SAMPLES),
    "nvml": (parse_nvml, _nvml_samples),
    "command": (parse_command, lambda: read_samples(corpus=("lspci",))[:2] + VIRT_SAMPLES),
    "command-regex": (_command, lambda: read_samples(corpus=("lspci",))[:2]),
}


@pytest.mark.parametrize("name", CASES)
def test_other_fuzz_mutated_outputs_never_raise(name: str) -> None:
    parse, load = CASES[name]
    samples = load()
    if not samples:
        pytest.skip(f"no samples for {name} (corpus missing?)")
    fuzz_mutated(samples, lambda text: check_result(parse(text)))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_other_fuzz_random_text_never_raises(text: str) -> None:
    for parse, _ in CASES.values():
        check_result(parse(text))
