"""``nvidia-smi -q``: the full per-GPU report, and its ``-d`` sections and grep'd fragments.

The report nests by indentation, so the parser reads it into paths (``PCI/GPU Link Info/Link
Width/Current``) and maps the paths it knows to facts. Older drivers spell some paths
differently ("Clocks Throttle Reasons" became "Clocks Event Reasons", "Power Readings" became
"GPU Power Readings", "Power Limit" became "Current Power Limit"); all map to one name.

Facts on ``host``: ``driver_version``, ``cuda_version`` (str), ``count`` (int: "Attached
GPUs"). Facts per GPU (``gpu0``, ``gpu1`` … in report order; ``-i N`` on the pasted command
line names a single GPU ``gpuN``):

- ``name``, ``pci.bus_id`` (``0000:18:00.0``), ``pstate``, ``persistence_mode``,
  ``compute_mode``, ``virtualization.mode`` ("None", "Pass-Through", "VGPU", "Host VGPU" …),
  ``mig.mode.current``, ``ecc.mode.current``, ``driver_model.current``, ``fabric.state``,
  ``fabric.status`` (str);
- ``pcie.link.gen.current``, ``.max``, ``.gpucurrent``, ``.gpumax``, ``.hostmax``,
  ``pcie.link.width.current``, ``pcie.link.width.max`` (int, unit None);
  ``pcie.replays_since_reset`` (int);
- ``pcie.tx_throughput``, ``pcie.rx_throughput`` (KB/s, as nvidia-smi prints them);
- ``utilization.gpu``, ``.memory``, ``.encoder``, ``.decoder``, ``fan.speed`` (%);
- ``memory.total``, ``.used``, ``.free``, ``.reserved`` (MiB, the frame buffer);
- ``power.draw``, ``power.draw.average``, ``power.draw.instant``, ``power.limit``,
  ``enforced.power.limit``, ``power.default_limit``, ``power.min_limit``,
  ``power.max_limit`` (W) — GPU power only, not "Module" or "GPU Memory" readings;
- ``temperature.gpu``, ``temperature.memory`` (C);
- ``clocks.gr``, ``clocks.sm``, ``clocks.mem``, ``clocks.video``, ``clocks.max.gr``,
  ``clocks.max.sm``, ``clocks.max.mem`` (MHz);
- ``clocks_event_reasons.<reason>`` (bool: Active / Not Active), reasons ``gpu_idle``,
  ``applications_clocks_setting``, ``sw_power_cap``, ``hw_slowdown``,
  ``hw_thermal_slowdown``, ``hw_power_brake_slowdown``, ``sync_boost``,
  ``sw_thermal_slowdown``, ``display_clock_setting``;
- ``clocks_event_reasons_counters.<reason>`` (us, "Clocks Event Reasons Counters", 550+
  drivers: time held back since the driver loaded) for ``sw_power_cap``, ``sync_boost``,
  ``sw_thermal_slowdown``, ``hw_thermal_slowdown``, ``hw_power_brake_slowdown``;
- ``-d TEMPERATURE``: ``temperature.gpu.shutdown``, ``.slowdown``, ``.max_operating``,
  ``.target``, ``.tlimit`` and ``temperature.memory.max_operating`` (C);
- ``-d CLOCK``: ``clocks.applications.gr`` / ``.mem``, ``clocks.default_applications.gr`` /
  ``.mem``, ``clocks.max_customer_boost.gr`` (MHz), beside the current and max clocks;
- ``ecc.errors.{corrected,uncorrected}.{volatile,aggregate}.{dram,sram,total}`` (int);
- ``retired_pages.sbe``, ``retired_pages.dbe`` (int), ``retired_pages.pending`` (bool);
- ``remapped_rows.correctable``, ``.uncorrectable`` (int), ``.pending``, ``.failure`` (bool);
- ``processes.count`` (int) when the Processes section is present.

``[N/A]``, ``N/A`` and ``[Not Supported]`` make no fact. Which path gives which fact is the table
in :mod:`casefile_probes.smi_q_fields`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._scales import UTILISATION

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI
from ._text import clean, command_option, is_elision, is_missing, tool_error
from .smi_q_fields import HOST_FIELDS, lookup, lookup_orphan

__all__ = ["PERFORMANCE_PROBE", "PROBE", "parse_smi_q"]

_GPU_HEADER = re.compile(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_KEY_VALUE = re.compile(r"^(?P<key>\S.*?)\s+:\s?(?P<value>.*)$")


@dataclass(slots=True)
class _Gpu:
    subject: str
    processes: int | None = None


def parse_smi_q(text: str) -> ParseResult:
    """Read ``nvidia-smi -q`` output (whole, one ``-d`` section, or a grep'd fragment)."""
    cleaned = clean(text)
    result = ParseResult()
    ids = _requested_ids(command_option(cleaned.commands, "-i", "--id"))
    gpus: list[_Gpu] = []
    current: _Gpu | None = None
    stack: list[tuple[int, str]] = []
    key_lines = 0
    orphans = 0
    elided = False

    def new_gpu() -> _Gpu:
        position = len(gpus)
        index = ids[position] if position < len(ids) else position
        gpu = _Gpu(subject=f"gpu{index}")
        gpus.append(gpu)
        return gpu

    host_section = False
    for line in cleaned.lines:
        if not line.strip():
            continue
        if is_elision(line):
            elided = True
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        header = _GPU_HEADER.match(body)
        if header and indent == 0:
            current = new_gpu()
            stack = []
            continue
        match = _KEY_VALUE.match(body)
        key = (match.group("key") if match else body).strip().lower()
        value = match.group("value").strip() if match else None
        if indent == 0 and (current is None or key in HOST_FIELDS):
            host_field = HOST_FIELDS.get(key)
            if host_field is not None and value is not None:
                key_lines += 1
                result.add(host_field.name, host_field.convert(value), unit=host_field.unit)
            # A host-level section ("vGPU Driver Capability" in 580-era drivers) nests its
            # keys under it, before any GPU: those lines are not a fragment of a GPU's.
            host_section = current is None and value is None
            continue
        if current is None and host_section:
            continue
        if current is None:
            current = new_gpu()
            result.problems.append(
                "no 'GPU <bus id>' section header (fragment?); "
                f"values assigned to {current.subject}"
            )
        while stack and stack[-1][0] >= indent:
            stack.pop()
        homed = lookup_orphan(key) if not stack and indent > 4 else None
        if homed is not None and value is not None:
            key_lines += 1
            _, field = homed
            result.add(field.name, field.convert(value), subject=current.subject, unit=field.unit)
            continue
        if not stack and indent > 4:
            orphans += 1
        path = [entry for _, entry in stack] + [key]
        stack.append((indent, key))
        if value is None:
            if path == ["processes"]:
                current.processes = 0
            continue
        key_lines += 1
        if path == ["processes"]:
            current.processes = 0 if value.lower() == "none" else current.processes
            continue
        if len(path) >= 2 and path[0] == "processes" and path[-1] == "process id":
            current.processes = (current.processes or 0) + 1
            continue
        known = lookup(path)
        if known is None:
            continue
        converted = known.convert(value)
        if converted is None and not is_missing(value) and "not available" not in value.lower():
            result.problems.append(f"{current.subject}: unreadable {'/'.join(path)}: {value!r}")
        result.add(known.name, converted, subject=current.subject, unit=known.unit)

    for gpu in gpus:
        result.add("processes.count", gpu.processes, subject=gpu.subject, unit=None)
    if orphans:
        result.problems.append(
            f"{orphans} line(s) without their section header (grep/tail fragment?); "
            "their values are not attributed"
        )
    if elided:
        result.problems.append("output elided ('[...]'); only the lines shown were read")
    if not result.facts:
        error = tool_error(cleaned.lines)
        if error:
            return ParseResult.unparsed(error)
        reason = (
            "no recognised nvidia-smi -q fields"
            if key_lines or orphans
            else "no 'key : value' lines of nvidia-smi -q found"
        )
        kept = [problem for problem in result.problems if "values assigned to" not in problem]
        return ParseResult(facts=[], problems=[reason, *kept], parsed=False)
    return result


def _requested_ids(option: str | None) -> list[int]:
    """GPU indices named by ``-i 0`` or ``-i 0,2``; empty for bus ids, UUIDs or no option."""
    if not option:
        return []
    parts = option.split(",")
    if all(part.strip().isdigit() for part in parts):
        return [int(part) for part in parts]
    return []


# A key of `nvidia-smi -q`, padded to its column before " : " (lscpu's colon follows its key).
_SMI_Q_KEY = re.compile(r"[ \t]*[A-Za-z][^:\n]*?[^ \t:] {2,}+:(?: |$)")
# A section title: indented, no colon ("    Clocks Event Reasons", "        Max Clocks").
_SMI_Q_TITLE = re.compile(r"[ \t]+[A-Z][\w ()/.,+-]*")
# How many non-blank lines a recogniser looks at: enough for any fragment, cheap on a long log.
_SMI_Q_LINES = 400


def recognise_smi_q(text: str) -> bool:
    """Whether ``text`` holds ``nvidia-smi -q`` output: its banner, or (a grep or tail of it)
    mostly padded ``Key   : value`` lines and section titles, two keys at least."""
    if "NVSMI LOG" in text:
        return True
    keys = titles = others = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        if _SMI_Q_KEY.match(line):
            keys += 1
        elif _SMI_Q_TITLE.fullmatch(line.rstrip()):
            titles += 1
        else:
            others += 1
        if keys + titles + others >= _SMI_Q_LINES:
            break
    return keys >= 2 and keys + titles >= 2 * others


PROBE = Probe(
    name="nvidia-smi-q",
    summary="Full per-GPU report: PCIe link gen/width and throughput, clocks, power, reasons",
    parse=parse_smi_q,
    argv=("nvidia-smi", "-q"),
    recognises=recognise_smi_q,
    cost="cheap",
    facts=(
        "driver_version",
        "cuda_version",
        "name",
        "pci.bus_id",
        "pcie.link.gen.current",
        "pcie.link.gen.max",
        "pcie.link.width.current",
        "pcie.link.width.max",
        "pcie.tx_throughput",
        "pcie.rx_throughput",
        "utilization.gpu",
        "utilization.memory",
        "memory.used",
        "memory.total",
        "power.draw",
        "power.limit",
        "temperature.gpu",
        "clocks.sm",
        "clocks.mem",
        "clocks.max.sm",
        "clocks_event_reasons.sw_power_cap",
        "clocks_event_reasons.hw_slowdown",
        "virtualization.mode",
        "fabric.state",
        "processes.count",
        # patterns (fnmatch): families the parser names per field, section or test
        "clocks.*",
        "clocks_event_reasons.*",
        "clocks_event_reasons_counters.*",
        "ecc.*",
        "remapped_rows.*",
        "retired_pages.*",
        "temperature.*",
        "power.*",
        "pcie.*",
        "memory.*",
        "utilization.*",
        "fabric.*",
        "mig.*",
        "compute_mode",
        "count",
        "driver_model.current",
        "enforced.power.limit",
        "fan.speed",
        "persistence_mode",
        "pstate",
    ),
    percentages=UTILISATION,
    needs_load=False,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)

#: The sections that say why clocks are low: clock event reasons (and their counters),
#: temperatures against their slowdown thresholds, clocks against their maxima, power
#: against its limits. Small enough to take every few seconds under load.
PERFORMANCE_PROBE = Probe(
    name="nvidia-smi-q-perf",
    summary="Why clocks are low: event reasons and counters, temperatures, clocks, power",
    parse=parse_smi_q,
    argv=("nvidia-smi", "-q", "-d", "PERFORMANCE,TEMPERATURE,CLOCK,POWER"),
    cost="cheap",
    facts=(
        "pstate",
        "clocks_event_reasons.gpu_idle",
        "clocks_event_reasons.sw_power_cap",
        "clocks_event_reasons.hw_slowdown",
        "clocks_event_reasons.hw_thermal_slowdown",
        "clocks_event_reasons.sw_thermal_slowdown",
        "clocks_event_reasons.hw_power_brake_slowdown",
        "clocks_event_reasons_counters.sw_power_cap",
        "clocks_event_reasons_counters.sw_thermal_slowdown",
        "clocks_event_reasons_counters.hw_thermal_slowdown",
        "temperature.gpu",
        "temperature.gpu.slowdown",
        "temperature.gpu.shutdown",
        "temperature.gpu.max_operating",
        "clocks.sm",
        "clocks.max.sm",
        "clocks.applications.gr",
        "power.draw",
        "power.limit",
        "enforced.power.limit",
    ),
    needs_load=True,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
