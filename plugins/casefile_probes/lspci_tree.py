"""``lspci -tv``: which GPU sits under which PCIe switch or root port.

Peer-to-peer traffic between two GPUs under one PCIe switch can stay inside the switch; between
GPUs on different root ports it crosses the root complex, and with ACS redirection it goes up
there even inside a switch. The tree says which case each pair is; ``lspci -vvv`` says whether
ACS is on (read by :mod:`casefile_probes.lspci`, which uses the path helpers here too).

The tree draws each device as ``DD.F`` after a ``+-`` / ``\\-`` / ``--`` connector; a bridge
carries its secondary bus (range) as ``-[BB]`` or ``-[BB-SS]`` and its children follow to the
right, on the same line or below in the same column. ``-[DDDD:BB]-`` starts a root bus. With
``-v`` a name follows the address after two spaces; with ``-nn`` it ends in
``[vendor:device]``. Parsing is by column: a device's parent is the nearest bridge to its left
on the stack of open bridges, so continuation lines (``|``) need no special reading.

Facts, subject = PCI address (``0000:03:00.0``):

- ``pci.device`` (str, with ``-v``), ``pci.vendor`` = "nvidia" (the name says NVIDIA, or vendor
  id 10de with ``-nn``);
- ``pci.parent`` (str): the bridge directly above a device that is not on a root bus;
- for each NVIDIA endpoint (a device with no bus of its own below it, not an NVSwitch):
  ``pci.path`` (str) the bridges from the root bus down, joined by ``>``, and
  ``pci.root_port`` (str) the first of them;
- per pair of NVIDIA function-0 endpoints, subject ``A-B``: ``pci.pair.common_bridge`` (str)
  the deepest bridge both sit under, or ``root-complex`` when they share none (their traffic
  crosses the host bridge).

On ``host``: ``pci.devices`` (int), the devices drawn.

Without ``-v`` (plain ``lspci -t``) no names are printed, so NVIDIA devices cannot be told and
only ``pci.parent`` facts come out; that is reported as a problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import clean_paste, natural_key

__all__ = [
    "MAX_PAIRED",
    "PROBE",
    "ROOT_COMPLEX",
    "TreeDevice",
    "add_path_facts",
    "looks_like_tree",
    "parse_lspci_tree",
    "read_tree",
]

#: The value of ``pci.pair.common_bridge`` for two devices under different root ports.
ROOT_COMPLEX = "root-complex"
#: Pair facts for at most this many GPUs (64 GPUs give 2,016 pairs); a host has 8 or 16.
MAX_PAIRED = 64

# A device in the drawing: "DD.F" right after a "-" connector, with an optional bus range.
_DEVICE = re.compile(
    r"(?<=-)(?P<dev>[0-9a-fA-F]{2})\.(?P<fn>[0-7])"
    r"(?:-\[(?P<sec>[0-9a-fA-F]{2})(?:-(?P<sub>[0-9a-fA-F]{2}))?\])?"
)
# A root bus: "-[0000:00]-" (newer lspci) or "-[00]-" (older, single domain).
_ROOT = re.compile(r"(?:^|(?<=[-\s]))\[(?:(?P<dom>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2})\]-")
# Where the drawing ends and a name starts: two or more blanks then text.
_NAME = re.compile(r"\s{2,}(?P<name>\S.*)$")
_TREE_LINE = re.compile(r"(?:[+\\]-|--)[0-9a-fA-F]{2}\.[0-7]")
_IDS = re.compile(r"\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]")
_TAIL = re.compile(r"\s*\((?:rev [0-9a-fA-F]+|prog-if [^)]*\)?)\)\s*$")


@dataclass(slots=True)
class TreeDevice:
    """One device of a tree: its address, the bridge above it, its name when printed."""

    address: str
    parent: str | None
    name: str | None = None
    nvidia: bool = False
    #: whether it is a bridge with a bus of its own (children may follow)
    bridge: bool = False


@dataclass(slots=True)
class _Frame:
    column: int
    domain: str
    bus: str
    address: str | None  # the bridge whose secondary bus this is; None for a root bus


def _domain(text: str | None) -> str:
    dom = (text or "0000").lower()
    if len(dom) > 4 and dom[:-4].strip("0") == "":
        dom = dom[-4:]
    return dom


def looks_like_tree(lines: list[str]) -> bool:
    """Whether the lines hold an ``lspci -t`` drawing (a root bus or a ``+-DD.F`` branch)."""
    return any(_TREE_LINE.search(line) or _ROOT.search(line) for line in lines)


def _clean_name(name: str) -> tuple[str, bool]:
    ids = _IDS.search(name)
    nvidia = "nvidia" in name.lower() or (ids is not None and ids.group("vendor").lower() == "10de")
    name = _IDS.sub("", name).strip()
    while True:
        trimmed = _TAIL.sub("", name)
        if trimmed == name:
            break
        name = trimmed
    return " ".join(name.split()), nvidia


def read_tree(lines: list[str]) -> list[TreeDevice]:
    """The devices of an ``lspci -t`` drawing, in the order drawn. Linear in the text."""
    devices: list[TreeDevice] = []
    stack: list[_Frame] = []
    for line in lines:
        named = None
        tree_part = line
        for device in _DEVICE.finditer(line):
            after = _NAME.match(line, device.end())
            if after is not None:
                tree_part = line[: device.end()]
                named = (device.end(), after.group("name"))
                break
        branches = list(_DEVICE.finditer(tree_part))
        # A bridge's own "-[06]-" looks like a root bus; it is one only outside a branch.
        inside = {position for m in branches for position in range(m.start(), m.end())}
        events: list[tuple[int, re.Match[str], bool]] = [
            (m.start(), m, True) for m in _ROOT.finditer(tree_part) if m.start() not in inside
        ]
        events += [(m.start(), m, False) for m in branches]
        events.sort(key=lambda item: item[0])
        for column, match, is_root in events:
            while stack and stack[-1].column >= column:
                stack.pop()
            if is_root:
                stack.append(
                    _Frame(column, _domain(match.group("dom")), match["bus"].lower(), None)
                )
                continue
            if not stack:
                continue  # a branch whose bus was cut from the paste: its address is unknown
            frame = stack[-1]
            address = f"{frame.domain}:{frame.bus}:{match['dev'].lower()}.{match['fn']}"
            entry = TreeDevice(address, frame.address, bridge=match.group("sec") is not None)
            if named is not None and named[0] == match.end():
                entry.name, entry.nvidia = _clean_name(named[1])
            devices.append(entry)
            if match.group("sec") is not None:
                stack.append(_Frame(column, frame.domain, match["sec"].lower(), address))
    return devices


def add_path_facts(
    result: ParseResult,
    parents: dict[str, str | None],
    endpoints: list[str],
    redirect: dict[str, bool | None] | None = None,
) -> None:
    """``pci.path``, ``pci.root_port`` per endpoint and pair facts for function-0 endpoints.

    ``parents`` maps each known device to the bridge above it (None on a root bus). A path is
    complete only when it ends on a root bus; an endpoint whose chain breaks (a bridge missing
    from the paste) gets no path facts. ``redirect`` (from ``lspci -vvv``) says per bridge
    whether its ACS control redirects peer requests (None: not readable); with it, each
    endpoint gets ``pci.path.acs_redirect`` and each pair ``pci.pair.acs_redirect``. Above
    :data:`MAX_PAIRED` endpoints no pair facts are made (a problem says so).
    """
    paths: dict[str, list[str]] = {}
    for endpoint in endpoints:
        chain: list[str] = []
        current = parents.get(endpoint)
        complete = endpoint in parents
        while current is not None:
            if current in chain or current not in parents:
                complete = False
                break
            chain.append(current)
            current = parents[current]
        if complete and chain:
            chain.reverse()
            paths[endpoint] = chain
            result.add("pci.path", ">".join(chain), endpoint)
            result.add("pci.root_port", chain[0], endpoint)
            if redirect is not None:
                result.add("pci.path.acs_redirect", _any_redirect(chain, redirect), endpoint)
    primary = sorted((e for e in paths if e.endswith(".0")), key=natural_key)
    if len(primary) > MAX_PAIRED:
        result.problems.append(
            f"{len(primary)} GPUs: more than {MAX_PAIRED}, so no pair facts (their number grows "
            "with the square)"
        )
        return
    for first, second in combinations(primary, 2):
        a, b = paths[first], paths[second]
        shared = 0
        while shared < min(len(a), len(b)) and a[shared] == b[shared]:
            shared += 1
        subject = f"{first}-{second}"
        result.add("pci.pair.common_bridge", a[shared - 1] if shared else ROOT_COMPLEX, subject)
        if redirect is not None:
            # Peer traffic enters at the ports below the shared bridge; ACS there sends it up.
            route = a[shared:] + b[shared:]
            result.add("pci.pair.acs_redirect", _any_redirect(route, redirect), subject)


def _any_redirect(bridges: list[str], redirect: dict[str, bool | None]) -> bool | None:
    states = [redirect.get(bridge) for bridge in bridges]
    if any(state is True for state in states):
        return True
    if any(state is None for state in states):
        return None
    return False


def tree_facts(devices: list[TreeDevice], result: ParseResult) -> None:
    """Facts for the devices of a tree (shared with the lspci parser's tree fallback)."""
    parents: dict[str, str | None] = {}
    has_children: set[str] = set()
    for device in devices:
        parents.setdefault(device.address, device.parent)
        if device.parent is not None:
            has_children.add(device.parent)
    seen: set[str] = set()
    for device in devices:
        if device.address in seen:
            continue
        seen.add(device.address)
        result.add("pci.device", device.name, device.address)
        if device.nvidia:
            result.add("pci.vendor", "nvidia", device.address)
        result.add("pci.parent", device.parent, device.address)
    endpoints = [
        device.address
        for device in devices
        if device.nvidia
        and device.address not in has_children
        and not device.bridge
        and "nvswitch" not in (device.name or "").lower()
    ]
    add_path_facts(result, parents, sorted(set(endpoints), key=natural_key))


def parse_lspci_tree(text: str) -> ParseResult:
    """Facts from ``lspci -t`` / ``-tv`` / ``-tvv`` / ``-tvnn`` output."""
    cleaned = clean_paste(text, hash_prompt=True)
    devices = read_tree(cleaned.lines)
    if not devices:
        return ParseResult.unparsed(
            "no lspci tree found (expected '-[0000:00]-+-00.0' and '+-DD.F' branches)"
        )
    result = ParseResult()
    tree_facts(devices, result)
    result.add("pci.devices", len({device.address for device in devices}), "host")
    if not any(device.name for device in devices):
        result.problems.append(
            "a tree without names (lspci -t): NVIDIA devices cannot be told; run lspci -tvnn"
        )
    return result


PROBE = Probe(
    name="lspci-tree",
    summary="PCIe tree: which switch or root port each GPU sits under (lspci -tvnn)",
    parse=parse_lspci_tree,
    argv=("lspci", "-tvnn"),
    cost="instant",
    facts=(
        "pci.devices",
        "pci.device",
        "pci.vendor",
        "pci.parent",
        "pci.path",
        "pci.root_port",
        "pci.pair.common_bridge",
    ),
    needs_load=False,
)
