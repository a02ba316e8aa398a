"""InfiniBand port state: ``ibstat``, ``ibv_devinfo`` (``-v`` too) and ``ibstatus``.

A multi-node NCCL job runs at the speed of its slowest network port, and the first thing
asked in such a report is the state of each HCA port. People answer with whichever tool they
know, so one probe reads the three that print it, in the layout each prints:

- ``ibstat``: ``CA 'mlx5_0'``, then ``Port 1:`` with ``State: Active``, ``Physical state:
  LinkUp``, ``Rate: 200`` and ``Link layer: InfiniBand`` under it;
- ``ibv_devinfo``: ``hca_id: mlx5_0``, then ``port: 1`` with ``state: PORT_ACTIVE (4)`` and
  ``link_layer: InfiniBand``; with ``-v`` also ``active_width: 4X (2)``, ``active_speed:
  50.0 Gbps (64)`` and ``phys_state: LINK_UP (5)``;
- ``ibstatus``: ``Infiniband device 'mlx5_0' port 1 status:`` with ``state: 4: ACTIVE``,
  ``phys state: 5: LinkUp``, ``rate: 200 Gb/sec (4X HDR)`` and ``link_layer: InfiniBand``.

Facts, per port (subject ``<CA>/<port>``, e.g. ``mlx5_0/1``, the name NCCL's log uses):

- ``ib.state`` (str): the logical state in ibstat's words, ``Down``, ``Initializing``,
  ``Armed``, ``Active`` (ibv_devinfo's ``PORT_ACTIVE (4)`` and ibstatus's ``4: ACTIVE`` are
  rewritten to them), so that a rule names one spelling;
- ``ib.physical_state`` (str): ``Sleep``, ``Polling``, ``Disabled``,
  ``PortConfigurationTraining``, ``LinkUp``, ``LinkErrorRecovery``, ``PhyTest`` (ibstat's
  words again; ``LINK_UP (5)`` → ``LinkUp``);
- ``ib.rate`` (float, Gb/s): ibstat's ``Rate``, ibstatus's ``rate``, or ibv_devinfo -v's
  lanes × per-lane speed (:data:`LANE_GBPS`). Only for a port whose physical link is up (or,
  where no physical state is printed, whose state is not ``Down``): a port still polling
  prints the rate it would start at (``Rate: 10``, 4X SDR), which is no reading of the link;
- ``ib.link_layer`` (str): ``InfiniBand`` or ``Ethernet`` (RoCE).

On ``host``: ``ib.ports`` (int, the ports read with a state) and ``ib.ports_active`` (int,
those ``Active``). They count what the paste holds: a paste cut short counts fewer ports. And
``ib.rate.slowest_share`` (float): the slowest Active port's rate over the fastest's among
like ports (one link layer, one adapter part where the header prints it: ``CA type``,
``vendor_part_id``), the lowest over such groups of two or more (1.0: like ports all trained
at one rate). A port listed twice (several nodes pasted together) is read twice, as
``mlx5_0/1 (listing 2)``, so one node's port does not hide another's.

So a rule can say: a port Down or Polling (``ib.state`` / ``ib.physical_state``), a port
Active below the rate of the others (``ib.rate`` under ``min`` against ``max``), or RoCE where
InfiniBand was meant (``ib.link_layer`` is ``Ethernet``). No supported maximum is read: none
of these tools prints one per port (ibv_devinfo's ``max_mtu`` is a size, not a rate).

A paste through a parallel shell (pdsh, clush: every line ``node1: …``, the nodes' lines
interleaved or in blocks) is read node by node, each node's lines as one listing (see
:mod:`casefile_probes._host_prefix` for what counts as such a prefix: ibstat's own
``State: Active`` lines do not). With one node its ports are named as in a plain paste, so the
two read alike; with several, each port's subject names its node, ``mlx5_0/1 (node1)``, in
place of a listing number, and the counts and ``ib.rate.slowest_share`` span every node (one
fabric's ports, compared with each other). What the shell said itself (``pdsh@head: node3: ssh
exited with exit code 255``) is a problem: a node missing from the paste. A few lines of the
poster's above the prefixed ones (``Here is ibstat on every node:``) are passed over, where
none of them is a header or port line of the tools: those make the paste a plain one.

Pastes are cut at both ends: lines before the first ``CA``/``hca_id``/device header belong to
a port whose name is gone and are left with a problem; a port the paste ends inside keeps what
it printed. ``ibwarn:`` debug lines, ``ibportstate`` dumps (``LinkState:....Active``), prompts
and the ``...`` people put for what they cut are not port lines and are passed over.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from casefile.domain.fabric import IB_GENERATIONS
from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._host_prefix import shell_said, split_host_prefixes
from casefile_probes._text import clean_paste

__all__ = ["LANE_GBPS", "PROBE", "looks_like_ibstat", "parse_ibstat"]

#: Gb/s per lane of each InfiniBand speed, as the tools count it: a quarter of a 4X port's
#: nominal rate (:data:`casefile.domain.fabric.IB_GENERATIONS`). These are the nominal data
#: rates, not the signalling rates of the IB specification (SDR 2.5, DDR 5, QDR 10, FDR10
#: 10.3125, FDR 14.0625, EDR 25.78125, HDR 53.125, NDR 106.25 Gbaud): ibstat's ``Rate`` is
#: width × this figure (4X FDR prints 56, 4X EDR 100, 4X HDR 200, 4X NDR 400) and
#: ibv_devinfo prints the same figure per lane (``14.0 Gbps``, ``25.0 Gbps``, ``50.0 Gbps``),
#: so a rate computed from ibv_devinfo -v compares equal to ibstat's for the same link. The
#: second column is the ``active_speed`` code ibv_devinfo prints in parentheses (the IBTA
#: PortInfo encoding, libibverbs' ``ibv_port_attr.active_speed``), read where no figure is.
_ACTIVE_SPEED_CODES = {
    "SDR": 1,
    "DDR": 2,
    "QDR": 4,
    "FDR10": 8,
    "FDR": 16,
    "EDR": 32,
    "HDR": 64,
    "NDR": 128,
    "XDR": 256,
}
LANE_GBPS: dict[str, tuple[float, int]] = {
    name: (IB_GENERATIONS[name][0] / 4, code) for name, code in _ACTIVE_SPEED_CODES.items()
}
_SPEED_CODES = {code: gbps for gbps, code in LANE_GBPS.values()}
#: ``active_width`` codes (IBTA PortInfo:LinkWidthActive) → lanes: 2X is the later 16
_WIDTH_CODES = {1: 1, 2: 4, 4: 8, 8: 12, 16: 2}

#: logical port states by number (IBTA PortInfo:PortState), in ibstat's words
_STATES = {0: "NOP", 1: "Down", 2: "Initializing", 3: "Armed", 4: "Active", 5: "ActiveDefer"}
_STATE_WORDS = {
    "NOP": "NOP",
    "DOWN": "Down",
    "INIT": "Initializing",
    "INITIALIZE": "Initializing",
    "INITIALIZING": "Initializing",
    "ARMED": "Armed",
    "ACTIVE": "Active",
    "ACTIVE_DEFER": "ActiveDefer",
    "ACTIVEDEFER": "ActiveDefer",
}
#: physical port states by number (IBTA PortInfo:PortPhysicalState), in ibstat's words
_PHYSICAL = {
    0: "NoStateChange",
    1: "Sleep",
    2: "Polling",
    3: "Disabled",
    4: "PortConfigurationTraining",
    5: "LinkUp",
    6: "LinkErrorRecovery",
    7: "PhyTest",
}
_PHYSICAL_WORDS = {re.sub(r"[^A-Z]", "", name.upper()): name for name in _PHYSICAL.values()}
# ibv_devinfo's spellings that do not squeeze to ibstat's word
_PHYSICAL_WORDS.update({"PORTCONFIGURATIONTRAINNING": "PortConfigurationTraining"})

_CA = re.compile(r"^\s*CA:?\s+'(?P<ca>[^'\s]{1,64})'\s*$")
_CA_PORT = re.compile(r"^\s*Port\s+(?P<port>\d{1,3}):\s*$")
_HCA = re.compile(r"^\s*hca_id:\s*(?P<ca>\S{1,64})\s*$")
_HCA_PORT = re.compile(r"^\s*port:\s*(?P<port>\d{1,3})\s*$")
_IBSTATUS = re.compile(
    r"^\s*Infiniband device\s+'(?P<ca>[^'\s]{1,64})'\s+port\s+(?P<port>\d{1,3})\s+status:\s*$",
    re.I,
)
#: the adapter's part under its header: ibstat's ``CA type: MT4123``, ibv_devinfo's
#: ``vendor_part_id: 4123``
_PART = re.compile(r"^\s*(?:CA type|vendor_part_id):\s*(?:MT)?(?P<part>\d{3,6})\s*$")
#: ``key: value`` on a port's line; the key as ibstat, ibv_devinfo or ibstatus spells it
_FIELD = re.compile(
    r"^\s*(?P<key>State|Physical state|Rate|Link layer|state|phys_state|phys state|rate"
    r"|link_layer|active_width|active_speed):\s*(?P<value>\S.{0,80}?)\s*$"
)
_CODED = re.compile(r"^(?P<word>[A-Za-z][\w ]*?)\s*\((?P<code>\d{1,3})\)$")  # LINK_UP (5)
_NUMBERED = re.compile(r"^(?P<code>\d{1,3}):\s*(?P<word>\w+)$")  # 4: ACTIVE
_NUMBER = re.compile(r"^(?P<n>\d{1,4}(?:\.\d{1,4})?)(?:\s*Gb/sec\b.*)?$")
_WIDTH = re.compile(r"^(?P<lanes>\d{1,2})X(?:\s*\((?P<code>\d{1,3})\))?$", re.I)
_SPEED = re.compile(
    r"^(?:(?P<gbps>\d{1,4}(?:\.\d{1,4})?)\s*Gbps|(?P<name>[A-Z]{3}\d{0,2}))"
    r"(?:\s*\((?P<code>\d{1,4})\))?$"
)
#: the one-word keys the three tools print (``State: Active``, ``transport: InfiniBand (0)``),
#: their warnings, and ibv_devinfo's snake_case keys (a node name may hold an underscore, and
#: a paste stripped of its indentation prints ``hca_id: mlx5_0`` and ``link_layer:
#: InfiniBand`` at the line's start): no node of a parallel shell's prefix, whatever the paste
_OWN_KEYS = frozenset(
    {"state", "rate", "lmc", "transport", "port", "ibwarn", "ibpanic"}
    | {"hca_id", "fw_ver", "node_guid", "sys_image_guid", "vendor_id", "vendor_part_id"}
    | {"hw_ver", "board_id", "phys_port_cnt", "max_mtu", "active_mtu", "sm_lid", "port_lid"}
    | {"port_lmc", "link_layer", "phys_state", "active_width", "active_speed"}
)
#: how many lines of the poster's may head a parallel shell's paste: a sentence saying what
#: follows, wrapped once or twice
_WORDS_ABOVE = 3
# terminal colours and other control characters a paste may carry (a tab is kept)
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,16}[A-Za-z]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class _Port:
    """What one port printed, in ibstat's words, as far as the paste goes."""

    state: str | None = None
    physical: str | None = None
    rate: float | None = None
    width: int | None = None
    lane_gbps: float | None = None
    link_layer: str | None = None
    #: the adapter's part number (4123: ConnectX-6), where its header printed one
    part: str | None = None

    def link_rate(self) -> float | None:
        """The port's rate if it is a reading: printed, or lanes × per-lane speed, and only
        while the link is up (see the module's docstring)."""
        if self.physical is not None:
            if self.physical != "LinkUp":
                return None
        elif self.state in (None, "Down", "NOP"):
            return None
        if self.rate is not None:
            return self.rate
        if self.width is not None and self.lane_gbps is not None:
            return round(self.width * self.lane_gbps, 3)
        return None


def _state(value: str) -> str | None:
    """``Active``, ``PORT_ACTIVE (4)`` or ``4: ACTIVE`` as ibstat's word (None: unreadable)."""
    numbered = _CODED.match(value) or _NUMBERED.match(value)
    if numbered is not None and int(numbered.group("code")) in _STATES:
        return _STATES[int(numbered.group("code"))]
    word = re.sub(r"^PORT_", "", value.strip().upper()).replace(" ", "_")
    return _STATE_WORDS.get(word)


def _physical(value: str) -> str | None:
    """``LinkUp``, ``LINK_UP (5)`` or ``5: LinkUp`` as ibstat's word (None: unreadable)."""
    numbered = _CODED.match(value) or _NUMBERED.match(value)
    if numbered is not None and int(numbered.group("code")) in _PHYSICAL:
        return _PHYSICAL[int(numbered.group("code"))]
    return _PHYSICAL_WORDS.get(re.sub(r"[^A-Z]", "", value.upper()))


def _lanes(value: str) -> int | None:
    match = _WIDTH.match(value)
    if match is not None:
        return int(match.group("lanes"))
    code = _CODED.match(value)
    return _WIDTH_CODES.get(int(code.group("code"))) if code is not None else None


def _lane_speed(value: str) -> float | None:
    """Gb/s per lane from ``25.0 Gbps (32)``, ``HDR (64)``, or the code alone after a word
    the table does not know; ``invalid speed (0)`` and ``0.0 Gbps`` give None."""
    match = _SPEED.match(value)
    if match is None:
        code = _CODED.match(value)
        return _SPEED_CODES.get(int(code.group("code"))) if code is not None else None
    if match.group("gbps") is not None:
        gbps = float(match.group("gbps"))
        return gbps if gbps > 0 else None
    named = LANE_GBPS.get(match.group("name"))
    if named is not None:
        return named[0]
    number = match.group("code")
    return _SPEED_CODES.get(int(number)) if number is not None else None


def _set(port: _Port, key: str, value: str) -> None:
    """Record one ``key: value`` line of a port, whichever tool printed it."""
    key = key.lower()
    if key == "state":
        port.state = _state(value)
    elif key in ("physical state", "phys_state", "phys state"):
        port.physical = _physical(value)
    elif key == "rate":
        number = _NUMBER.match(value)
        port.rate = float(number.group("n")) if number is not None else None
        if port.rate is not None and port.rate <= 0:
            port.rate = None
    elif key in ("link layer", "link_layer"):
        port.link_layer = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}.get(
            value.lower(), value if value.isalpha() else None
        )
    elif key == "active_width":
        port.width = _lanes(value)
    elif key == "active_speed":
        port.lane_gbps = _lane_speed(value)


def _lines(text: str) -> list[str]:
    """The paste's lines without quoting, prompts, terminal colours or control characters."""
    cleaned = clean_paste(text)
    return [_CONTROL.sub("", _ANSI.sub("", line)) for line in cleaned.lines]


def _is_header(line: str) -> bool:
    """A device or port header of any of the three tools."""
    return any(pattern.match(line) for pattern in (_CA, _HCA, _IBSTATUS, _CA_PORT, _HCA_PORT))


def _listings(text: str) -> tuple[list[tuple[str | None, list[str]]], list[str]]:
    """Each node's lines, with its name where a parallel shell prefixed them (None for a
    plain paste, one listing), and what the shell said itself. A prefixed reading is taken
    only where a node's lines hold a header and the lines above the prefixed ones (the
    poster's sentence) hold none of the tools' lines: the tools' own lines never read as
    prefixes, and a plain listing above prefixed lines is no parallel shell's paste."""
    lines = _lines(text)
    split = split_host_prefixes(lines, not_hosts=_OWN_KEYS, above=_WORDS_ABOVE)
    if split is None or any(_is_header(line) or _FIELD.match(line) for line in split.above):
        return [(None, lines)], []
    nodes: list[tuple[str | None, list[str]]] = list(split.hosts.items())
    if not any(_is_header(line) for _node, got in nodes for line in got):
        return [(None, lines)], []
    return nodes, split.said


def _read(
    lines: list[str], node: str | None = None, ports: dict[str, _Port] | None = None
) -> tuple[dict[str, _Port], list[str]]:
    """Every port the lines print, by subject, and the problems met on the way; with ``node``,
    each subject names it (``mlx5_0/1 (node1)``), added to ``ports`` (a paste of several)."""
    ports = {} if ports is None else ports
    problems: list[str] = []
    ca: str | None = None
    part: str | None = None
    current: _Port | None = None
    orphaned = 0
    for line in lines:
        if (match := _CA.match(line) or _HCA.match(line)) is not None:
            ca, part, current = match.group("ca"), None, None
            continue
        if (typed := _PART.match(line)) is not None:
            part = typed.group("part")
            continue
        header = _IBSTATUS.match(line)
        if header is not None:
            ca = header.group("ca")
        elif (header := _CA_PORT.match(line) or _HCA_PORT.match(line)) is None:
            field = _FIELD.match(line)
            if field is None:
                continue
            if current is None:
                orphaned += 1
            else:
                _set(current, field.group("key"), field.group("value"))
            continue
        number = int(header.group("port"))
        port = f"{ca}/{number}" if ca is not None else f"port{number}"
        subject = port if node is None else f"{port} ({node})"
        if subject in ports:
            # a second listing of one port: most often the next node of a paste that shows
            # several; each listing is kept, so no node's port hides another's
            listing = 2
            while _listed(port, node, listing) in ports:
                listing += 1
            where = "several nodes in one paste?" if node is None else f"on {node}"
            problems.append(
                f"{port} is listed {listing} times ({where}): each listing is read as its own port"
            )
            subject = _listed(port, node, listing)
        current = ports[subject] = _Port(part=part)
    if orphaned:
        problems.append(
            f"{orphaned} port line(s) before the first CA, hca_id or device header, whose "
            "port the paste cut off: not read" + ("" if node is None else f" (on {node})")
        )
    return ports, problems


def _listed(port: str, node: str | None, listing: int) -> str:
    """The subject of a port's further listing: ``mlx5_0/1 (listing 2)``, and on a named node
    ``mlx5_0/1 (node1, listing 2)``."""
    return f"{port} (listing {listing})" if node is None else f"{port} ({node}, listing {listing})"


def _read_paste(text: str) -> tuple[dict[str, _Port], list[str]]:
    """Every port of the paste, node by node where a parallel shell prefixed its lines (a node
    named only where there are several), and the problems met on the way."""
    listings, said = _listings(text)
    # nodes are named where two or more list a device: a poster's "Note: …" line is no node
    named = sum(any(map(_is_header, lines)) for _node, lines in listings) > 1
    ports: dict[str, _Port] = {}
    problems: list[str] = []
    for node, lines in listings:
        problems += _read(lines, node if named else None, ports)[1]
    return ports, problems + shell_said(said)


def parse_ibstat(text: str) -> ParseResult:
    """Each port's ``ib.state``, ``ib.physical_state``, ``ib.rate`` and ``ib.link_layer``, and
    on ``host`` how many ports were read and how many are Active. Never raises."""
    if not isinstance(text, str):
        return ParseResult.unparsed("no text to read")
    ports, problems = _read_paste(text)
    result = ParseResult(problems=problems)
    counted = active = 0
    for subject, port in ports.items():
        result.add("ib.state", port.state, subject)
        result.add("ib.physical_state", port.physical, subject)
        result.add("ib.rate", port.link_rate(), subject, "Gb/s")
        result.add("ib.link_layer", port.link_layer, subject)
        if port.state is not None:
            counted += 1
            active += port.state == "Active"
    if counted:
        result.add("ib.ports", counted)
        result.add("ib.ports_active", active)
    result.add("ib.rate.slowest_share", _slowest_share(ports.values()))
    if not result.facts:
        if ports:
            return ParseResult.unparsed(
                f"{len(ports)} port header(s) but no state, rate or link layer under them"
            )
        return ParseResult.unparsed(
            "no port of ibstat (CA '…', Port N:), ibv_devinfo (hca_id:, port:) or ibstatus "
            "(Infiniband device '…' port N status:): is this InfiniBand port output?"
        )
    return result


def _slowest_share(ports: Iterable[_Port]) -> float | None:
    """The lowest, over groups of like ports, of the slowest Active port's rate over the
    fastest's, where a group has two or more rated ports. Ports are alike when they share a
    link layer and (where the header printed it) an adapter part: one fabric's adapters of
    one kind train at one rate, so one below the others is a cable, a transceiver or a switch
    port that fell back. A RoCE port beside InfiniBand ones, a management NIC or a storage
    adapter of another kind is another network, and is not compared."""
    groups: dict[tuple[str | None, str | None], list[float]] = {}
    for port in ports:
        rate = port.link_rate()
        if port.state == "Active" and rate:
            groups.setdefault((port.link_layer, port.part), []).append(rate)
    shares = [min(rates) / max(rates) for rates in groups.values() if len(rates) >= 2]
    return round(min(shares), 4) if shares else None


def looks_like_ibstat(text: str) -> bool:
    """Whether a text holds a device header of ibstat, ibv_devinfo or ibstatus followed by a
    port field of the same tool (a log line naming ``mlx5_0`` is not enough)."""
    if not isinstance(text, str):
        return False
    if "CA" not in text and "hca_id" not in text and "nfiniband device" not in text:
        return False
    for _node, lines in _listings(text[:200_000])[0]:
        header = False
        for line in lines:
            if _CA.match(line) or _HCA.match(line) or _IBSTATUS.match(line):
                header = True
            elif header and (_CA_PORT.match(line) or _HCA_PORT.match(line) or _FIELD.match(line)):
                return True
    return False


PROBE = Probe(
    name="ibstat",
    summary="InfiniBand/RoCE port state, physical state, rate and link layer "
    "(ibstat; ibv_devinfo and ibstatus output read too)",
    parse=parse_ibstat,
    argv=("ibstat",),
    cost="instant",
    facts=(
        "ib.state",
        "ib.physical_state",
        "ib.rate",
        "ib.link_layer",
        "ib.ports",
        "ib.ports_active",
        "ib.rate.slowest_share",
    ),
    fractions=("ib.rate.slowest_share",),
    needs_load=False,
    recognises=looks_like_ibstat,
)
