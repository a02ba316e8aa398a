"""lspci: the PCIe link each device trained at, against what it is capable of.

A GPU that trained at a lower generation or fewer lanes than it supports is a classic
"PCIe-bound" culprit, and ``lspci -vv`` is where that shows: ``LnkCap`` (what the device
can do) against ``LnkSta`` (what it runs at now). The probe runs ``lspci -vv -d 10de:``
(NVIDIA only; a runner may add ``-s ADDR``); pasted outputs of the whole bus are read too,
bridges and root ports included, because the port above a GPU can be the narrow one.

Facts, per device, subject = PCI address with its domain (``0000:01:00.0``):

- ``pci.device`` (str) the name after the class, ``pci.class`` (str) e.g. "VGA compatible
  controller", ``pci.vendor`` = "nvidia" when the line names NVIDIA (or vendor id 10de);
- ``pcie.link.speed.max`` / ``.current`` (float, GT/s) from LnkCap / LnkSta;
  "Speed unknown" gives no fact;
- ``pcie.link.width.max`` / ``.current`` (int, lanes); ``Width x0`` (link down) is kept;
- ``pcie.link.gen.max`` / ``.current`` (int) from the speed: 2.5→1, 5→2, 8→3, 16→4,
  32→5, 64→6;
- ``pcie.link.speed.downgraded`` / ``pcie.link.width.downgraded`` (bool) and
  ``pcie.link.downgraded`` (bool, either): lspci's own "(downgraded)" marker, or current
  below max. Idle GPUs often drop speed to save power, so the width flag is the one that
  points at hardware; the speed flag means more when taken under load;
- ``pci.iommu_group`` (int), ``pci.numa_node`` (int), ``pci.kernel_driver`` (str).

``LnkCap2`` / ``LnkSta2`` lines are a different capability and are ignored. Without root,
lspci prints ``Capabilities: <access denied>`` and shows no link at all; that is reported
as a problem, as are ``-v`` (single v) outputs and plain ``lspci`` listings, which still
give device names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, to_float, to_int

__all__ = ["PROBE", "gen_from_speed", "normalise_address", "parse_lspci"]

_HEADER = re.compile(
    r"^(?:(?P<domain>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2}):(?P<dev>[0-9a-fA-F]{2})"
    r"\.(?P<fn>[0-7])\s+(?P<rest>\S.*)$"
)
_CLASS = re.compile(r"^(?P<cls>[^:]+?)(?:\s*\[[0-9a-fA-F]{4}\])?:\s*(?P<name>.*)$")
_LNKCAP = re.compile(r"\bLnkCap:\s*(?P<body>.*)$")
_LNKSTA = re.compile(r"\bLnkSta:\s*(?P<body>.*)$")
_SPEED = re.compile(r"Speed\s+(?P<speed>[^,]*?)\s*(?P<mark>\((?:ok|downgraded)\))?\s*(?:,|$)")
_WIDTH = re.compile(r"Width\s+x(?P<width>[0-9]+)\s*(?P<mark>\((?:ok|downgraded)\))?")
_IOMMU = re.compile(r"^\s+IOMMU group:\s*(?P<group>[0-9]+)")
_NUMA = re.compile(r"^\s+NUMA node:\s*(?P<node>[0-9]+)")
_DRIVER = re.compile(r"^\s+Kernel driver in use:\s*(?P<driver>\S+)")
_EXPRESS = re.compile(r"^\s+Capabilities:\s*\[[0-9a-fA-F]+[^\]]*\]\s*Express")
_DEVCAP = re.compile(r"\bDevCap:")
_DENIED = re.compile(r"^\s+Capabilities:\s*<access denied>")
_IDS = re.compile(r"\s*\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]")
_TAIL = re.compile(r"\s*\((?:rev [0-9a-fA-F]+|prog-if [^)]*\)?)\)\s*$")
_ERRORS = re.compile(
    r"(pcilib:|lspci: |Cannot open|command not found|No such file|Permission denied)", re.I
)

_GENERATIONS: dict[float, int] = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6, 128.0: 7}


_GAP_REASONS = {
    "denied": "capabilities not readable without root (Capabilities: <access denied>), "
    "no link status for",
    "truncated": "no LnkSta line under the Express capability (truncated paste?) for",
    "single_v": "no link status lines (lspci -v shows none; run lspci -vv as root) for",
}


def gen_from_speed(speed: float | None) -> int | None:
    """PCIe generation for a link speed in GT/s (2.5 → 1 … 64 → 6); None if not standard."""
    if speed is None:
        return None
    for known, gen in _GENERATIONS.items():
        if abs(speed - known) < 0.01:
            return gen
    return None


def normalise_address(domain: str | None, bus: str, dev: str, fn: str) -> str:
    """``0000:01:00.0`` form: lower-case, 4-digit domain (lspci omits domain 0000)."""
    dom = (domain or "0000").lower()
    if len(dom) > 4 and dom[:-4].strip("0") == "":
        dom = dom[-4:]
    return f"{dom}:{bus.lower()}:{dev.lower()}.{fn}"


@dataclass
class _Link:
    speed: float | None = None
    width: int | None = None
    speed_mark: str | None = None
    width_mark: str | None = None
    marked: bool = False


@dataclass
class _Device:
    address: str
    cls: str
    name: str
    nvidia: bool
    body: list[str] = field(default_factory=list)


def _read_link(body: str) -> _Link:
    link = _Link()
    speed = _SPEED.search(body)
    if speed:
        # "unknown" and other non-numbers give no value: absent, not zero.
        text = speed.group("speed")
        link.speed = to_float(text) if re.search(r"[0-9]\s*GT/s", text) else None
        link.speed_mark = speed.group("mark")
    width = _WIDTH.search(body)
    if width:
        link.width = to_int(width.group("width"))
        link.width_mark = width.group("mark")
    link.marked = bool(link.speed_mark or link.width_mark)
    return link


def _header(line: str) -> _Device | None:
    match = _HEADER.match(line)
    if not match:
        return None
    rest = match.group("rest")
    cls_match = _CLASS.match(rest)
    if not cls_match:
        return None
    name = cls_match.group("name")
    ids = _IDS.search(name)
    vendor_id = ids.group("vendor").lower() if ids else None
    name = _IDS.sub("", name)
    while True:
        trimmed = _TAIL.sub("", name)
        if trimmed == name:
            break
        name = trimmed
    address = normalise_address(
        match.group("domain"), match.group("bus"), match.group("dev"), match.group("fn")
    )
    nvidia = "nvidia" in rest.lower() or vendor_id == "10de"
    return _Device(address, cls_match.group("cls").strip(), name.strip(), nvidia)


def _lower(current: float | int | None, maximum: float | int | None) -> bool | None:
    if current is None or maximum is None:
        return None
    return current < maximum


def _device_facts(device: _Device, result: ParseResult, gaps: dict[str, list[str]]) -> None:
    subject = device.address
    result.add("pci.device", device.name or None, subject)
    result.add("pci.class", device.cls or None, subject)
    if device.nvidia:
        result.add("pci.vendor", "nvidia", subject)
    cap: _Link | None = None
    sta: _Link | None = None
    denied = False
    express = False
    devcap = False
    extra_sta = 0
    for line in device.body:
        if match := _LNKCAP.search(line):
            if cap is None:
                cap = _read_link(match.group("body"))
        elif match := _LNKSTA.search(line):
            if sta is None:
                sta = _read_link(match.group("body"))
            else:
                extra_sta += 1
        elif match := _IOMMU.match(line):
            result.add("pci.iommu_group", to_int(match.group("group")), subject)
        elif match := _NUMA.match(line):
            result.add("pci.numa_node", to_int(match.group("node")), subject)
        elif match := _DRIVER.match(line):
            result.add("pci.kernel_driver", match.group("driver"), subject)
        elif _DENIED.match(line):
            denied = True
        elif match := _EXPRESS.match(line):
            # Root-complex integrated endpoints have no link to report.
            express = "Root Complex" not in line
        elif _DEVCAP.search(line):
            devcap = True
    if extra_sta:
        result.problems.append(f"{subject}: {extra_sta + 1} LnkSta lines; the first one is used")
    if cap is not None:
        result.add("pcie.link.speed.max", cap.speed, subject, "GT/s")
        result.add("pcie.link.width.max", cap.width, subject, "lanes")
        result.add("pcie.link.gen.max", gen_from_speed(cap.speed), subject)
    if sta is not None:
        result.add("pcie.link.speed.current", sta.speed, subject, "GT/s")
        result.add("pcie.link.width.current", sta.width, subject, "lanes")
        result.add("pcie.link.gen.current", gen_from_speed(sta.speed), subject)
        _downgrade_facts(subject, cap, sta, result)
    if sta is None:
        if denied:
            gaps.setdefault("denied", []).append(subject)
        elif express and devcap:
            gaps.setdefault("truncated", []).append(subject)
        elif express or (device.nvidia and device.body):
            gaps.setdefault("single_v", []).append(subject)


def _downgrade_facts(subject: str, cap: _Link | None, sta: _Link, result: ParseResult) -> None:
    max_speed = cap.speed if cap else None
    max_width = cap.width if cap else None
    speed_down: bool | None = None
    width_down: bool | None = None
    if sta.speed_mark or sta.width_mark or cap is not None:
        speed_low = _lower(sta.speed, max_speed)
        width_low = _lower(sta.width, max_width)
        speed_down = sta.speed_mark == "(downgraded)" or bool(speed_low)
        width_down = sta.width_mark == "(downgraded)" or bool(width_low)
        # Without a marker or a maximum to compare with, a flag would be a guess.
        if sta.speed_mark is None and speed_low is None:
            speed_down = None
        if sta.width_mark is None and width_low is None:
            width_down = None
    result.add("pcie.link.speed.downgraded", speed_down, subject)
    result.add("pcie.link.width.downgraded", width_down, subject)
    if speed_down is not None or width_down is not None:
        result.add("pcie.link.downgraded", bool(speed_down) or bool(width_down), subject)


def parse_lspci(text: str) -> ParseResult:
    """Facts from ``lspci`` output (``-vv``, ``-v``, ``-nn``, plain listings)."""
    cleaned = clean_paste(text, hash_prompt=True)
    devices: list[_Device] = []
    current: _Device | None = None
    for line in cleaned.lines:
        device = _header(line) if line[:1] not in (" ", "\t") else None
        if device is not None:
            devices.append(device)
            current = device
        elif current is not None and line.strip() and line[:1] in (" ", "\t"):
            # Indented lines belong to the device above; the hex dump of -xxx
            # ("00: de 10 ...") is not indented but carries nothing we read.
            current.body.append(line)
    if not devices:
        error = next((line.strip() for line in cleaned.lines if _ERRORS.search(line)), None)
        if error:
            return ParseResult.unparsed(f"lspci printed an error, not devices: {error}")
        return ParseResult.unparsed(
            "no lspci device lines found (expected 'BB:DD.F class: vendor device')"
        )
    result = ParseResult()
    seen: set[str] = set()
    gaps: dict[str, list[str]] = {}
    for device in devices:
        if device.address in seen:
            result.problems.append(f"{device.address}: listed twice; both blocks were read")
        seen.add(device.address)
        _device_facts(device, result, gaps)
    for kind, subjects in gaps.items():
        result.problems.append(f"{_GAP_REASONS[kind]}: {', '.join(subjects)}")
    if all(not device.body for device in devices):
        result.problems.append(
            "a plain lspci listing: device names only, no link status (run lspci -vv as root)"
        )
    return result


PROBE = Probe(
    name="lspci",
    summary="PCIe link capability and status of NVIDIA devices (lspci -vv)",
    parse=parse_lspci,
    argv=("lspci", "-vv", "-d", "10de:"),
    cost="instant",
    facts=(
        "pci.device",
        "pci.class",
        "pci.vendor",
        "pcie.link.speed.max",
        "pcie.link.speed.current",
        "pcie.link.width.max",
        "pcie.link.width.current",
        "pcie.link.gen.max",
        "pcie.link.gen.current",
        "pcie.link.speed.downgraded",
        "pcie.link.width.downgraded",
        "pcie.link.downgraded",
        "pci.iommu_group",
        "pci.numa_node",
        "pci.kernel_driver",
    ),
    needs_load=False,
)
