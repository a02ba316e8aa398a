"""Text of ``lspci -v``/``-vv``/``-vvv`` cut into device records: each device's first line read
into a :class:`Device` (address, class, name, whether NVIDIA), its ``LnkCap``/``LnkSta`` lines
into a :class:`Link`, and the link and ACS lines of a grep'd fragment regrouped into devices
when the lines that said whose they were are gone. :mod:`casefile_probes.lspci` turns the
records into facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile_probes._text import to_float, to_int

__all__ = [
    "Device",
    "Link",
    "fragment_devices",
    "normalise_address",
    "read_header",
    "read_link",
    "slot_address",
]

_HEADER = re.compile(
    r"^(?:(?P<domain>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2}):(?P<dev>[0-9a-fA-F]{2})"
    r"\.(?P<fn>[0-7])\s+(?P<rest>\S.*)$"
)
_CLASS = re.compile(r"^(?P<cls>[^:]+?)(?:\s*\[[0-9a-fA-F]{4}\])?:\s*(?P<name>.*)$")
_SPEED = re.compile(r"Speed\s+(?P<speed>[^,]*?)\s*(?P<mark>\((?:ok|downgraded)\))?\s*(?:,|$)")
_WIDTH = re.compile(r"Width\s+x(?P<width>[0-9]+)\s*(?P<mark>\((?:ok|downgraded)\))?")
_IDS = re.compile(r"\s*\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]")
_TAIL = re.compile(r"\s*\((?:rev [0-9a-fA-F]+|prog-if [^)]*\)?)\)\s*$")

# A line of a fragment that has lost its device line, and the order lspci prints them in.
_FRAGMENT = re.compile(r"^\s*(?P<kind>LnkCap|LnkSta|ACSCap|ACSCtl):")
# "lspci -s 2f:00.0 -vv | grep …": the one device a fragment is about. Searched for once, after
# the first "lspci" of a line, so that a line of many "lspci" words costs its length only.
_SLOT_OPTION = re.compile(
    r"\s-[a-zA-Z]*s\s*(?P<slot>(?:[0-9a-fA-F]{1,8}:)?[0-9a-fA-F]{1,2}:[0-9a-fA-F]{1,2}\.[0-7])"
    r"(?:\s|$)"
)
_FRAGMENT_ORDER = {"LnkCap": 0, "LnkSta": 1, "ACSCap": 2, "ACSCtl": 3}
# Lines a loop over devices prints before each one's grep'd lines ("for d in …; do echo $d;
# lspci -s $d -vv | grep Lnk; done"): the address alone, or the device line after a label
# ("Card: 01:00.0 VGA compatible controller: NVIDIA …"). The class must read as a class name,
# so that a command line ("lspci -s 01:00.0 -vv | grep -E 'LnkCap:|LnkSta:'") is not one.
_ADDRESS = r"(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_BARE_ADDRESS = re.compile(rf"^\s*(?P<address>{_ADDRESS})\s*:?\s*$")
_LABELLED_HEADER = re.compile(
    rf"^[A-Za-z][\w -]{{0,30}}:\s+(?P<header>{_ADDRESS}\s+[A-Za-z][A-Za-z0-9 /-]*"
    r"(?:\s*\[[0-9a-fA-F]{4}\])?:\s.*)$"
)


def normalise_address(domain: str | None, bus: str, dev: str, fn: str) -> str:
    """``0000:01:00.0`` form: lower-case, 4-digit domain (lspci omits domain 0000)."""
    dom = (domain or "0000").lower()
    if len(dom) > 4 and dom[:-4].strip("0") == "":
        dom = dom[-4:]
    return f"{dom}:{bus.lower()}:{dev.lower()}.{fn}"


@dataclass
class Link:
    """A link as ``LnkCap`` or ``LnkSta`` prints it, with lspci's own (ok/downgraded) marks."""

    speed: float | None = None
    width: int | None = None
    speed_mark: str | None = None
    width_mark: str | None = None
    marked: bool = False


@dataclass
class Device:
    """One device's record: its first line read, and the indented lines below it."""

    address: str
    cls: str
    name: str
    nvidia: bool
    body: list[str] = field(default_factory=list)
    #: secondary and subordinate bus of a bridge (``Bus: primary=…``), as read
    buses: tuple[int, int] | None = None
    #: whether ACSCtl redirects peer requests; None when not shown
    redirect: bool | None = None
    denied: bool = False
    #: whether its ACSCtl line lacks bits (cut by the paste), so unset bits are unknown
    acs_cut: bool = False


def read_link(body: str) -> Link:
    """A ``LnkCap`` / ``LnkSta`` line's speed and width (None where not a number)."""
    link = Link()
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


def read_header(line: str) -> Device | None:
    """A device's first line (``01:00.0 VGA compatible controller: NVIDIA …``), else None."""
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
    return Device(address, cls_match.group("cls").strip(), name.strip(), nvidia)


def _named_device(line: str) -> Device | None:
    """The device a loop's label line names (a bare address, or a labelled device line)."""
    if match := _BARE_ADDRESS.match(line):
        parts = match.group("address").split(":")
        domain = parts[0] if len(parts) == 3 else None
        dev, fn = parts[-1].split(".")
        return Device(normalise_address(domain, parts[-2], dev, fn), "", "", False)
    if "lspci" in line:
        return None
    if match := _LABELLED_HEADER.match(line):
        return read_header(match.group("header"))
    return None


def fragment_devices(lines: list[str]) -> list[Device]:
    """Link and ACS lines without a device line, grouped into devices: named by the address a
    loop printed before them, else unknown1, unknown2 … in the order printed."""
    devices: list[Device] = []
    last = -1
    named: Device | None = None
    unknown = 0
    for line in lines:
        match = _FRAGMENT.search(line)
        if match is None:
            if line[:1] not in (" ", "\t") and (device := _named_device(line)) is not None:
                named = device
            continue
        order = _FRAGMENT_ORDER[match.group("kind")]
        if named is not None:
            devices.append(named)
            named = None
        elif not devices or order <= last:
            unknown += 1
            devices.append(Device(f"unknown{unknown}", "", "", False))
        last = order
        devices[-1].body.append(line if line[:1] in (" ", "\t") else "\t" + line)
    return devices


def slot_address(lines: list[str], commands: list[str]) -> str | None:
    """The address given by ``-s`` on an lspci command line in the paste, when full."""
    for line in [*commands, *lines]:
        start = line.find("lspci")
        if start < 0:
            continue
        match = _SLOT_OPTION.search(line, start + len("lspci"))
        if match:
            parts = match.group("slot").split(":")
            domain = parts[0] if len(parts) == 3 else None
            bus, rest = parts[-2], parts[-1]
            dev, fn = rest.split(".")
            return normalise_address(domain, bus.zfill(2), dev.zfill(2), fn)
    return None
