"""``nvidia-smi`` (no arguments): the default table, one three-line block per GPU.

The table has had several layouts (79, 87 and 91 columns; the MIG row appeared in 450-era
drivers) but each GPU block keeps the same cells in the same order, so the parser matches a
block's first two lines cell by cell rather than by column position.

Facts on ``host``: ``driver_version``, ``cuda_version`` (str; absent when "N/A").
Facts per GPU (``gpuN``, N from the table's own GPU column, so ``nvidia-smi -i 2`` gives
``gpu2``): ``name`` (str, as shown — the table truncates long names with ``...``, reported as
a problem), ``pci.bus_id`` (``0000:01:00.0``), ``persistence_mode`` ("Enabled"/"Disabled";
"WDDM"/"TCC" driver models on Windows go to ``driver_model.current``), ``pstate``,
``compute_mode``, ``mig.mode.current`` (str), ``fan.speed`` (%), ``temperature.gpu`` (C),
``power.draw``, ``power.limit`` (W), ``memory.used``, ``memory.total`` (MiB),
``utilization.gpu`` (%), ``ecc.errors.uncorrected.volatile.total`` (int) or
``ecc.mode.current`` ("Enabled"/"Disabled") from the ECC cell.

Fragments are read as far as they go: a block cut after its first line still gives the
name, bus id and persistence mode, a first line cut after the bus id (no ECC cell) or inside
it (no ``pci.bus_id``) and a second line cut after or inside the memory cell (no memory or
utilisation facts) still give what they show.

Jetson (Tegra) boards print a row with ``N/A`` for the bus id, power and temperature and
"Not Supported" for memory, and ``Driver Version: N/A``: the GPU is still listed (its name),
and nothing is recorded for what is not available.

A paste holding only the Processes or the MIG devices section (no GPU rows) gives the
per-process and per-device facts below, but no per-GPU count.

Processes (only when the Processes section is complete): ``processes.count`` (int) per GPU,
``processes.compute`` (int: those of type C, C+G or M+C; a desktop's display server and
browser are G, not the job), except under WSL (an ``nvidia-smi`` whose version is not the
driver's: the list is always empty there), and per process (subject ``gpuN/pid<pid>``)
``process.name``, ``process.type`` (str), ``process.used_memory`` (MiB). MIG devices:
``mig.devices`` (int) per GPU and, per device (subject ``gpuN/mig<dev>``), ``mig.gi_id``,
``mig.ci_id`` (int), ``memory.used``, ``memory.total`` (MiB).
"""

from __future__ import annotations

import re
from collections import defaultdict

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._scales import UTILISATION

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI
from ._text import clean, is_missing, normalise_bus_id, parse_quantity, tool_error

__all__ = ["PROBE", "is_compute_process", "parse_smi_table"]

_BANNER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>\S+)\s+Driver Version:\s*(?P<driver>\S+)"
    r"(?:\s+CUDA Version:\s*(?P<cuda>\S+))?"
)
_BUS = r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]"
# |   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |                  Off |
# The ECC cell may be missing when the paste was cut after the bus id. A Jetson (Tegra) GPU
# has no PCI address: its bus cell reads "N/A" ("|   0  Orin (nvgpu)   N/A  | N/A   N/A |").
_GPU_LINE1 = re.compile(
    r"^\|\s*(?P<index>\d+)\s+(?P<name>[^|]+?)\s+(?P<persist>On|Off|WDDM|TCC|N/A)\s*\|"
    rf"\s*(?P<bus>{_BUS}|N/A)\s+(?P<disp>\S+)\s*\|(?:(?P<ecc>[^|]*)\|)?"
)
# A bus id the poster shortened ("|   3  NVIDIA A100-SXM4-80GB   On  | 00000000: Off |    On |"):
# the name, persistence mode, display and ECC cells are whole, the address is not. (A name
# that could run across a "|" read the ECC cell's "On" as persistence mode.)
_GPU_LINE1_SHORT_BUS = re.compile(
    r"^\|\s*(?P<index>\d+)\s+(?P<name>[^|]+?)\s+(?P<persist>On|Off|WDDM|TCC|N/A)\s*\|"
    r"\s*[0-9A-Fa-f:.]*\s+(?P<disp>On|Off|N/A)\s*\|(?:(?P<ecc>[^|]*)\|)?"
)
# The same first line cut inside its bus id ("|   3  Tesla P40    Off  | 0000:84:0" at the end
# of a paste): the GPU, its name and persistence mode are shown, its address is not whole.
_GPU_LINE1_CUT = re.compile(
    r"^\|\s*(?P<index>\d+)\s+(?P<name>[^|]+?)\s+(?P<persist>On|Off|WDDM|TCC|N/A)\s*\|"
    r"\s*[0-9A-Fa-f:.]*$"
)
# |  0%   30C    P8             29W /  400W |    1583MiB /  24564MiB |      0%      Default |
# The memory cell is read apart (see _MEMORY): Jetson prints "Not Supported" there, and a
# paste cut inside it still shows the fan, temperature, P-state and power before it.
_GPU_LINE2 = re.compile(
    r"^\|\s*(?P<fan>\S+)\s+(?P<temp>\S+)\s+(?P<perf>\S+)\s+(?P<pwr>\S+)\s*/\s*(?P<cap>\S+)\s*\|"
    r"(?P<memory>[^|]*)(?:\|(?:\s*(?P<util>\S+)\s+(?P<compute>[^|]*)\|)?)?"
)
# the memory cell as a whole: "1583MiB /  24564MiB"
_MEMORY = re.compile(r"\s*(?P<used>\S+)\s*/\s*(?P<total>\S+)\s*")
_SIZED = re.compile(r"\d[KMGT]i?B$")
_GPU_LINE3 = re.compile(r"^\|\s*\|\s*\|\s*(?P<mig>[^|]*?)\s*\|$")
# with GI/CI columns (450+) or without (older)
_PROCESS = re.compile(
    r"^\|\s*(?P<gpu>\d+)\s+(?:(?P<gi>N/A|\d+)\s+(?P<ci>N/A|\d+)\s+)?(?P<pid>\d+)\s+"
    r"(?P<type>C\+G|C|G|M|M\+C|\S)\s+(?P<name>.*?)\s+(?P<mem>\d+MiB|N/A)\s*\|$"
)
_MIG_DEVICE = re.compile(
    r"^\|\s*(?P<gpu>\d+)\s+(?P<gi>\d+)\s+(?P<ci>\d+)\s+(?P<dev>\d+)\s*\|"
    r"\s*(?P<used>\d+MiB)\s*/\s*(?P<total>\d+MiB)\s*\|"
)


def _quantity(cell: str, unit: str) -> int | float | None:
    parsed = parse_quantity(cell)
    if parsed is None or parsed[1] not in (unit, None):
        return None
    return parsed[0]


def _table_lines(lines: list[str]) -> list[str]:
    """Lines without indentation: a paste inside a Markdown list indents every line."""
    return [line.strip() for line in lines]


def parse_smi_table(text: str) -> ParseResult:
    """Read the default ``nvidia-smi`` table."""
    cleaned = clean(text)
    lines = _table_lines(cleaned.lines)
    result = ParseResult()
    banner_seen = False
    gpus: list[str] = []
    section = "gpus"
    processes: dict[str, int] = defaultdict(int)
    compute: dict[str, int] = defaultdict(int)
    listed_by_a_foreign_smi = False  # WSL: nvidia-smi's version is not the driver's
    processes_complete = False
    processes_seen = False
    mig_devices: dict[str, int] = defaultdict(int)
    pending: str | None = None  # subject whose second line we expect
    for line in lines:
        banner = _BANNER.search(line)
        if banner:
            banner_seen = True
            driver = banner.group("driver")
            # Jetson's nvidia-smi prints "Driver Version: N/A": no version, not one named N/A
            result.add("driver_version", None if is_missing(driver) else driver)
            listed_by_a_foreign_smi = banner.group("smi") != banner.group("driver")
            cuda = banner.group("cuda")
            result.add("cuda_version", None if cuda is None or is_missing(cuda) else cuda)
            continue
        if line.startswith("| Processes:"):
            section, processes_seen = "processes", True
            continue
        if line.startswith("| MIG devices:"):
            section = "mig"
            continue
        if section == "processes":
            if "No running processes found" in line:
                processes_complete = True
                continue
            if line.startswith("+") and processes_seen:
                processes_complete = True
                continue
            _read_process(line, result, processes, compute)
            continue
        if section == "mig":
            device = _MIG_DEVICE.match(line)
            if device:
                gpu = f"gpu{device.group('gpu')}"
                subject = f"{gpu}/mig{device.group('dev')}"
                mig_devices[gpu] += 1
                result.add("mig.gi_id", int(device.group("gi")), subject=subject)
                result.add("mig.ci_id", int(device.group("ci")), subject=subject)
                result.add("memory.used", _quantity(device.group("used"), "MiB"), subject, "MiB")
                result.add("memory.total", _quantity(device.group("total"), "MiB"), subject, "MiB")
            elif "No MIG devices found" in line:
                for gpu in gpus:
                    mig_devices.setdefault(gpu, 0)
            continue
        first = (
            _GPU_LINE1.match(line) or _GPU_LINE1_SHORT_BUS.match(line) or _GPU_LINE1_CUT.match(line)
        )
        if first:
            pending = _read_first(first, result)
            gpus.append(pending)
            continue
        if pending is not None:
            second = _GPU_LINE2.match(line)
            if second:
                _read_second(second, pending, result)
                continue
            third = _GPU_LINE3.match(line)
            if third:
                mig = third.group("mig")
                if mig and not is_missing(mig):
                    result.add("mig.mode.current", mig, subject=pending)
                pending = None

    if not gpus:
        error = tool_error(cleaned.lines)
        if error:
            return ParseResult.unparsed(error)
        if processes or mig_devices:
            # a paste that kept only the Processes or MIG devices section still says which
            # process holds how much memory on which GPU; without the GPU rows no per-GPU
            # count can be given (a GPU with nothing running would be missing from it)
            return ParseResult(
                facts=result.facts,
                problems=[
                    "no GPU rows (only the Processes or MIG devices section was pasted); "
                    "per-GPU counts not recorded"
                ],
            )
        if banner_seen:
            return ParseResult(
                facts=result.facts,
                problems=["nvidia-smi table header found but no GPU rows (truncated?)"],
                parsed=bool(result.facts),
            )
        first_line = next((line for line in lines if line.strip()), "")
        reason = "no nvidia-smi table found"
        if first_line:
            reason += f" (output starts {first_line[:60]!r})"
        return ParseResult.unparsed(reason)

    if processes_complete:
        for gpu in gpus:
            result.add("processes.count", processes.get(gpu, 0), subject=gpu)
            if not listed_by_a_foreign_smi:
                result.add("processes.compute", compute.get(gpu, 0), subject=gpu)
        if listed_by_a_foreign_smi and gpus:
            result.problems.append(
                "nvidia-smi's version is not the driver's (WSL): its process list is empty "
                "whatever runs, so no compute-process count is recorded"
            )
    elif processes_seen:
        result.problems.append("Processes section truncated; process count not recorded")
    else:
        result.problems.append("no Processes section (cut from the paste?)")
    truncated = [
        fact.subject
        for fact in result.facts
        if fact.name == "name" and str(fact.value).endswith("...")
    ]
    if truncated:
        result.problems.append(f"name truncated by nvidia-smi ('...') for {', '.join(truncated)}")
    for gpu in gpus:
        if gpu in mig_devices:
            result.add("mig.devices", mig_devices[gpu], subject=gpu)
    return result


def _read_first(match: re.Match[str], result: ParseResult) -> str:
    subject = f"gpu{match.group('index')}"
    name = match.group("name").strip()
    result.add("name", name, subject=subject)
    persist = match.group("persist")
    if persist in ("On", "Off"):
        result.add("persistence_mode", "Enabled" if persist == "On" else "Disabled", subject)
    elif persist in ("WDDM", "TCC"):
        result.add("driver_model.current", persist, subject)
    bus = match.groupdict().get("bus")
    result.add("pci.bus_id", None if bus is None else normalise_bus_id(bus), subject)
    ecc = (match.groupdict().get("ecc") or "").strip()
    if ecc.isdigit():
        result.add("ecc.errors.uncorrected.volatile.total", int(ecc), subject)
    elif ecc in ("On", "Off"):
        result.add("ecc.mode.current", "Enabled" if ecc == "On" else "Disabled", subject)
    return subject


def _read_second(match: re.Match[str], subject: str, result: ParseResult) -> None:
    result.add("fan.speed", _quantity(match.group("fan"), "%"), subject, "%")
    result.add("temperature.gpu", _quantity(match.group("temp"), "C"), subject, "C")
    perf = match.group("perf")
    result.add("pstate", None if is_missing(perf) else perf, subject)
    result.add("power.draw", _quantity(match.group("pwr"), "W"), subject, "W")
    result.add("power.limit", _quantity(match.group("cap"), "W"), subject, "W")
    memory = _MEMORY.fullmatch(match.group("memory"))
    # a total without its unit is a cell cut inside it ("1583MiB /  245"), or a narrow
    # terminal's wrap: no memory fact rather than a false one
    if memory is not None and _SIZED.search(memory.group("total")) is not None:
        result.add("memory.used", _quantity(memory.group("used"), "MiB"), subject, "MiB")
        result.add("memory.total", _quantity(memory.group("total"), "MiB"), subject, "MiB")
    util = match.group("util")
    result.add("utilization.gpu", None if util is None else _quantity(util, "%"), subject, "%")
    compute = (match.group("compute") or "").strip()
    result.add("compute_mode", None if is_missing(compute) else compute, subject)


def _read_process(
    line: str, result: ParseResult, processes: dict[str, int], compute: dict[str, int]
) -> None:
    match = _PROCESS.match(line)
    if match is None:
        return
    gpu = f"gpu{match.group('gpu')}"
    subject = f"{gpu}/pid{match.group('pid')}"
    processes[gpu] += 1
    if is_compute_process(match.group("type")):
        compute[gpu] += 1
    result.add("process.name", match.group("name").strip() or None, subject)
    result.add("process.type", match.group("type"), subject)
    result.add("process.used_memory", _quantity(match.group("mem"), "MiB"), subject, "MiB")


# The default table's banner (with its version, unlike "NVIDIA-SMI has failed"), its column
# header and its processes section; [ \t], never \s, so no attempt runs past its line.
_SMI_TABLE_SHAPE = re.compile(
    r"NVIDIA-SMI[ \t]+\d[\d.]*[ \t]"
    r"|^[ \t]*\|[ \t]*GPU[ \t]+Name[ \t]"
    r"|Bus-Id[ \t]+Disp\.A"
    r"|^[ \t]*\|[ \t]*Processes:"
    r"|^[ \t]*\|[ \t]*MIG devices:",
    re.MULTILINE,
)


def recognise_smi_table(text: str) -> bool:
    """Whether ``text`` holds the default nvidia-smi table (or a part with its banner, its
    column header, its processes section or its MIG devices section)."""
    return _SMI_TABLE_SHAPE.search(text) is not None


def is_compute_process(kind: str) -> bool:
    """Whether a process of this type (C, G, C+G, M+C, M …) computes on the GPU: a desktop's
    display server and browser are G, not the job. nvidia-smi's table and pmon print the same
    types, and both count by this."""
    return "C" in kind


PROBE = Probe(
    name="nvidia-smi",
    summary="The default nvidia-smi table: per-GPU utilisation, memory, power, temperature",
    parse=parse_smi_table,
    recognises=recognise_smi_table,
    argv=("nvidia-smi",),
    cost="instant",
    facts=(
        "driver_version",
        "cuda_version",
        "name",
        "pci.bus_id",
        "temperature.gpu",
        "power.draw",
        "power.limit",
        "memory.used",
        "memory.total",
        "utilization.gpu",
        "fan.speed",
        "pstate",
        "processes.count",
        "processes.compute",
        "mig.mode.current",
        # patterns (fnmatch): families the parser names per field, section or test
        "compute_mode",
        "persistence_mode",
        "ecc.*",
        "mig.*",
        "process.*",
    ),
    percentages=UTILISATION,
    needs_load=True,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
