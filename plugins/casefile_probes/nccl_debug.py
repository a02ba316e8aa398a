"""``NCCL_DEBUG=INFO`` logs: which transport NCCL chose between each pair of ranks, and why.

A slow collective is most often a transport question: two GPUs that should talk over NVLink or
PCIe peer-to-peer (``P2P/IPC``, ``P2P/CUMEM``, ``P2P/direct pointer``) bounce through host memory
(``SHM``) or the network stack (``NET/Socket``) instead, or the network path lost GPUDirect RDMA.
NCCL says so itself at ``NCCL_DEBUG=INFO``, one line per connection, along with the settings it
read from the environment (``NCCL_P2P_LEVEL set by environment to LOC``) and the topology it
detected. People paste these logs on their own or inside nccl-tests, PyTorch, vLLM or Ray
output, often wrapped in another logger's prefix, quoted, or cut short; every line is read
wherever its ``host:pid:tid [dev] NCCL INFO`` marker sits.

Facts (ranks as NCCL numbers them; ``rank8-rank15`` is a connection from rank 8 to rank 15):

- ``nccl.transport`` (str, per rank pair): ``P2P/IPC``, ``P2P/CUMEM``, ``P2P/direct``,
  ``SHM``, ``NET/IB``, ``NET/Socket``, ``NET/<plugin>``, ``NVLS``, ``COLLNET`` (several
  transports for one pair are joined with ``,``); ``nccl.transport.detail`` the text as printed
  without the NIC index (``P2P/IPC/read``, ``NET/IB/GDRDMA``); ``nccl.gdrdma`` (bool, per
  pair, network connections only): whether the connection uses GPUDirect RDMA;
- on ``host``: ``nccl.version`` (str, ``2.19.3``), ``nccl.cuda_driver`` (int, ``12020``),
  ``nccl.transports`` (str, the sorted set of transports), ``nccl.channels`` (int, channels
  seen in connection and ring lines), ``nccl.network`` (str, ``IB`` / ``Socket``),
  ``nccl.ib.devices`` (str, ``mlx5_0:1/RoCE,…``; empty when "No device found"),
  ``nccl.socket.interfaces`` (str), ``nccl.nranks`` / ``nccl.nnodes`` / ``nccl.local_ranks``
  (int), ``nccl.coll_channels`` / ``nccl.p2p_channels`` (int), ``nccl.ring.gdr`` (bool,
  "Connected all rings, use ring PXN 0 GDR 1"), ``nccl.log.hosts`` (int, distinct host names),
  ``nccl.log.lines`` (int), ``nccl.warnings`` (int, ``NCCL WARN`` lines);
- ``nccl.env.<NAME>`` (str, on ``host``) for every "``<NAME>`` set by environment to ``<value>``";
- ``nccl.ring`` (str, per ``channel<N>``): the ring order, ``0 1 2 3``;
  ``nccl.tree`` (str, per ``rank<N>``): that rank's tree links over all channels, distinct
  ones space-separated (``3/-1/-1->2->1``: children, the rank itself, its parent);
- ``nccl.graph.type`` (str, ``NVL/PIX``), ``nccl.graph.bw`` (GB/s, intra-node),
  ``nccl.graph.channels`` (int), per ``pattern<N>`` from the topology search line;
- ``nccl.gdr`` (bool, per HCA name such as ``mlx5_0``): "GPU Direct RDMA Enabled/Disabled";
- per ``gpu<N>`` (CUDA device index): ``nccl.cpu_affinity`` (str), ``nccl.nvls`` (bool);
- per ``rank<N>``: ``nccl.cuda_dev`` (int) and ``nccl.bus_id`` (str, ``0000:1c:00.0``, the
  address lspci and nvidia-smi print) from the communicator's "comm … rank … busId" line.

Problems: each distinct ``NCCL WARN`` message (the first five), and a line cut by the paste.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, to_float, to_int

__all__ = [
    "PROBE",
    "LogLine",
    "NcclLog",
    "add_log_facts",
    "log_lines",
    "log_start",
    "parse_nccl_debug",
]

# The level marker is found first, with a literal prefix, so that a search over a long line
# costs linear time; the ``host:pid:tid [dev]`` in front of it is then read backwards.
_LEVEL = re.compile(r"\bNCCL (INFO|WARN|TRACE)\b ?")
_DEVICE_TOKEN = re.compile(r"\[(\d+)\]")
_SOURCE_TOKEN = re.compile(r"[\w./-]+\.(?:cc|cu|h|c|cpp):\d+")
_REPEATED = re.compile(r"\[repeated \d+x across cluster\]")
_BARE_VERSION = re.compile(r"^\s*NCCL version (?P<version>\d+\.\d+\.\d+)")
_VERSION = re.compile(r"^NCCL version (?P<version>\d+\.\d+\.\d+)")
_DRIVER = re.compile(r"^cudaDriverVersion (?P<version>\d+)")
_CONNECTION = re.compile(
    r"^(?:Channel|Ring) (?P<channel>\d+)(?:/\d+)? : (?P<a>\d+)(?:\[[0-9a-fA-F]+\])? -> "
    r"(?P<b>\d+)(?:\[[0-9a-fA-F]+\])?(?: \[(?:send|receive)\])? via (?P<via>\S.*)$"
)
_RING_ORDER = re.compile(
    r"^(?:Channel|Ring) (?P<channel>\d+)(?:/(?P<total>\d+))? : (?P<order>\d+(?: \d+)+)\s*$"
)
_TREES = re.compile(r"^Trees (?P<spec>\[\d+\] .*)$")
_TREE_LINK = re.compile(r"\[\d+\] (\S+)")
_ENV = re.compile(r"^(?P<name>NCCL_[A-Z0-9_]+) set by environment to (?P<value>.*)$")
_COMM = re.compile(
    r"\bcomm 0x[0-9a-fA-F]+ rank (?P<rank>\d+) nr?anks (?P<nranks>\d+)"
    r"(?: nNodes (?P<nnodes>\d+) localRanks (?P<local>\d+))?"
    r"(?: cudaDev (?P<dev>\d+))?(?: nvmlDev \d+)?(?: busId (?P<bus>[0-9a-fA-F]+))?",
    re.I,
)
_NETWORK = re.compile(r"^Using network (?P<net>\S+)")
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
    r"|NET/[\w-]+/\d+(?:/GDRDMA)?(?:/Shared)?|direct shared memory|direct pointer|NVLS|CollNet\w*"
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


@dataclass(slots=True)
class NcclLog:
    """The log messages found in a text, and the bare ``NCCL version`` lines beside them."""

    lines: list[LogLine] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)


def _origin(line: str, marker: int) -> tuple[int, str, int | None] | None:
    """Where the ``host:pid:tid [dev]`` in front of a level marker starts, its host and device.

    Read backwards from the marker over at most a few hundred characters, so that a long line
    costs time in proportion to its length, whatever it holds.
    """
    low = max(0, marker - 400)
    window = line[low:marker]
    parts = window.rstrip().rsplit(None, 3)
    if parts and _SOURCE_TOKEN.fullmatch(parts[-1]):  # "misc/cudawrap.cc:179 NCCL WARN"
        parts.pop()
    if len(parts) < 2 or not _DEVICE_TOKEN.fullmatch(parts[-1]):
        return None
    origin = parts[-2].rsplit(":", 2)
    if len(origin) != 3 or not origin[0]:
        return None
    start = low + window.rfind(parts[-2], 0, window.rfind(parts[-1]))
    return start, origin[0], to_int(parts[-1])


def _without_repeats(message: str) -> str:
    """``message`` less Ray's ``[repeated 16x across cluster]`` suffix (found from the end)."""
    at = message.rfind("[repeated ")
    if at >= 0 and _REPEATED.fullmatch(message, at):
        return message[:at].rstrip()
    return message


def log_start(line: str) -> int | None:
    """Where the first NCCL log message on ``line`` begins (its host name), or None."""
    if "NCCL " not in line:
        return None
    for marker in _LEVEL.finditer(line):
        found = _origin(line, marker.start())
        if found is not None:
            return found[0]
    return None


_BARE_INFO = re.compile(r"^\s*(?:>\s*)*(?:NCCL\s+INFO\s+)?")


def _bare_setting(line: str, found: list[tuple[bool, str, int | None, str, str]]) -> None:
    """A setting quoted on its own, without the log's ``host:pid:tid [dev]`` prefix (a
    maintainer citing the one line that matters): still what NCCL read from the environment."""
    bare = _BARE_INFO.sub("", line, count=1).strip()
    if _ENV.match(bare):
        found.append((True, "", None, "INFO", bare))


def log_lines(lines: list[str]) -> NcclLog:
    """Every NCCL log message in ``lines``, wherever on a line it starts (linear time).

    A line can carry several messages when one was glued to the next; each message then ends
    where the next one's ``host:pid:tid [dev]`` begins. A host name glued to the text before
    it (``-1node1:12:34 [0] NCCL INFO``) is read as the host seen at the start of other lines
    that it ends with.
    """
    log = NcclLog()
    found: list[tuple[bool, str, int | None, str, str]] = []
    for line in lines:
        if m := _BARE_VERSION.match(line):
            log.versions.append(m.group("version"))
        if "NCCL " not in line:
            _bare_setting(line, found)
            continue
        lead = len(line) - len(line.lstrip())
        starts: list[tuple[int, int, str, int | None, str]] = []
        for marker in _LEVEL.finditer(line):
            origin = _origin(line, marker.start())
            if origin is not None:
                start, host, device = origin
                starts.append((start, marker.end(), host, device, marker.group(1)))
        if not starts:
            _bare_setting(line, found)
        for index, (start, end, host, device, level) in enumerate(starts):
            stop = starts[index + 1][0] if index + 1 < len(starts) else len(line)
            message = _without_repeats(line[end:stop].strip())
            clean_start = start <= lead
            found.append((clean_start, host, device, level, message))
    known = sorted({host for clean, host, *_ in found if clean}, key=len, reverse=True)
    for clean, host, device, level, message in found:
        if not clean and host not in known:
            host = next((k for k in known if host.endswith(k)), host)
        log.lines.append(LogLine(host, device, level, message))
    return log


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
class _Collected:
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


def _read_message(c: _Collected, line: LogLine) -> None:
    """Fold one message into ``c``: one branch per kind of line NCCL prints."""
    message = line.message
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
        c.rings.setdefault(channel, m.group("order"))
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


def add_log_facts(result: ParseResult, log: NcclLog) -> None:
    """Add the facts and problems of an NCCL log to ``result`` (shared with nccl-tests)."""
    c = _Collected()
    for line in log.lines:
        _read_message(c, line)
    version = log.versions[0] if log.versions else None
    result.add("nccl.version", c.host.get("nccl.version", version), "host")
    for name in (
        "nccl.cuda_driver",
        "nccl.network",
        "nccl.ib.devices",
        "nccl.socket.interfaces",
        "nccl.nranks",
        "nccl.nnodes",
        "nccl.local_ranks",
        "nccl.coll_channels",
        "nccl.p2p_channels",
        "nccl.ring.gdr",
    ):
        result.add(name, c.host.get(name), "host")
    all_kinds = sorted({kind for kinds in c.transports.values() for kind in kinds})
    result.add("nccl.transports", ",".join(all_kinds) or None, "host")
    channels = max(len(c.channels), c.channel_total or 0)
    result.add("nccl.channels", channels or None, "host")
    for name, value in sorted(c.env.items()):
        result.add(f"nccl.env.{name}", value, "host")
    if log.lines:
        result.add("nccl.log.hosts", len({line.host for line in log.lines if line.host}), "host")
        result.add("nccl.log.lines", len(log.lines), "host")
        result.add("nccl.warnings", len(c.warnings), "host")
    for (a, b), kinds in sorted(c.transports.items()):
        subject = f"rank{a}-rank{b}"
        result.add("nccl.transport", ",".join(sorted(kinds)), subject)
        result.add("nccl.transport.detail", ",".join(sorted(c.details[(a, b)])), subject)
        result.add("nccl.gdrdma", c.gdrdma.get((a, b)), subject)
    for channel, order in sorted(c.rings.items()):
        result.add("nccl.ring", order, f"channel{channel}")
    for rank, links in sorted(c.trees.items()):
        result.add("nccl.tree", " ".join(links), f"rank{rank}")
    for pattern, (kind, bw, count) in sorted(c.graphs.items()):
        result.add("nccl.graph.type", kind, f"pattern{pattern}")
        result.add("nccl.graph.bw", bw, f"pattern{pattern}", "GB/s")
        result.add("nccl.graph.channels", count, f"pattern{pattern}")
    for hca, enabled in sorted(c.gdr.items()):
        result.add("nccl.gdr", enabled, hca)
    for gpu, mask in sorted(c.affinity.items()):
        result.add("nccl.cpu_affinity", mask, f"gpu{gpu}")
    for gpu, available in sorted(c.nvls.items()):
        result.add("nccl.nvls", available, f"gpu{gpu}")
    for rank, dev in sorted(c.rank_dev.items()):
        result.add("nccl.cuda_dev", dev, f"rank{rank}")
    for rank, bus in sorted(c.rank_bus.items()):
        result.add("nccl.bus_id", bus, f"rank{rank}")
    distinct = list(dict.fromkeys(w for w in c.warnings if w))
    result.problems.extend(f"NCCL warning: {warning}" for warning in distinct[:5])
    if len(distinct) > 5:
        result.problems.append(f"{len(distinct) - 5} more distinct NCCL warnings")
    if c.cut:
        result.problems.append(
            f"{c.cut} NCCL log value(s) cut short and not read (the paste ends mid-line?)"
        )


def parse_nccl_debug(text: str) -> ParseResult:
    """Facts from an ``NCCL_DEBUG=INFO`` log, alone or mixed into other output."""
    cleaned = clean_paste(text)
    log = log_lines(cleaned.lines)
    if not log.lines and not log.versions:
        return ParseResult.unparsed(
            "no NCCL log lines ('host:pid:tid [dev] NCCL INFO …'): was NCCL_DEBUG=INFO set?"
        )
    result = ParseResult()
    add_log_facts(result, log)
    return result


PROBE = Probe(
    name="nccl-debug",
    summary="NCCL's own log (NCCL_DEBUG=INFO): transports, settings, topology, warnings",
    parse=parse_nccl_debug,
    # Any NCCL program logs this way; the nccl-tests binary is one that is usually at hand.
    argv=("env", "NCCL_DEBUG=INFO", "all_reduce_perf", "-b", "8", "-e", "8M", "-f", "2", "-g", "1"),
    cost="expensive",
    timeout_s=300.0,
    facts=(
        "nccl.transport",
        "nccl.transport.detail",
        "nccl.gdrdma",
        "nccl.transports",
        "nccl.channels",
        "nccl.version",
        "nccl.cuda_driver",
        "nccl.network",
        "nccl.ib.devices",
        "nccl.socket.interfaces",
        "nccl.nranks",
        "nccl.nnodes",
        "nccl.local_ranks",
        "nccl.coll_channels",
        "nccl.p2p_channels",
        "nccl.ring.gdr",
        "nccl.env.NCCL_P2P_LEVEL",
        "nccl.env.NCCL_P2P_DISABLE",
        "nccl.env.NCCL_SHM_DISABLE",
        "nccl.env.NCCL_IB_DISABLE",
        "nccl.env.NCCL_IB_HCA",
        "nccl.env.NCCL_NET_GDR_LEVEL",
        "nccl.ring",
        "nccl.tree",
        "nccl.graph.type",
        "nccl.graph.bw",
        "nccl.graph.channels",
        "nccl.gdr",
        "nccl.cpu_affinity",
        "nccl.nvls",
        "nccl.cuda_dev",
        "nccl.bus_id",
        "nccl.log.hosts",
        "nccl.log.lines",
        "nccl.warnings",
        # patterns (fnmatch): families the parser names per field, section or test
        "nccl.env.*",
    ),
    needs_load=False,
    extra={"argv_note": "or paste any program's output run with NCCL_DEBUG=INFO"},
)
