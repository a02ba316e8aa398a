"""The NVML sampler: sampling logic against a fake NVML, parsing, and one real-GPU check."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from casefile_probes.nvml import PROBE, PynvmlApi, parse_nvml, sample, sample_local

_REPO = Path(__file__).resolve().parents[2]
if str(_REPO) not in sys.path:  # tests/ is not a package: reach tests/fakes from the repo root
    sys.path.insert(0, str(_REPO))

from tests.fakes.nvml import FakeClock, FakeGpu, FakeNvml  # noqa: E402


def run(nvml: FakeNvml, window_s: float = 1.0, interval_s: float = 0.25) -> tuple[str, FakeClock]:
    clock = FakeClock()
    text = sample(nvml, window_s, interval_s, clock=clock, sleep=clock.sleep)
    return text, clock


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_samples_every_interval_over_the_window() -> None:
    text, clock = run(FakeNvml([FakeGpu()]), window_s=1.0, interval_s=0.25)
    lines = records(text)
    assert lines[0]["type"] == "header"
    assert lines[0]["window_s"] == 1.0 and lines[0]["interval_s"] == 0.25
    samples = [line for line in lines if line["type"] == "sample"]
    assert [s["t"] for s in samples] == [0.0, 0.25, 0.5, 0.75]
    assert clock.sleeps == pytest.approx([0.25, 0.25, 0.25])


def test_a_zero_window_still_takes_one_sample() -> None:
    text, clock = run(FakeNvml([FakeGpu()]), window_s=0.0)
    assert len([r for r in records(text) if r["type"] == "sample"]) == 1
    assert clock.sleeps == []


def test_means_and_maxima_in_nvidia_smi_units() -> None:
    gpu = FakeGpu(
        tx_kb_s=[1000, 3000, 2000, 6000],
        rx_kb_s=[10, 20, 30, 40],
        util_gpu=[100, 100, 50, 50],
        util_memory=[52, 52, 52, 52],
        power_mw=[300_000, 330_000, 320_000, 330_000],
        clock_sm_mhz=[1980, 1980, 1755, 1980],
        link_gen=[1, 5, 5, 5],
        link_width=[16],
        temperature_c=[40, 44, 42, 46],
    )
    result = parse_nvml(run(FakeNvml([gpu]))[0])
    assert result.parsed and result.problems == []
    values = {name: result.values(name)["gpu0"] for name in {f.name for f in result.facts}}
    assert values["nvml.samples"] == 4
    assert values["pcie.tx_throughput"] == 3000.0
    assert values["pcie.tx_throughput.max"] == 6000.0
    assert values["pcie.rx_throughput"] == 25.0
    assert values["pcie.rx_throughput.max"] == 40.0
    assert values["utilization.gpu"] == 75.0
    assert values["utilization.gpu.max"] == 100.0
    assert values["utilization.memory"] == 52.0
    assert values["power.draw"] == 320.0
    assert values["power.draw.max"] == 330.0
    assert values["power.limit"] == 600.0
    assert values["clocks.sm"] == pytest.approx(1923.75)
    assert values["temperature.gpu"] == 43.0
    assert values["pcie.link.gen.current"] == 5  # highest seen: the link trains up under load
    assert values["pcie.link.width.current"] == 16
    assert values["pcie.link.gen.max"] == 5
    assert values["pcie.link.width.max"] == 16
    assert values["name"] == "NVIDIA H200"
    assert values["pci.bus_id"] == "00000000:01:00.0"
    units = {f.name: f.unit for f in result.facts}
    assert units["pcie.tx_throughput"] == "KB/s"
    assert units["power.draw"] == "W"
    assert units["utilization.gpu"] == "%"
    assert units["clocks.sm"] == "MHz"


def test_an_unsupported_call_leaves_the_field_absent_not_zero() -> None:
    gpu = FakeGpu(unsupported={"util", "power", "power_limit"})
    text, _ = run(FakeNvml([gpu]))
    samples = [r for r in records(text) if r["type"] == "sample"]
    assert all("util_gpu" not in s and "power_mw" not in s for s in samples)
    assert all("Not Supported" in s["errors"]["power_mw"] for s in samples)
    result = parse_nvml(text)
    names = {f.name for f in result.facts}
    assert "utilization.gpu" not in names and "power.draw" not in names
    assert "power.limit" not in names
    assert "pcie.tx_throughput" in names
    assert any("gpu0: NVML could not read" in p and "power_mw" in p for p in result.problems)
    assert any("power_limit_mw" in p for p in result.problems)


def test_a_transient_error_drops_one_reading_only() -> None:
    gpu = FakeGpu(power_mw=[100_000, 999_000, 300_000, 500_000], fail_at={"power": {1}})
    result = parse_nvml(run(FakeNvml([gpu]))[0])
    assert result.values("power.draw")["gpu0"] == 300.0  # mean of 100, 300, 500 W
    assert result.values("power.draw.max")["gpu0"] == 500.0
    assert result.values("nvml.samples")["gpu0"] == 4


def test_several_gpus_each_get_their_own_facts() -> None:
    gpus = [
        FakeGpu(name=b"NVIDIA A100", bus_id=b"00000000:17:00.0", tx_kb_s=693),
        FakeGpu(name="NVIDIA A100", bus_id="00000000:65:00.0", tx_kb_s=1_000_000, link_gen=4),
    ]
    nvml = FakeNvml(gpus)
    result = parse_nvml(run(nvml)[0])
    assert result.values("pcie.tx_throughput") == {"gpu0": 693.0, "gpu1": 1_000_000.0}
    assert result.values("pci.bus_id") == {"gpu0": "00000000:17:00.0", "gpu1": "00000000:65:00.0"}
    assert result.values("name") == {"gpu0": "NVIDIA A100", "gpu1": "NVIDIA A100"}
    assert result.values("pcie.link.gen.current") == {"gpu0": 5, "gpu1": 4}
    assert result.values("nvml.samples") == {"gpu0": 4, "gpu1": 4}
    assert nvml.shutdowns == 1


def test_init_failure_is_a_result_not_an_exception() -> None:
    nvml = FakeNvml([FakeGpu()], init_error="Driver Not Loaded")
    text, _ = run(nvml)
    assert records(text) == [
        {"type": "error", "error": "nvmlInit failed: FakeNvmlError: Driver Not Loaded"}
    ]
    result = parse_nvml(text)
    assert not result.parsed
    assert "Driver Not Loaded" in result.problems[0]
    assert nvml.shutdowns == 0


def test_no_gpus_gives_no_samples() -> None:
    result = parse_nvml(run(FakeNvml([]))[0])
    assert not result.parsed
    assert "no NVML samples" in result.problems[0]


@pytest.mark.parametrize("text", ["", "   \n", "garbage", "[1, 2]\n", '{"type": "header"}'])
def test_empty_and_garbage_are_unparsed(text: str) -> None:
    result = parse_nvml(text)
    assert not result.parsed and result.problems


def test_stray_lines_are_skipped_with_a_problem() -> None:
    text = run(FakeNvml([FakeGpu()]))[0] + "not json\n"
    result = parse_nvml(text)
    assert result.parsed
    assert "1 lines were not JSON objects and were skipped" in result.problems


def test_probe_declares_a_sampler_that_needs_load() -> None:
    assert PROBE.name == "nvml-sampler"
    assert PROBE.where == frozenset({"sampler"})
    assert PROBE.sampler is sample_local
    assert PROBE.needs_load and PROBE.cost == "cheap"
    assert "pcie.tx_throughput.max" in PROBE.facts


def test_the_adapter_maps_pynvml_constants_and_bytes() -> None:
    seen: list[tuple[str, Any]] = []

    def record(name: str, value: Any) -> Any:
        def call(*args: Any) -> Any:
            seen.append((name, args[1:]))
            return value

        return call

    module = SimpleNamespace(
        NVML_PCIE_UTIL_TX_BYTES=10,
        NVML_PCIE_UTIL_RX_BYTES=11,
        NVML_CLOCK_SM=12,
        NVML_TEMPERATURE_GPU=13,
        nvmlInit=lambda: None,
        nvmlShutdown=lambda: None,
        nvmlDeviceGetCount=lambda: 1,
        nvmlDeviceGetHandleByIndex=lambda index: "handle",
        nvmlDeviceGetName=lambda handle: b"NVIDIA L40S",
        nvmlDeviceGetPciInfo=lambda handle: SimpleNamespace(busId=b"00000000:3B:00.0"),
        nvmlDeviceGetPcieThroughput=record("throughput", 5),
        nvmlDeviceGetUtilizationRates=lambda handle: SimpleNamespace(gpu=7, memory=3),
        nvmlDeviceGetPowerUsage=lambda handle: 100_000,
        nvmlDeviceGetEnforcedPowerLimit=lambda handle: 350_000,
        nvmlDeviceGetClockInfo=record("clock", 2520),
        nvmlDeviceGetCurrPcieLinkGeneration=lambda handle: 4,
        nvmlDeviceGetCurrPcieLinkWidth=lambda handle: 16,
        nvmlDeviceGetMaxPcieLinkGeneration=lambda handle: 4,
        nvmlDeviceGetMaxPcieLinkWidth=lambda handle: 16,
        nvmlDeviceGetTemperature=record("temperature", 30),
    )
    clock = FakeClock()
    result = parse_nvml(sample(PynvmlApi(module), 0.0, clock=clock, sleep=clock.sleep))
    assert ("throughput", (10,)) in seen and ("throughput", (11,)) in seen
    assert ("clock", (12,)) in seen and ("temperature", (13,)) in seen
    assert result.values("name") == {"gpu0": "NVIDIA L40S"}
    assert result.values("pci.bus_id") == {"gpu0": "00000000:3B:00.0"}
    assert result.values("power.limit") == {"gpu0": 350.0}


@pytest.fixture
def real_nvml() -> Iterator[None]:
    try:
        import pynvml
    except ImportError as error:
        pytest.skip(f"pynvml not installed: {error}")
    try:
        pynvml.nvmlInit()
    except Exception as error:
        pytest.skip(f"NVML cannot initialise here (no NVIDIA driver or GPU): {error}")
    pynvml.nvmlShutdown()
    yield


@pytest.mark.gpu
def test_real_sampler_on_a_local_gpu(real_nvml: None) -> None:
    result = parse_nvml(sample_local(0.5))
    assert result.parsed, result.problems
    samples = result.values("nvml.samples")
    assert samples and all(isinstance(n, int) and n >= 1 for n in samples.values())
    assert set(result.values("name")) == set(samples)
    assert result.values("pci.bus_id")
    assert result.values("utilization.gpu")
