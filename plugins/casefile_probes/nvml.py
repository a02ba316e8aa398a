"""NVML sampler: utilisation, PCIe throughput, power and clocks over a window, in-process.

The founding case turned on one measurement taken under load: PCIe moving ~1 GB/s of a
~64 GB/s link. Polling nvidia-smi is slow and coarse; NVML gives the same counters directly,
so this probe samples them every ``interval_s`` over ``window_s`` seconds while the workload
runs, and keeps the samples as raw JSON lines (stored as the probe's output like any other).

Raw format (one JSON object a line): first a ``{"type": "header", ...}`` line with static
information per GPU (name, bus id, max link generation and width, enforced power limit) and
the window; then one ``{"type": "sample", "t": seconds, "gpu": index, ...}`` line per sample
per GPU, in NVML's own units (KB/s, mW, MHz, °C, %). A call NVML does not support leaves its
field out (never zero) and is recorded under ``"errors"``. If NVML cannot start, the output
is a single ``{"type": "error"}`` line.

Facts, named as nvidia-smi's ``--query-gpu`` fields, per ``gpu<N>``: mean over the window
under the plain name and the largest sample under ``<name>.max`` for
``pcie.tx_throughput`` / ``pcie.rx_throughput`` (KB/s), ``utilization.gpu`` /
``utilization.memory`` (%), ``power.draw`` (W), ``clocks.sm`` (MHz) and
``temperature.gpu`` (C); ``pcie.link.gen.current`` / ``pcie.link.width.current`` are the
highest seen (idle links train down and come back up under load); static ``power.limit``
(W), ``pcie.link.gen.max``, ``pcie.link.width.max``, ``name``, ``pci.bus_id``; and
``nvml.samples`` (int).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any, Protocol

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._scales import UTILISATION

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI

__all__ = [
    "PROBE",
    "NvmlApi",
    "PynvmlApi",
    "parse_nvml",
    "sample",
    "sample_local",
]

# NVML's enum values (nvml.h); the adapter maps them onto pynvml's constants.
PCIE_UTIL_TX_BYTES = 0
PCIE_UTIL_RX_BYTES = 1
CLOCK_SM = 1
TEMPERATURE_GPU = 0
FORMAT_VERSION = 1


class Utilization(Protocol):
    gpu: int
    memory: int


class PciInfo(Protocol):
    busId: str | bytes


class NvmlApi(Protocol):
    """The subset of pynvml this sampler calls; tests provide a fake with the same shape."""

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlDeviceGetCount(self) -> int: ...
    def nvmlDeviceGetHandleByIndex(self, index: int) -> object: ...
    def nvmlDeviceGetName(self, handle: object) -> str | bytes: ...
    def nvmlDeviceGetPciInfo(self, handle: object) -> PciInfo: ...
    def nvmlDeviceGetPcieThroughput(self, handle: object, counter: int) -> int: ...
    def nvmlDeviceGetUtilizationRates(self, handle: object) -> Utilization: ...
    def nvmlDeviceGetPowerUsage(self, handle: object) -> int: ...
    def nvmlDeviceGetEnforcedPowerLimit(self, handle: object) -> int: ...
    def nvmlDeviceGetClockInfo(self, handle: object, clock: int) -> int: ...
    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: object) -> int: ...
    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: object) -> int: ...
    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: object) -> int: ...
    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: object) -> int: ...
    def nvmlDeviceGetTemperature(self, handle: object, sensor: int) -> int: ...


def _text(value: object) -> str:
    # Older pynvml releases return bytes for names and bus ids.
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


class PynvmlApi:
    """:class:`NvmlApi` over the real ``pynvml`` module (package nvidia-ml-py)."""

    def __init__(self, module: Any) -> None:
        self._nvml = module

    def nvmlInit(self) -> None:
        self._nvml.nvmlInit()

    def nvmlShutdown(self) -> None:
        self._nvml.nvmlShutdown()

    def nvmlDeviceGetCount(self) -> int:
        return int(self._nvml.nvmlDeviceGetCount())

    def nvmlDeviceGetHandleByIndex(self, index: int) -> object:
        return self._nvml.nvmlDeviceGetHandleByIndex(index)

    def nvmlDeviceGetName(self, handle: object) -> str | bytes:
        name: str | bytes = self._nvml.nvmlDeviceGetName(handle)
        return name

    def nvmlDeviceGetPciInfo(self, handle: object) -> PciInfo:
        info: PciInfo = self._nvml.nvmlDeviceGetPciInfo(handle)
        return info

    def nvmlDeviceGetPcieThroughput(self, handle: object, counter: int) -> int:
        constant = (
            self._nvml.NVML_PCIE_UTIL_TX_BYTES
            if counter == PCIE_UTIL_TX_BYTES
            else self._nvml.NVML_PCIE_UTIL_RX_BYTES
        )
        return int(self._nvml.nvmlDeviceGetPcieThroughput(handle, constant))

    def nvmlDeviceGetUtilizationRates(self, handle: object) -> Utilization:
        rates: Utilization = self._nvml.nvmlDeviceGetUtilizationRates(handle)
        return rates

    def nvmlDeviceGetPowerUsage(self, handle: object) -> int:
        return int(self._nvml.nvmlDeviceGetPowerUsage(handle))

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: object) -> int:
        return int(self._nvml.nvmlDeviceGetEnforcedPowerLimit(handle))

    def nvmlDeviceGetClockInfo(self, handle: object, clock: int) -> int:
        return int(self._nvml.nvmlDeviceGetClockInfo(handle, self._nvml.NVML_CLOCK_SM))

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: object) -> int:
        return int(self._nvml.nvmlDeviceGetCurrPcieLinkGeneration(handle))

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: object) -> int:
        return int(self._nvml.nvmlDeviceGetCurrPcieLinkWidth(handle))

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: object) -> int:
        return int(self._nvml.nvmlDeviceGetMaxPcieLinkGeneration(handle))

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: object) -> int:
        return int(self._nvml.nvmlDeviceGetMaxPcieLinkWidth(handle))

    def nvmlDeviceGetTemperature(self, handle: object, sensor: int) -> int:
        return int(self._nvml.nvmlDeviceGetTemperature(handle, self._nvml.NVML_TEMPERATURE_GPU))


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _call(record: dict[str, Any], errors: dict[str, str], key: str, fn: Callable[[], Any]) -> None:
    """Store one reading; a failing call (not supported, GPU lost …) leaves the key out."""
    try:
        record[key] = fn()
    except Exception as error:
        errors[key] = _error_text(error)


def _static(api: NvmlApi, index: int, handle: object) -> dict[str, Any]:
    info: dict[str, Any] = {"gpu": index}
    errors: dict[str, str] = {}
    _call(info, errors, "name", lambda: _text(api.nvmlDeviceGetName(handle)))
    _call(info, errors, "bus_id", lambda: _text(api.nvmlDeviceGetPciInfo(handle).busId))
    _call(info, errors, "max_link_gen", lambda: api.nvmlDeviceGetMaxPcieLinkGeneration(handle))
    _call(info, errors, "max_link_width", lambda: api.nvmlDeviceGetMaxPcieLinkWidth(handle))
    _call(info, errors, "power_limit_mw", lambda: api.nvmlDeviceGetEnforcedPowerLimit(handle))
    if errors:
        info["errors"] = errors
    return info


def _reading(api: NvmlApi, index: int, handle: object, t: float) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "sample", "t": round(t, 4), "gpu": index}
    errors: dict[str, str] = {}
    tx, rx = PCIE_UTIL_TX_BYTES, PCIE_UTIL_RX_BYTES
    _call(record, errors, "pcie_tx_kb_s", lambda: api.nvmlDeviceGetPcieThroughput(handle, tx))
    _call(record, errors, "pcie_rx_kb_s", lambda: api.nvmlDeviceGetPcieThroughput(handle, rx))
    rates: dict[str, Any] = {}
    _call(rates, errors, "util", lambda: api.nvmlDeviceGetUtilizationRates(handle))
    if "util" in rates:
        _call(record, errors, "util_gpu", lambda: int(rates["util"].gpu))
        _call(record, errors, "util_memory", lambda: int(rates["util"].memory))
    _call(record, errors, "power_mw", lambda: api.nvmlDeviceGetPowerUsage(handle))
    _call(record, errors, "clock_sm_mhz", lambda: api.nvmlDeviceGetClockInfo(handle, CLOCK_SM))
    _call(record, errors, "link_gen", lambda: api.nvmlDeviceGetCurrPcieLinkGeneration(handle))
    _call(record, errors, "link_width", lambda: api.nvmlDeviceGetCurrPcieLinkWidth(handle))
    _call(
        record,
        errors,
        "temperature_c",
        lambda: api.nvmlDeviceGetTemperature(handle, TEMPERATURE_GPU),
    )
    if errors:
        record["errors"] = errors
    return record


def sample(
    api: NvmlApi,
    window_s: float,
    interval_s: float = 0.1,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Sample every GPU every ``interval_s`` for ``window_s``; return JSON lines.

    Samples are taken at 0, interval, 2·interval … while that offset is below the window
    (always at least one). Never raises: if NVML cannot start or enumerate GPUs, the
    output is one ``error`` line that the parser turns into an unparsed result.
    """
    interval = interval_s if interval_s > 0 else 0.1
    window = max(window_s, 0.0)
    try:
        api.nvmlInit()
    except Exception as error:
        return json.dumps({"type": "error", "error": f"nvmlInit failed: {_error_text(error)}"})
    lines: list[str] = []
    try:
        try:
            count = api.nvmlDeviceGetCount()
            handles = [(i, api.nvmlDeviceGetHandleByIndex(i)) for i in range(count)]
        except Exception as error:
            return json.dumps({"type": "error", "error": f"no GPUs: {_error_text(error)}"})
        header = {
            "type": "header",
            "version": FORMAT_VERSION,
            "window_s": window,
            "interval_s": interval,
            "gpus": [_static(api, index, handle) for index, handle in handles],
        }
        lines.append(json.dumps(header))
        start = clock()
        k = 0
        while True:
            now = clock() - start
            for index, handle in handles:
                lines.append(json.dumps(_reading(api, index, handle, now)))
            k += 1
            offset = k * interval
            if offset >= window:
                break
            delay = start + offset - clock()
            if delay > 0:
                sleep(delay)
    finally:
        # Shutting down is best effort: the samples are already taken.
        with contextlib.suppress(Exception):
            api.nvmlShutdown()
    return "\n".join(lines) + "\n"


def sample_local(window_s: float) -> str:
    """The probe's sampler: the real pynvml on this machine, at 10 samples a second."""
    try:
        import pynvml
    except Exception as error:
        return json.dumps({"type": "error", "error": f"pynvml not importable: {error}"})
    return sample(PynvmlApi(pynvml), window_s, 0.1)


# (raw key, fact name, unit, scale) for values averaged over the window.
_MEANS: tuple[tuple[str, str, str, float], ...] = (
    ("pcie_tx_kb_s", "pcie.tx_throughput", "KB/s", 1.0),
    ("pcie_rx_kb_s", "pcie.rx_throughput", "KB/s", 1.0),
    ("util_gpu", "utilization.gpu", "%", 1.0),
    ("util_memory", "utilization.memory", "%", 1.0),
    ("power_mw", "power.draw", "W", 0.001),
    ("clock_sm_mhz", "clocks.sm", "MHz", 1.0),
    ("temperature_c", "temperature.gpu", "C", 1.0),
)
_HIGHEST: tuple[tuple[str, str, str | None], ...] = (
    ("link_gen", "pcie.link.gen.current", None),
    ("link_width", "pcie.link.width.current", "lanes"),
)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return float(value)


def _load(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    records: list[dict[str, Any]] = []
    bad = 0
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad += 1
    problems = [f"{bad} lines were not JSON objects and were skipped"] if bad else []
    return records, problems


def _static_facts(gpus: object, result: ParseResult) -> None:
    if not isinstance(gpus, list):
        return
    for info in gpus:
        if not isinstance(info, dict) or not isinstance(info.get("gpu"), int):
            continue
        subject = f"gpu{info['gpu']}"
        name, bus = info.get("name"), info.get("bus_id")
        result.add("name", name if isinstance(name, str) else None, subject)
        result.add("pci.bus_id", bus if isinstance(bus, str) else None, subject)
        gen, width = _number(info.get("max_link_gen")), _number(info.get("max_link_width"))
        result.add("pcie.link.gen.max", int(gen) if gen is not None else None, subject)
        result.add("pcie.link.width.max", int(width) if width else None, subject, "lanes")
        limit = _number(info.get("power_limit_mw"))
        result.add("power.limit", round(limit / 1000, 3) if limit else None, subject, "W")


def parse_nvml(text: str) -> ParseResult:
    """Facts from the sampler's JSON lines: means and maxima per GPU."""
    if not isinstance(text, str) or not text.strip():
        return ParseResult.unparsed("empty output: the NVML sampler recorded nothing")
    records, problems = _load(text)
    errors = [r for r in records if r.get("type") == "error"]
    samples = [r for r in records if r.get("type") == "sample" and isinstance(r.get("gpu"), int)]
    headers = [r for r in records if r.get("type") == "header"]
    if not samples:
        if errors:
            return ParseResult.unparsed(f"NVML sampling failed: {errors[0].get('error')}")
        return ParseResult.unparsed("no NVML samples found (not the nvml-sampler's JSON lines)")
    result = ParseResult(problems=problems)
    for header in headers[:1]:
        _static_facts(header.get("gpus"), result)
        for info in header.get("gpus") or []:
            if isinstance(info, dict) and isinstance(info.get("errors"), dict):
                names = ", ".join(sorted(str(k) for k in info["errors"]))
                result.problems.append(f"gpu{info.get('gpu')}: NVML could not read {names}")
    by_gpu: dict[int, list[dict[str, Any]]] = {}
    for record in samples:
        by_gpu.setdefault(record["gpu"], []).append(record)
    for gpu, rows in sorted(by_gpu.items()):
        subject = f"gpu{gpu}"
        result.add("nvml.samples", len(rows), subject)
        for key, name, unit, scale in _MEANS:
            values = [v * scale for r in rows if (v := _number(r.get(key))) is not None]
            if values:
                result.add(name, round(sum(values) / len(values), 3), subject, unit)
                result.add(f"{name}.max", round(max(values), 3), subject, unit)
        for key, name, high_unit in _HIGHEST:
            values = [v for r in rows if (v := _number(r.get(key))) is not None]
            if values:
                result.add(name, int(max(values)), subject, high_unit)
        failed = sorted({k for r in rows if isinstance(r.get("errors"), dict) for k in r["errors"]})
        if failed:
            result.problems.append(f"{subject}: NVML could not read {', '.join(failed)}")
    return result


PROBE = Probe(
    name="nvml-sampler",
    summary="Utilisation, PCIe throughput, power and clocks sampled through NVML over a window",
    parse=parse_nvml,
    where=frozenset({"sampler"}),
    cost="cheap",
    facts=(
        "pcie.tx_throughput",
        "pcie.tx_throughput.max",
        "pcie.rx_throughput",
        "pcie.rx_throughput.max",
        "utilization.gpu",
        "utilization.gpu.max",
        "utilization.memory",
        "utilization.memory.max",
        "power.draw",
        "power.draw.max",
        "power.limit",
        "clocks.sm",
        "clocks.sm.max",
        "temperature.gpu",
        "temperature.gpu.max",
        "pcie.link.gen.current",
        "pcie.link.gen.max",
        "pcie.link.width.current",
        "pcie.link.width.max",
        "name",
        "pci.bus_id",
        "nvml.samples",
    ),
    percentages=UTILISATION,
    needs_load=True,
    sampler=sample_local,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
