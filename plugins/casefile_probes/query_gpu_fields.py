"""The fields of ``nvidia-smi --query-*``: what each is called in facts, its unit when the
header gives none, which stay text, what a cell's value is, and NVML's clocks event reason
bits. :mod:`casefile_probes.query_gpu` reads the CSV and names its subjects.
"""

from __future__ import annotations

from casefile.domain.facts import FactValue

from ._text import is_missing, normalise_bus_id, parse_quantity, to_number

__all__ = ["REASON_BITS", "canonical", "cell_value", "known_unit"]

# Aliases (command line or header) → the fact name casefile uses.
_ALIASES = {
    "gpu_name": "name",
    "gpu_bus_id": "pci.bus_id",
    "gpu_uuid": "uuid",
    "gpu_serial": "serial",
    "clocks.current.graphics": "clocks.gr",
    "clocks.graphics": "clocks.gr",
    "clocks.current.sm": "clocks.sm",
    "clocks.current.memory": "clocks.mem",
    "clocks.memory": "clocks.mem",
    "clocks.current.video": "clocks.video",
    "clocks.max.graphics": "clocks.max.gr",
    "clocks.max.memory": "clocks.max.mem",
    "clocks.applications.graphics": "clocks.applications.gr",
    "clocks.applications.memory": "clocks.applications.mem",
    "performance_state": "pstate",
}

# Units of fields whose header carries none (or when there is no header at all).
_UNITS = (
    ("temperature.", "C"),
    ("fan.speed", "%"),
    ("utilization.", "%"),
    ("memory.", "MiB"),
    ("power.draw", "W"),
    ("power.limit", "W"),
    ("power.default_limit", "W"),
    ("power.min_limit", "W"),
    ("power.max_limit", "W"),
    ("enforced.power.limit", "W"),
    ("clocks.", "MHz"),
    ("used_memory", "MiB"),
    ("used_gpu_memory", "MiB"),
)
_NO_UNIT = ("memory.ecc", "clocks_event_reasons", "clocks_throttle_reasons", "clocks_event")

# Fields whose values stay text even when they look like numbers ("7.0", "535.86").
_TEXT_FIELDS = frozenset(
    {
        "name",
        "pci.bus_id",
        "driver_version",
        "vbios_version",
        "uuid",
        "serial",
        "compute_cap",
        "pstate",
        "timestamp",
        "inforom.img",
        "inforom.oem",
        "inforom.ecc",
        "inforom.pwr",
        "process_name",
        "gpu_uuid",
        "gpu_bus_id",
        "pci.device_id",
        "pci.sub_device_id",
    }
)

# NVML's clocks event reason bits (nvmlClocksEventReason*), decoded from "…reasons.active".
REASON_BITS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)


def canonical(name: str) -> str:
    """The fact name for a field as the header or the command line spells it."""
    name = name.strip()
    name = _ALIASES.get(name, name)
    if name.startswith("clocks_throttle_reasons."):
        name = "clocks_event_reasons." + name.split(".", 1)[1]
    return name


def known_unit(name: str) -> str | None:
    """The unit of a field whose header gives none (or with no header at all)."""
    if name.startswith(_NO_UNIT) or name.startswith("pcie."):
        return None
    for prefix, unit in _UNITS:
        if name.startswith(prefix):
            return unit
    return None


def cell_value(name: str, unit: str | None, raw: str) -> FactValue | None:
    """A cell of column ``name`` (its header's ``unit``, if any) as a fact value: text for
    names and versions, else a number when it is one."""
    text = raw.strip()
    if is_missing(text):
        return None
    if name == "pci.bus_id" or name == "gpu_bus_id":
        return normalise_bus_id(text) or text
    if name in _TEXT_FIELDS:
        return text
    unit = unit or known_unit(name)
    if unit and text.endswith(unit):
        text = text[: -len(unit)].strip()
    if text in {"Active", "Not Active", "Yes", "No", "Enabled", "Disabled"} and (
        name.startswith("clocks_event_reasons.")
    ):
        return text in {"Active", "Yes", "Enabled"}
    number = to_number(text)
    if number is not None:
        return number
    quantity = parse_quantity(text)
    return quantity[0] if quantity is not None else text
