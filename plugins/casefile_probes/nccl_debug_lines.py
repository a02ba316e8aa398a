"""The NCCL_DEBUG log line recognisers: what each kind of message NCCL prints says.

:func:`read_message` folds one :class:`LogLine` into :class:`Collected`, one branch per kind of
line: connections and their transports, rings, trees and channels, settings read from the
environment (also :func:`bare_setting` for one quoted without its prefix), versions, network
devices and interfaces, GPUDirect RDMA, CPU affinity, NVLS, topology patterns and the
communicator's ranks. Kept apart from :mod:`casefile_probes.nccl_debug`, which finds the
messages in a paste and turns what was collected into facts, so that the many patterns NCCL's
wording needs do not bury the driver.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile_probes._text import to_float, to_int

_VERSION = re.compile(r"^NCCL version (?P<version>\d+\.\d+\.\d+)")
_DRIVER = re.compile(r"^cudaDriverVersion (?P<version>\d+)")
_CONNECTION = re.compile(
    r"^(?:Channel|Ring) (?P<channel>\d+)(?:/\d+)? : (?P<a>\d+)(?:\[[0-9a-fA-F]+\])? -> "
    r"(?P<b>\d+)(?:\[[0-9a-fA-F]+\])?(?: \[(?:send|receive)\])? via (?P<via>\S.*)$"
)
# NCCL 2.19 and later pad each rank to a fixed width ("Channel 00/04 :    0   1   2   3");
# older ones separate them by one blank. The order is kept with single blanks either way.
_RING_ORDER = re.compile(
    r"^(?:Channel|Ring) (?P<channel>\d+)(?:/(?P<total>\d+))? : +(?P<order>\d+(?: +\d+)+)\s*$"
)
# A connection line the paste cut before its transport ("… 0[87000] -> 1[", "… [re"): the
# message ends inside the peer, the direction or "via". Old NCCL's ring listing
# ("Ring 00 : 0 -> 1 -> 0") goes on past the peer and is not one.
_CUT_CONNECTION = re.compile(
    r"^(?:Channel|Ring) \d+(?:/\d+)? : \d+(?:\[[0-9a-fA-F]+\])? ->"
    r"(?: \d+(?:\[[0-9a-fA-F]*\]?)?(?: \[[a-z]*\]?)?(?: v(?:ia?)?)?)?$"
)
# NVML says two GPUs behind a PCIe path NCCL would use cannot reach each other by P2P (INFO),
# or cannot although NVLink joins them (WARN, and NCCL stops). The numbers are NVML indices.
_P2P_DISABLED = re.compile(
    r"^P2P is disabled between (?:NVLINK )?connected GPUs (?P<a>\d+) and (?P<b>\d+)\b"
)
_TREES = re.compile(r"^Trees (?P<spec>\[\d+\] .*)$")
_TREE_LINK = re.compile(r"\[\d+\] (\S+)")
# "NCCL_IB_HCA set by environment to mlx5"; NCCL 2.7 and the socket and IB code of later ones
# print a value they read from the environment without "by environment" ("NCCL_SOCKET_IFNAME
# set to ib0").
_ENV = re.compile(r"^(?P<name>NCCL_[A-Z0-9_]+) set (?:by environment )?to (?P<value>.*)$")
_COMM = re.compile(
    r"\bcomm 0x[0-9a-fA-F]+ rank (?P<rank>\d+) nr?anks (?P<nranks>\d+)"
    r"(?: nNodes (?P<nnodes>\d+) localRanks (?P<local>\d+))?"
    r"(?: cudaDev (?P<dev>\d+))?(?: nvmlDev \d+)?(?: busId (?P<bus>[0-9a-fA-F]+))?",
    re.I,
)
# the whole name: a plugin's can hold blanks ("Using network AWS Libfabric")
_NETWORK = re.compile(r"^Using network (?P<net>\S(?:.*\S)?)")
_IB_USING = re.compile(r"^NET/IB ?: Using (?P<devices>.*?)(?:;|$)")
_IB_NONE = re.compile(r"^NET/IB ?: No device found")
_SOCKET_USING = re.compile(r"^NET/Socket ?: Using (?P<ifaces>.*)$")
_IFACE = re.compile(r"\[\d+\]([\w.-]+):")
_IB_DEVICE = re.compile(r"\[\d+\]([\w.-]+:\d+(?:/\w+)?)")
_GDR = re.compile(
    r"GPU Direct RDMA (?P<state>Enabled|Disabled) for (?:GPU \S+ / )?HCA \d+ '?(?P<hca>[\w.-]+)"
)
_AFFINITY = re.compile(r"^Setting affinity for GPU (?P<gpu>\d+) to (?P<mask>\S+)")
_NVLS = re.compile(r"^NVLS multicast support is (?P<not>not )?available on dev (?P<gpu>\d+)")
_PATTERN = re.compile(
    r"^Pattern (?P<pattern>\d+), crossNic \d+, nChannels (?P<channels>\d+), "
    r"bw (?P<bw>[0-9.]+)/[0-9.]+, type (?P<type>[\w/]+)"
)
_CHANNEL_COUNTS = re.compile(
    r"^(?P<coll>\d+) coll channels,(?: \d+ \w+ channels,)*? (?P<p2p>\d+) p2p channels\b"
)
_RINGS_GDR = re.compile(r"^Connected all rings, use ring PXN \d+ GDR (?P<gdr>\d)")
# Transports as NCCL prints them whole; a text that is only the start of one was cut by the paste.
_WHOLE_TRANSPORT = re.compile(
    r"P2P/(?:IPC|CUMEM|direct pointer)(?:/read)?|SHM/(?:direct|cuda)/(?:direct|cuda)"
    r"|NET/[\w-]+(?: [\w-]+)*/\d+(?:/GDRDMA)?(?:/Shared)?"  # "NET/AWS Libfabric/0" has a blank
    r"|direct shared memory|direct pointer|NVLS|CollNet\w*"
)
_TRANSPORT_NAMES = (
    "P2P/IPC/read",
    "P2P/CUMEM/read",
    "P2P/direct pointer/read",
    "SHM/direct/direct",
)
# "3/-1/-1->2->1" (children, rank, parent); NCCL 2.5 printed "down->me->up|up->me->down".
_TREE_HALF = r"-?\d+(?:/-?\d+)*->-?\d+->-?\d+(?:/-?\d+)*"
_TREE_WHOLE = re.compile(rf"{_TREE_HALF}(?:\|{_TREE_HALF})?")
_MASK = re.compile(r"[0-9a-fA-F]{1,8}(?:,[0-9a-fA-F]{8})*|\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*")


@dataclass(frozen=True, slots=True)
class LogLine:
    """One NCCL log message: where it came from and what it says."""

    host: str
    device: int | None
    level: str
    message: str


_BARE_INFO = re.compile(r"^\s*(?:>\s*)*(?:NCCL\s+INFO\s+)?")


#: a setting quoted on its own is one value to the end of the line: "NCCL_P2P_DISABLE set to 1
#: in my env but it still hangs" is a person's sentence, not NCCL's line
_ONE_VALUE = re.compile(r"^NCCL_[A-Z0-9_]+ set (?:by environment )?to \S+\.?$")


def bare_setting(line: str, found: list[tuple[bool, str, int | None, str, str]]) -> None:
    """A setting quoted on its own, without the log's ``host:pid:tid [dev]`` prefix (a
    maintainer citing the one line that matters): still what NCCL read from the environment,
    where it holds one value, as NCCL prints it."""
    bare = _BARE_INFO.sub("", line, count=1).strip()
    if _ENV.match(bare) and _ONE_VALUE.match(bare):
        found.append((True, "", None, "INFO", bare))


def _transport(via: str) -> tuple[str, str, bool | None]:
    """(class, detail, GPUDirect RDMA) for the text after ``via``."""
    text = via.strip()
    if text == "direct shared memory" or text.startswith("SHM"):
        return "SHM", text if text.startswith("SHM") else "SHM (direct shared memory)", None
    if text.startswith("NET/"):
        parts = text.split("/")
        plugin = parts[1] if len(parts) > 1 else "?"
        kept = [p for p in parts[2:] if not p.isdigit()]
        detail = "/".join(["NET", plugin, *kept])
        return f"NET/{plugin}", detail, "GDRDMA" in kept
    if text.startswith("P2P/"):
        kind = text.split("/")[1].split()[0]
        if kind == "direct":
            return "P2P/direct", text, None
        return f"P2P/{kind}", text, None
    head = text.split("/")[0].split()[0]
    return head, text, None


def _bus_id(value: str) -> str | None:
    """NCCL's ``busId 1c000`` (domain, bus, device in hex) as ``0000:1c:00.0``."""
    number = int(value, 16)
    domain, bus, device = number >> 16 >> 4, (number >> 12) & 0xFF, (number >> 4) & 0xFF
    if device > 0x1F:
        return None
    return f"{domain:04x}:{bus:02x}:{device:02x}.{number & 0xF:x}"


@dataclass(slots=True)
class Collected:
    transports: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    details: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    gdrdma: dict[tuple[int, int], bool] = field(default_factory=dict)
    channels: set[int] = field(default_factory=set)
    channel_total: int | None = None
    rings: dict[int, str] = field(default_factory=dict)
    trees: dict[int, list[str]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    host: dict[str, int | str | bool] = field(default_factory=dict)
    graphs: dict[int, tuple[str, float | None, int | None]] = field(default_factory=dict)
    gdr: dict[str, bool] = field(default_factory=dict)
    affinity: dict[int, str] = field(default_factory=dict)
    nvls: dict[int, bool] = field(default_factory=dict)
    rank_dev: dict[int, int] = field(default_factory=dict)
    rank_bus: dict[int, str] = field(default_factory=dict)
    p2p_disabled: set[tuple[int, int]] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    cut: int = 0


def _cut_transport(via: str) -> bool:
    """Whether ``via`` is only the beginning of a transport name (the paste ended there)."""
    text = via.strip()
    if _WHOLE_TRANSPORT.fullmatch(text):
        return False
    return any(name.startswith(text) for name in _TRANSPORT_NAMES) or text.startswith(
        ("NET/", "P2P/", "SHM/")
    )


def read_message(c: Collected, line: LogLine) -> None:
    """Fold one message into ``c``: one branch per kind of line NCCL prints."""
    message = line.message
    if m := _P2P_DISABLED.match(message):
        c.p2p_disabled.add((int(m.group("a")), int(m.group("b"))))
    if line.level == "WARN":
        c.warnings.append(message)
        return
    if m := _CONNECTION.match(message):
        if _cut_transport(m.group("via")):
            c.cut += 1
            return
        pair = (int(m.group("a")), int(m.group("b")))
        kind, detail, gdr = _transport(m.group("via"))
        c.transports.setdefault(pair, set()).add(kind)
        c.details.setdefault(pair, set()).add(detail)
        if gdr is not None:
            c.gdrdma[pair] = c.gdrdma.get(pair, False) or gdr
        c.channels.add(int(m.group("channel")))
    elif m := _RING_ORDER.match(message):
        channel = int(m.group("channel"))
        c.rings.setdefault(channel, " ".join(m.group("order").split()))
        c.channels.add(channel)
        if m.group("total"):
            c.channel_total = max(c.channel_total or 0, int(m.group("total")))
    elif m := _TREES.match(message):
        links = _TREE_LINK.findall(m.group("spec"))
        whole = [link for link in links if _TREE_WHOLE.fullmatch(link)]
        c.cut += len(links) - len(whole)
        links = whole
        me = _tree_rank(links)
        if me is not None:
            known = c.trees.setdefault(me, [])
            known.extend(link for link in links if link not in known)
    elif m := _ENV.match(message):
        c.env.setdefault(m.group("name"), m.group("value").strip().rstrip(".").strip())
    elif m := _VERSION.match(message):
        c.host.setdefault("nccl.version", m.group("version"))
    elif m := _DRIVER.match(message):
        c.host.setdefault("nccl.cuda_driver", int(m.group("version")))
    elif m := _NETWORK.match(message):
        c.host.setdefault("nccl.network", m.group("net"))
    elif _IB_NONE.match(message):
        c.host.setdefault("nccl.ib.devices", "")
    elif m := _IB_USING.match(message):
        devices = _IB_DEVICE.findall(m.group("devices"))
        if devices or "nccl.ib.devices" not in c.host:
            c.host["nccl.ib.devices"] = ",".join(devices)
    elif m := _SOCKET_USING.match(message):
        c.host.setdefault("nccl.socket.interfaces", ",".join(_IFACE.findall(m.group("ifaces"))))
    elif m := _AFFINITY.match(message):
        if _MASK.fullmatch(m.group("mask")):
            c.affinity.setdefault(int(m.group("gpu")), m.group("mask"))
        else:
            c.cut += 1
    elif m := _NVLS.match(message):
        c.nvls.setdefault(int(m.group("gpu")), not m.group("not"))
    elif m := _PATTERN.match(message):
        c.graphs.setdefault(
            int(m.group("pattern")),
            (m.group("type"), to_float(m.group("bw")), to_int(m.group("channels"))),
        )
    elif m := _CHANNEL_COUNTS.match(message):
        c.host.setdefault("nccl.coll_channels", int(m.group("coll")))
        c.host.setdefault("nccl.p2p_channels", int(m.group("p2p")))
    elif m := _RINGS_GDR.match(message):
        c.host["nccl.ring.gdr"] = bool(c.host.get("nccl.ring.gdr")) or m.group("gdr") == "1"
    elif _CUT_CONNECTION.match(message):
        c.cut += 1
    if m := _GDR.search(message):
        hca = m.group("hca")
        c.gdr[hca] = c.gdr.get(hca, False) or m.group("state") == "Enabled"
    if m := _COMM.search(message):
        rank = int(m.group("rank"))
        c.host.setdefault("nccl.nranks", int(m.group("nranks")))
        if m.group("nnodes"):
            c.host.setdefault("nccl.nnodes", int(m.group("nnodes")))
            c.host.setdefault("nccl.local_ranks", int(m.group("local")))
        if m.group("dev"):
            c.rank_dev.setdefault(rank, int(m.group("dev")))
        if m.group("bus") and (bus := _bus_id(m.group("bus"))) is not None:
            c.rank_bus.setdefault(rank, bus)


def _tree_rank(links: list[str]) -> int | None:
    """The rank a ``Trees`` line belongs to: the middle of ``down/down/down->me->up``."""
    for link in links:
        parts = link.split("->")
        if len(parts) >= 3:
            value = to_int(parts[1])
            if value is not None and value >= 0:
                return value
    return None
