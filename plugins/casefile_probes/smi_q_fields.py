"""Which paths of ``nvidia-smi -q`` become which facts, and how each value is read: the table
:mod:`casefile_probes.smi_q` looks paths up in as it walks the report's indentation.

Paths are lower case and ``/``-joined with the GPU header left out (``pci/gpu link info/link
width/current``). Each older spelling a driver used maps to the same fact ("Clocks Throttle
Reasons" and "Clocks Event Reasons", "Power Readings" and "GPU Power Readings"), and a value in
an unexpected unit gives no fact rather than a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from casefile.domain.facts import FactValue

from ._text import is_missing, normalise_bus_id, parse_quantity

__all__ = ["HOST_FIELDS", "Field", "lookup"]

Converter = Callable[[str], FactValue | None]


def _quantity(*units: str, scale: dict[str, float] | None = None) -> Converter:
    """A converter for ``<number> <unit>`` that accepts only the expected unit(s)."""

    def convert(value: str) -> FactValue | None:
        parsed = parse_quantity(value)
        if parsed is None:
            return None
        number, unit = parsed
        if unit is None or unit in units:
            return number
        if scale and unit in scale:
            return round(number * scale[unit], 3)
        return None

    return convert


def _text(value: str) -> FactValue | None:
    return None if is_missing(value) else value.strip()


def _int(value: str) -> FactValue | None:
    parsed = parse_quantity(value)
    if parsed is None or not isinstance(parsed[0], int):
        return None
    return parsed[0]


def _width(value: str) -> FactValue | None:
    match = re.fullmatch(r"x?(\d+)x?", value.strip())
    return int(match.group(1)) if match else None


def _flag(value: str) -> FactValue | None:
    words = {"active": True, "not active": False, "yes": True, "no": False}
    return words.get(value.strip().lower())


def _bus_id(value: str) -> FactValue | None:
    return normalise_bus_id(value)


@dataclass(frozen=True, slots=True)
class Field:
    """A fact a report path gives: its name, how its value is read, and its unit."""

    name: str
    convert: Converter
    unit: str | None = None


_PERCENT = _quantity("%")
_MIB = _quantity("MiB")
_WATT = _quantity("W")
_CELSIUS = _quantity("C")
_MHZ = _quantity("MHz")
_KBPS = _quantity("KB/s", scale={"MB/s": 1000.0, "GB/s": 1_000_000.0, "B/s": 0.001})

# GPU-level paths (lower case, "/"-joined, GPU header excluded) → fact.
_FIELDS: dict[str, Field] = {
    "product name": Field("name", _text),
    "persistence mode": Field("persistence_mode", _text),
    "performance state": Field("pstate", _text),
    "compute mode": Field("compute_mode", _text),
    "fan speed": Field("fan.speed", _PERCENT, "%"),
    "mig mode/current": Field("mig.mode.current", _text),
    "ecc mode/current": Field("ecc.mode.current", _text),
    "driver model/current": Field("driver_model.current", _text),
    "gpu virtualization mode/virtualization mode": Field("virtualization.mode", _text),
    "pci/bus id": Field("pci.bus_id", _bus_id),
    "pci/gpu link info/pcie generation/current": Field("pcie.link.gen.current", _int),
    "pci/gpu link info/pcie generation/max": Field("pcie.link.gen.max", _int),
    "pci/gpu link info/pcie generation/device current": Field("pcie.link.gen.gpucurrent", _int),
    "pci/gpu link info/pcie generation/device max": Field("pcie.link.gen.gpumax", _int),
    "pci/gpu link info/pcie generation/host max": Field("pcie.link.gen.hostmax", _int),
    "pci/gpu link info/link width/current": Field("pcie.link.width.current", _width),
    "pci/gpu link info/link width/max": Field("pcie.link.width.max", _width),
    "pci/replays since reset": Field("pcie.replays_since_reset", _int),
    "pci/tx throughput": Field("pcie.tx_throughput", _KBPS, "KB/s"),
    "pci/rx throughput": Field("pcie.rx_throughput", _KBPS, "KB/s"),
    "fb memory usage/total": Field("memory.total", _MIB, "MiB"),
    "fb memory usage/used": Field("memory.used", _MIB, "MiB"),
    "fb memory usage/free": Field("memory.free", _MIB, "MiB"),
    "fb memory usage/reserved": Field("memory.reserved", _MIB, "MiB"),
    "utilization/gpu": Field("utilization.gpu", _PERCENT, "%"),
    "utilization/memory": Field("utilization.memory", _PERCENT, "%"),
    "utilization/encoder": Field("utilization.encoder", _PERCENT, "%"),
    "utilization/decoder": Field("utilization.decoder", _PERCENT, "%"),
    "temperature/gpu current temp": Field("temperature.gpu", _CELSIUS, "C"),
    # drivers before about 2014 (304.x) print the GPU's temperature as "Gpu : 49 C"
    "temperature/gpu": Field("temperature.gpu", _CELSIUS, "C"),
    "temperature/memory current temp": Field("temperature.memory", _CELSIUS, "C"),
    "temperature/memory temp": Field("temperature.memory", _CELSIUS, "C"),
    "temperature/gpu shutdown temp": Field("temperature.gpu.shutdown", _CELSIUS, "C"),
    "temperature/gpu slowdown temp": Field("temperature.gpu.slowdown", _CELSIUS, "C"),
    "temperature/gpu max operating temp": Field("temperature.gpu.max_operating", _CELSIUS, "C"),
    "temperature/gpu target temperature": Field("temperature.gpu.target", _CELSIUS, "C"),
    "temperature/gpu t.limit temp": Field("temperature.gpu.tlimit", _CELSIUS, "C"),
    "temperature/memory max operating temp": Field(
        "temperature.memory.max_operating", _CELSIUS, "C"
    ),
    "applications clocks/graphics": Field("clocks.applications.gr", _MHZ, "MHz"),
    "applications clocks/memory": Field("clocks.applications.mem", _MHZ, "MHz"),
    "default applications clocks/graphics": Field("clocks.default_applications.gr", _MHZ, "MHz"),
    "default applications clocks/memory": Field("clocks.default_applications.mem", _MHZ, "MHz"),
    "max customer boost clocks/graphics": Field("clocks.max_customer_boost.gr", _MHZ, "MHz"),
    "clocks/graphics": Field("clocks.gr", _MHZ, "MHz"),
    "clocks/sm": Field("clocks.sm", _MHZ, "MHz"),
    "clocks/memory": Field("clocks.mem", _MHZ, "MHz"),
    "clocks/video": Field("clocks.video", _MHZ, "MHz"),
    "max clocks/graphics": Field("clocks.max.gr", _MHZ, "MHz"),
    "max clocks/sm": Field("clocks.max.sm", _MHZ, "MHz"),
    "max clocks/memory": Field("clocks.max.mem", _MHZ, "MHz"),
    "retired pages/single bit ecc": Field("retired_pages.sbe", _int),
    "retired pages/double bit ecc": Field("retired_pages.dbe", _int),
    "retired pages/pending page blacklist": Field("retired_pages.pending", _flag),
    "retired pages/pending": Field("retired_pages.pending", _flag),
    "remapped rows/correctable error": Field("remapped_rows.correctable", _int),
    "remapped rows/uncorrectable error": Field("remapped_rows.uncorrectable", _int),
    "remapped rows/pending": Field("remapped_rows.pending", _flag),
    "remapped rows/remapping failure occurred": Field("remapped_rows.failure", _flag),
    "fabric/state": Field("fabric.state", _text),
    "fabric/status": Field("fabric.status", _text),
}

# Power readings moved from "Power Readings" to "GPU Power Readings" in 530-era drivers.
_POWER = {
    "power draw": Field("power.draw", _WATT, "W"),
    "average power draw": Field("power.draw.average", _WATT, "W"),
    "instantaneous power draw": Field("power.draw.instant", _WATT, "W"),
    "power limit": Field("power.limit", _WATT, "W"),
    "current power limit": Field("power.limit", _WATT, "W"),
    "enforced power limit": Field("enforced.power.limit", _WATT, "W"),
    "default power limit": Field("power.default_limit", _WATT, "W"),
    "min power limit": Field("power.min_limit", _WATT, "W"),
    "max power limit": Field("power.max_limit", _WATT, "W"),
}
for _section in ("power readings", "gpu power readings"):
    for _key, _field in _POWER.items():
        _FIELDS[f"{_section}/{_key}"] = _field

for _kind in ("volatile", "aggregate"):
    for _memory in ("dram", "sram"):
        _FIELDS[f"ecc errors/{_kind}/{_memory} correctable"] = Field(
            f"ecc.errors.corrected.{_kind}.{_memory}", _int
        )
        _FIELDS[f"ecc errors/{_kind}/{_memory} uncorrectable"] = Field(
            f"ecc.errors.uncorrected.{_kind}.{_memory}", _int
        )
    _FIELDS[f"ecc errors/{_kind}/single bit/total"] = Field(
        f"ecc.errors.corrected.{_kind}.total", _int
    )
    _FIELDS[f"ecc errors/{_kind}/double bit/total"] = Field(
        f"ecc.errors.uncorrected.{_kind}.total", _int
    )

_REASONS = {
    "idle": "gpu_idle",
    "applications clocks setting": "applications_clocks_setting",
    "sw power cap": "sw_power_cap",
    "hw slowdown": "hw_slowdown",
    "hw thermal slowdown": "hw_thermal_slowdown",
    "hw power brake slowdown": "hw_power_brake_slowdown",
    "sync boost": "sync_boost",
    "sw thermal slowdown": "sw_thermal_slowdown",
    "display clock setting": "display_clock_setting",
}
_REASON_SECTIONS = ("clocks throttle reasons", "clocks event reasons")

# "Clocks Event Reasons Counters" (550+ drivers): time spent held back since the driver
# loaded, in microseconds; the flags above say only what holds the clocks right now.
_COUNTERS = {
    "sw power capping": "sw_power_cap",
    "sync boost": "sync_boost",
    "sw thermal slowdown": "sw_thermal_slowdown",
    "hw thermal slowdown": "hw_thermal_slowdown",
    "hw power braking": "hw_power_brake_slowdown",
}
_MICROSECONDS = _quantity("us")
for _key, _reason in _COUNTERS.items():
    _FIELDS[f"clocks event reasons counters/{_key}"] = Field(
        f"clocks_event_reasons_counters.{_reason}", _MICROSECONDS, "us"
    )

#: host-level keys (indent 0, before or between the GPU sections) → fact
HOST_FIELDS: dict[str, Field] = {
    "driver version": Field("driver_version", _text),
    "cuda version": Field("cuda_version", _text),
    "attached gpus": Field("count", _int),
}


#: keys nvidia-smi -q prints under one section only, so a fragment that starts below that
#: section's header (a paste from the middle of "PCI") still says whose they are
_ONE_HOME = {"tx throughput": "pci", "rx throughput": "pci"}


def lookup_orphan(key: str) -> tuple[list[str], Field] | None:
    """The path and fact of a key read without its section header, where only one section
    holds it (:data:`_ONE_HOME`)."""
    home = _ONE_HOME.get(key)
    if home is None:
        return None
    known = _FIELDS.get(f"{home}/{key}")
    return ([home, key], known) if known is not None else None


def lookup(path: list[str]) -> Field | None:
    """The fact a GPU-level path (lower case, GPU header left out) gives, if it is known."""
    joined = "/".join(path)
    known = _FIELDS.get(joined)
    if known is not None:
        return known
    # Reasons nest (HW Thermal Slowdown sits under HW Slowdown); the last key names them.
    if path and path[0] in _REASON_SECTIONS and path[-1] in _REASONS:
        return Field(f"clocks_event_reasons.{_REASONS[path[-1]]}", _flag)
    return None
