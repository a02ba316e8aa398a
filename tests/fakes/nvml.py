"""A fake NVML with the shape of :class:`casefile_probes.nvml.NvmlApi`.

Each GPU is a :class:`FakeGpu` whose readings are either fixed values or sequences (one item
per call, the last repeated), and whose calls can be made to fail: ``unsupported`` names
calls that raise :class:`FakeNvmlError` ("Not Supported") every time, ``fail_at`` makes a
call fail on given call numbers only (a transient error). A :class:`FakeClock` lets the
sampling loop run without real sleeping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


class FakeNvmlError(Exception):
    """Like pynvml.NVMLError: a failing NVML call."""


@dataclass
class FakeUtilization:
    gpu: int
    memory: int


@dataclass
class FakePciInfo:
    busId: str | bytes


Reading = int | Sequence[int]


@dataclass
class FakeGpu:
    name: str | bytes = "NVIDIA H200"
    bus_id: str | bytes = "00000000:01:00.0"
    tx_kb_s: Reading = 1000
    rx_kb_s: Reading = 2000
    util_gpu: Reading = 50
    util_memory: Reading = 25
    power_mw: Reading = 300_000
    power_limit_mw: int = 600_000
    clock_sm_mhz: Reading = 1980
    link_gen: Reading = 5
    link_width: Reading = 16
    max_link_gen: int = 5
    max_link_width: int = 16
    temperature_c: Reading = 40
    unsupported: set[str] = field(default_factory=set)
    fail_at: dict[str, set[int]] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def read(self, call: str, value: Reading) -> int:
        number = self.calls.get(call, 0)
        self.calls[call] = number + 1
        if call in self.unsupported:
            raise FakeNvmlError("Not Supported")
        if number in self.fail_at.get(call, set()):
            raise FakeNvmlError("Unknown Error")
        if isinstance(value, int):
            return value
        return value[min(number, len(value) - 1)]

    def check(self, call: str) -> None:
        self.read(call, 0)


class FakeClock:
    """A monotonic clock that moves only when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class FakeNvml:
    """Implements the NvmlApi protocol over a list of fake GPUs."""

    def __init__(self, gpus: list[FakeGpu], *, init_error: str | None = None) -> None:
        self.gpus = gpus
        self.init_error = init_error
        self.initialised = False
        self.shutdowns = 0

    def nvmlInit(self) -> None:
        if self.init_error:
            raise FakeNvmlError(self.init_error)
        self.initialised = True

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1
        self.initialised = False

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> object:
        return self.gpus[index]

    def _gpu(self, handle: object) -> FakeGpu:
        assert isinstance(handle, FakeGpu)
        assert self.initialised, "NVML used before nvmlInit or after nvmlShutdown"
        return handle

    def nvmlDeviceGetName(self, handle: object) -> str | bytes:
        gpu = self._gpu(handle)
        gpu.check("name")
        return gpu.name

    def nvmlDeviceGetPciInfo(self, handle: object) -> FakePciInfo:
        gpu = self._gpu(handle)
        gpu.check("pci")
        return FakePciInfo(gpu.bus_id)

    def nvmlDeviceGetPcieThroughput(self, handle: object, counter: int) -> int:
        gpu = self._gpu(handle)
        if counter == 0:
            return gpu.read("tx", gpu.tx_kb_s)
        return gpu.read("rx", gpu.rx_kb_s)

    def nvmlDeviceGetUtilizationRates(self, handle: object) -> FakeUtilization:
        gpu = self._gpu(handle)
        return FakeUtilization(
            gpu.read("util", gpu.util_gpu), gpu.read("util_mem", gpu.util_memory)
        )

    def nvmlDeviceGetPowerUsage(self, handle: object) -> int:
        gpu = self._gpu(handle)
        return gpu.read("power", gpu.power_mw)

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: object) -> int:
        gpu = self._gpu(handle)
        return gpu.read("power_limit", gpu.power_limit_mw)

    def nvmlDeviceGetClockInfo(self, handle: object, clock: int) -> int:
        gpu = self._gpu(handle)
        return gpu.read("clock", gpu.clock_sm_mhz)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: object) -> int:
        gpu = self._gpu(handle)
        return gpu.read("link_gen", gpu.link_gen)

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: object) -> int:
        gpu = self._gpu(handle)
        return gpu.read("link_width", gpu.link_width)

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: object) -> int:
        gpu = self._gpu(handle)
        return gpu.read("max_link_gen", gpu.max_link_gen)

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: object) -> int:
        gpu = self._gpu(handle)
        return gpu.read("max_link_width", gpu.max_link_width)

    def nvmlDeviceGetTemperature(self, handle: object, sensor: int) -> int:
        gpu = self._gpu(handle)
        return gpu.read("temperature", gpu.temperature_c)
