"""Fuzzing: mutated real outputs never make a parser raise.

Each example takes a window of a real corpus sample (or a realistic made-up one where the
corpus has none), applies a few of the damages that pastes suffer — lines deleted,
duplicated, swapped or glued, the text cut short, digits replaced, stray unicode injected,
CRLF endings — and checks that the parser returns a well-formed result.
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casefile.domain.facts import ParseResult

from .corpus import OTHER_PARSERS, check_result, corpus_files, read_sample

_REPO = Path(__file__).resolve().parents[2]
if str(_REPO) not in sys.path:  # tests/ is not a package: reach tests/fakes from the repo root
    sys.path.insert(0, str(_REPO))

from tests.fakes.nvml import FakeClock, FakeGpu, FakeNvml  # noqa: E402

WINDOW = 250  # lines: long samples are fuzzed a window at a time, to keep each example fast

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


def _corpus(folder: str) -> list[str]:
    return [read_sample(path) for path in corpus_files(folder)]


def _command(text: str) -> ParseResult:
    probe = make_command_probe("x", ("x",), {r"(?P<speed>\d+(?:\.\d+)?)\s*GT/s": "GT/s"})
    return probe.parse(text)


CASES: dict[str, tuple[Callable[[str], ParseResult], Callable[[], list[str]]]] = {
    **{folder: (parse, partial(_corpus, folder)) for folder, parse in OTHER_PARSERS.items()},
    "virt": (parse_virt, lambda: VIRT_SAMPLES),
    "nvml": (parse_nvml, _nvml_samples),
    "command": (parse_command, lambda: _corpus("lspci")[:2] + VIRT_SAMPLES),
    "command-regex": (_command, lambda: _corpus("lspci")[:2]),
}

NOISE = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=12)


@st.composite
def mutated(draw: st.DrawFn, samples: list[str]) -> str:
    text = draw(st.sampled_from(samples))
    lines = text.split("\n")
    if len(lines) > WINDOW:
        start = draw(st.integers(0, len(lines) - WINDOW))
        lines = lines[start : start + WINDOW]
    for _ in range(draw(st.integers(1, 5))):
        op = draw(
            st.sampled_from(
                ["delete", "duplicate", "swap", "glue", "digits", "inject", "truncate", "crlf"]
            )
        )
        if not lines:
            lines = [""]
        i = draw(st.integers(0, len(lines) - 1))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "glue" and i + 1 < len(lines):
            lines[i : i + 2] = [lines[i] + lines[i + 1]]
        elif op == "digits":
            digit = draw(st.sampled_from(["0", "9", "x", "-", ".", "٣", "N/A", ""]))
            lines[i] = "".join(digit if c.isdigit() else c for c in lines[i])
        elif op == "inject":
            pos = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:pos] + draw(NOISE) + lines[i][pos:]
        elif op == "truncate":
            joined = "\n".join(lines)
            cut = draw(st.integers(0, len(joined)))
            lines = joined[:cut].split("\n")
        elif op == "crlf":
            lines = [line + "\r" for line in lines]
    return "\n".join(lines)


@pytest.mark.parametrize("name", CASES)
def test_other_fuzz_mutated_outputs_never_raise(name: str) -> None:
    parse, load = CASES[name]
    samples = load()
    if not samples:
        pytest.skip(f"no samples for {name} (corpus missing?)")

    @settings(
        max_examples=200,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated(samples))
    def run(text: str) -> None:
        check_result(parse(text))

    run()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_other_fuzz_random_text_never_raises(text: str) -> None:
    for parse, _ in CASES.values():
        check_result(parse(text))
