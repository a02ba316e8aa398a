"""lspci: the PCIe link each device trained at, the bridges above it, and their ACS state.

A GPU that trained at a lower generation or fewer lanes than it supports is a classic
"PCIe-bound" culprit, and ``lspci -vv`` is where that shows: ``LnkCap`` (what the device
can do) against ``LnkSta`` (what it runs at now). Between two GPUs, the bridges matter too:
ACS redirection on a switch or root port sends peer-to-peer traffic up through the root
complex, and that shows only on the bridges.

The probe runs plain ``lspci -vvv`` (as root, or capabilities read ``<access denied>``), the
whole bus, because a single invocation has to show the GPUs and the bridges between them:
``-d`` takes one vendor (or class) filter and the bridges are other vendors' (Broadcom/PLX,
AMD, Intel) of another class; ``-t`` draws the tree but prints no capability, so it cannot
show ACS. ``-vvv`` prints each bridge's ``Bus: primary=…, secondary=…, subordinate=…``,
from which the tree is rebuilt here, so nothing is lost by not drawing it. The price is the
other devices' links in the facts (a NIC, an empty slot's port), as any pasted whole-bus
output has always given; the ``pci.path…`` facts single out the GPUs' own paths.

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
- ``pci.iommu_group`` (int), ``pci.numa_node`` (int), ``pci.kernel_driver`` (str);
- ACS (``Access Control Services`` capability, on bridges and some endpoints):
  ``pci.acs.supported`` = True when ``ACSCap`` is shown; ``pci.acs.cap.<bit>`` and
  ``pci.acs.ctl.<bit>`` (bool) for each of ``src_valid``, ``trans_blk``, ``req_redir``,
  ``cmplt_redir``, ``upstream_fwd``, ``egress_ctrl``, ``direct_trans`` as ``ACSCap`` /
  ``ACSCtl`` print them (``+`` / ``-``); ``pci.acs.enabled`` (any control bit set) and
  ``pci.acs.redirect`` (``ReqRedir+``, ``CmpltRedir+`` or ``EgressCtrl+``: peer requests are
  sent up to the root complex instead of across the switch); an ``ACSCtl`` line cut short
  (a bit missing) gives no False for either, and a problem says so;
- the tree, from the bridges' bus numbers: ``pci.parent`` (str, the bridge directly above a
  device, when that bridge is in the output); for NVIDIA GPUs (VGA, 3D or display class)
  ``pci.path`` (bridges from the root port down, joined by ``>``), ``pci.root_port`` and
  ``pci.path.acs_redirect`` (bool: a bridge on the path redirects; absent when a bridge's
  capabilities were not readable); per pair of GPUs (subject ``A-B``)
  ``pci.pair.common_bridge`` (the deepest shared bridge, or ``root-complex``) and
  ``pci.pair.acs_redirect`` (ACS redirection on a port the pair's traffic enters).

``LnkCap2`` / ``LnkSta2`` lines are a different capability and are ignored. Without root,
lspci prints ``Capabilities: <access denied>`` and shows no link at all; that is reported
as a problem, as are ``-v`` (single v) outputs and plain ``lspci`` listings, which still
give device names.

Fragments are read too. ``lspci -vvv | grep -i lnk`` (or ``grep ACSCtl``) leaves link and
ACS lines without the device line that says whose they are: each run of ``LnkCap`` /
``LnkSta`` / ``ACSCap`` / ``ACSCtl`` lines (a new run starts when a kind repeats or comes out
of order) becomes a device with an unknown subject, ``unknown1``, ``unknown2`` … in the
order printed, and a problem says so; when the paste shows ``lspci -s ADDR … | grep`` and
there is one record, ADDR is its subject; when a loop printed each device's address (alone,
or its device line after a label: ``Card: 01:00.0 VGA compatible controller: …``) before its
grep'd lines, that address is the subject. Link and ACS lines before the first device line
(a paste that starts mid-device) are read the same way. A tree (``lspci -t``, ``-tv``) is read by
:mod:`casefile_probes.lspci_tree`; the text is cut into device records (and fragments regrouped)
by :mod:`casefile_probes.lspci_records`, and turned into facts here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, natural_key, to_int
from casefile_probes.lspci_records import (
    Device,
    Link,
    fragment_devices,
    read_header,
    read_link,
    slot_address,
)
from casefile_probes.lspci_tree import (
    add_path_facts,
    looks_like_tree,
    parse_lspci_tree,
    read_tree,
)

__all__ = ["PROBE", "gen_from_speed", "parse_lspci"]

_LNKCAP = re.compile(r"\bLnkCap:\s*(?P<body>.*)$")
_LNKSTA = re.compile(r"\bLnkSta:\s*(?P<body>.*)$")
_IOMMU = re.compile(r"^\s+IOMMU group:\s*(?P<group>[0-9]+)")
_NUMA = re.compile(r"^\s+NUMA node:\s*(?P<node>[0-9]+)")
_DRIVER = re.compile(r"^\s+Kernel driver in use:\s*(?P<driver>\S+)")
_EXPRESS = re.compile(r"^\s+Capabilities:\s*\[[0-9a-fA-F]+[^\]]*\]\s*Express")
_DEVCAP = re.compile(r"\bDevCap:")
_DENIED = re.compile(r"^\s+Capabilities:\s*<access denied>")
_ACS = re.compile(r"\b(?P<kind>ACSCap|ACSCtl):\s*(?P<body>.*)$")
_ACS_BIT = re.compile(r"(?P<name>[A-Za-z]+)(?P<state>[+-])(?=\s|$)")
_BUS_RANGE = re.compile(
    r"^\s+Bus:\s*primary=(?P<primary>[0-9a-fA-F]{2}),\s*secondary=(?P<secondary>[0-9a-fA-F]{2}),"
    r"\s*subordinate=(?P<subordinate>[0-9a-fA-F]{2})"
)
_ACS_NAMES = {
    "SrcValid": "src_valid",
    "TransBlk": "trans_blk",
    "ReqRedir": "req_redir",
    "CmpltRedir": "cmplt_redir",
    "UpstreamFwd": "upstream_fwd",
    "EgressCtrl": "egress_ctrl",
    "DirectTrans": "direct_trans",
}
_REDIRECTING = ("req_redir", "cmplt_redir", "egress_ctrl")
_GPU_CLASSES = ("vga compatible controller", "3d controller", "display controller")
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


def _lower(current: float | int | None, maximum: float | int | None) -> bool | None:
    if current is None or maximum is None:
        return None
    return current < maximum


def _device_facts(device: Device, result: ParseResult, gaps: dict[str, list[str]]) -> None:
    subject = device.address
    result.add("pci.device", device.name or None, subject)
    result.add("pci.class", device.cls or None, subject)
    if device.nvidia:
        result.add("pci.vendor", "nvidia", subject)
    cap: Link | None = None
    sta: Link | None = None
    denied = False
    express = False
    devcap = False
    extra_sta = 0
    for line in device.body:
        if match := _LNKCAP.search(line):
            if cap is None:
                cap = read_link(match.group("body"))
        elif match := _LNKSTA.search(line):
            if sta is None:
                sta = read_link(match.group("body"))
            else:
                extra_sta += 1
        elif match := _IOMMU.match(line):
            result.add("pci.iommu_group", to_int(match.group("group")), subject)
        elif match := _NUMA.match(line):
            result.add("pci.numa_node", to_int(match.group("node")), subject)
        elif match := _DRIVER.match(line):
            result.add("pci.kernel_driver", match.group("driver"), subject)
        elif match := _ACS.search(line):
            _acs_facts(device, match.group("kind"), match.group("body"), result)
        elif match := _BUS_RANGE.match(line):
            device.buses = (int(match.group("secondary"), 16), int(match.group("subordinate"), 16))
        elif _DENIED.match(line):
            denied = True
            device.denied = True
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


def _acs_facts(device: Device, kind: str, body: str, result: ParseResult) -> None:
    """``ACSCap`` / ``ACSCtl``: one bool per bit, and what the control bits add up to."""
    bits: dict[str, bool] = {}
    for match in _ACS_BIT.finditer(body):
        name = match.group("name")
        bits[_ACS_NAMES.get(name, name.lower())] = match.group("state") == "+"
    if not bits:
        return
    subject = device.address
    section = "cap" if kind == "ACSCap" else "ctl"
    if section == "cap":
        result.add("pci.acs.supported", True, subject)
    for name, state in bits.items():
        result.add(f"pci.acs.{section}.{name}", state, subject)
    if section == "ctl":
        device.redirect = any(bits.get(name, False) for name in _REDIRECTING)
        enabled: bool | None = any(bits.values())
        missing = [label for label, name in _ACS_NAMES.items() if name not in bits]
        if missing:
            # lspci prints all seven bits: a line without some was cut (a paste ending
            # mid-line). A bit set still counts; an unset one may be among those lost.
            device.acs_cut = True
            device.redirect = device.redirect or None
            enabled = enabled or None
            result.problems.append(
                f"{subject}: ACSCtl line cut short (no {', '.join(missing)}): "
                "bits not shown are not read as off"
            )
        result.add("pci.acs.enabled", enabled, subject)
        result.add("pci.acs.redirect", device.redirect, subject)


def _topology_facts(devices: list[Device], result: ParseResult) -> None:
    """``pci.parent`` from the bridges' bus ranges, then the GPUs' paths and pairs."""
    # Records without an address (a fragment's unknown1 …) have no place in the tree.
    devices = [device for device in devices if device.address.count(":") == 2]
    bridges: dict[tuple[str, int], Device] = {}
    for device in devices:
        if device.buses is not None:
            domain = device.address.split(":", 1)[0]
            bridges.setdefault((domain, device.buses[0]), device)
    if not bridges:
        return
    parents: dict[str, str | None] = {}
    roots = _root_buses(devices, bridges)
    for device in devices:
        domain, bus = device.address.split(":")[:2]
        above = bridges.get((domain, int(bus, 16)))
        if above is not None and above is not device:
            parents[device.address] = above.address
            result.add("pci.parent", above.address, device.address)
        elif device.buses is not None and (_is_root_port(device) or (domain, bus) in roots):
            parents[device.address] = None
    redirect: dict[str, bool | None] = {}
    for device in devices:
        if device.buses is not None:
            # A bridge without an ACS capability does not redirect, if its capabilities
            # could be read at all.
            shown = device.redirect if device.redirect is not None else False
            unknown = device.denied or (device.acs_cut and device.redirect is None)
            redirect[device.address] = None if unknown else shown
    gpus = [
        device.address
        for device in devices
        if device.nvidia and device.cls.lower() in _GPU_CLASSES and device.address in parents
    ]
    add_path_facts(result, parents, sorted(set(gpus), key=natural_key), redirect)


def _root_buses(
    devices: list[Device], bridges: dict[tuple[str, int], Device]
) -> set[tuple[str, str]]:
    """Buses known to be root buses: a host bridge sits on them and no bridge leads to them.

    A bridge whose capabilities could not be read (no root) does not say "Root Port"; a host
    bridge on its bus (AMD lists one per root complex, Intel at 00:00.0) says it instead.
    """
    covered: dict[str, bytearray] = {}
    for (domain, _), bridge in bridges.items():
        if bridge.buses is not None:
            marks = covered.setdefault(domain, bytearray(256))
            low, high = bridge.buses
            marks[low : high + 1] = b"\x01" * len(marks[low : high + 1])
    roots: set[tuple[str, str]] = set()
    for device in devices:
        if device.cls.lower() != "host bridge":
            continue
        domain, bus = device.address.split(":")[:2]
        if not covered.get(domain, bytearray(256))[int(bus, 16)]:
            roots.add((domain, bus))
    return roots


def _is_root_port(device: Device) -> bool:
    return any("Root Port" in line and "Express" in line for line in device.body)


def _downgrade_facts(subject: str, cap: Link | None, sta: Link, result: ParseResult) -> None:
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
    devices: list[Device] = []
    current: Device | None = None
    before: list[str] = []
    for line in cleaned.lines:
        device = read_header(line) if line[:1] not in (" ", "\t") else None
        if device is not None:
            devices.append(device)
            current = device
        elif current is not None and line.strip() and line[:1] in (" ", "\t"):
            # Indented lines belong to the device above; the hex dump of -xxx
            # ("00: de 10 ...") is not indented but carries nothing we read.
            current.body.append(line)
        elif current is None:
            before.append(line)
    if not devices:
        return _without_device_lines(cleaned.lines, cleaned.commands)
    result = ParseResult()
    # A paste that starts inside a device block: its link and ACS lines have no address.
    orphans = fragment_devices(before)
    if orphans:
        names = _some(device.address for device in orphans)
        result.problems.append(
            f"link/ACS lines before the first device line (the paste starts mid-device): "
            f"read as {names}"
        )
        devices = [*orphans, *devices]
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
    _topology_facts(devices, result)
    return result


def _some(names: Iterable[str]) -> str:
    """Names for a problem line: all of a few, or the first three and the last of many."""
    listed = list(names)
    if len(listed) <= 6:
        return ", ".join(listed)
    return f"{', '.join(listed[:3])} … {listed[-1]}"


def _without_device_lines(lines: list[str], commands: list[str]) -> ParseResult:
    """A tree, a grep'd fragment, an error message, or not lspci output at all."""
    if looks_like_tree(lines):
        tree = read_tree(lines)
        if tree:
            return parse_lspci_tree("\n".join(lines))
    fragment = fragment_devices(lines)
    if fragment:
        unnamed = [device for device in fragment if device.address.startswith("unknown")]
        slot = slot_address(lines, commands) if len(fragment) == len(unnamed) == 1 else None
        if slot is not None:
            fragment[0].address = slot
        result = ParseResult()
        gaps: dict[str, list[str]] = {}
        for device in fragment:
            _device_facts(device, result, gaps)
        if result.facts:
            if slot is not None:
                result.problems.append(
                    f"no device line (a grep'd fragment?): the address {slot} is taken from "
                    "the lspci -s on the command line"
                )
            elif unnamed:
                names = _some(device.address for device in unnamed)
                result.problems.append(
                    f"no device lines (a grep'd fragment?): {len(unnamed)} link/ACS "
                    f"record(s) without an address, given the subjects {names} in the order "
                    "printed"
                )
            if len(unnamed) < len(fragment):
                names = _some(d.address for d in fragment if not d.address.startswith("unknown"))
                result.problems.append(
                    f"no lspci device lines: link/ACS records named by the address printed "
                    f"before each (a loop over devices?): {names}"
                )
            return result
    error = next((line.strip() for line in lines if _ERRORS.search(line)), None)
    if error:
        return ParseResult.unparsed(f"lspci printed an error, not devices: {error}")
    return ParseResult.unparsed(
        "no lspci device lines found (expected 'BB:DD.F class: vendor device')"
    )


# A device's first line ("01:00.0 VGA compatible controller: …", a domain in front or not) or
# a link or ACS line of its capabilities (what a grep of lspci -vv keeps).
_LSPCI_SHAPE = re.compile(
    r"^[ \t]*(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7][ \t]+\w[^:\n]*:[ \t]"
    r"|^[ \t]*(?:LnkCap|LnkSta|LnkCtl|ACSCap|ACSCtl)2?:",
    re.MULTILINE,
)


def recognise_lspci(text: str) -> bool:
    """Whether ``text`` holds lspci output: device lines, or link and ACS lines of ``-vv``."""
    return _LSPCI_SHAPE.search(text) is not None


PROBE = Probe(
    name="lspci",
    summary="PCIe link status, bridges and ACS on the path between GPUs (lspci -vvv)",
    parse=parse_lspci,
    recognises=recognise_lspci,
    argv=("lspci", "-vvv"),
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
        "pci.acs.supported",
        "pci.acs.enabled",
        "pci.acs.redirect",
        "pci.acs.ctl.req_redir",
        "pci.acs.ctl.cmplt_redir",
        "pci.parent",
        "pci.path",
        "pci.root_port",
        "pci.path.acs_redirect",
        "pci.pair.common_bridge",
        "pci.pair.acs_redirect",
        # patterns (fnmatch): families the parser names per field, section or test
        "pci.acs.*",
    ),
    needs_load=False,
)
