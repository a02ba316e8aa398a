"""``NCCL_DEBUG=INFO`` logs: which transport NCCL chose between each pair of ranks, and why.

A slow collective is most often a transport question: two GPUs that should talk over NVLink or
PCIe peer-to-peer (``P2P/IPC``, ``P2P/CUMEM``, ``P2P/direct pointer``) bounce through host memory
(``SHM``) or the network stack (``NET/Socket``) instead, or the network path lost GPUDirect RDMA.
NCCL says so itself at ``NCCL_DEBUG=INFO``, one line per connection, along with the settings it
read from the environment (``NCCL_P2P_LEVEL set by environment to LOC``) and the topology it
detected. People paste these logs on their own or inside nccl-tests, PyTorch, vLLM or Ray
output, often wrapped in another logger's prefix, quoted, or cut short; every line is read
wherever its ``host:pid:tid [dev] NCCL INFO`` marker sits; a line that starts with ``NCCL INFO``
is a message quoted without that origin (no host; the device where a ``[dev]`` is kept).

Facts (ranks as NCCL numbers them; ``rank8-rank15`` is a connection from rank 8 to rank 15):

- ``nccl.transport`` (str, per rank pair): ``P2P/IPC``, ``P2P/CUMEM``, ``P2P/direct``,
  ``SHM``, ``NET/IB``, ``NET/Socket``, ``NET/<plugin>``, ``NVLS``, ``COLLNET`` (several
  transports for one pair are joined with ``,``); ``nccl.transport.detail`` the text as printed
  without the NIC index (``P2P/IPC/read``, ``NET/IB/GDRDMA``); ``nccl.gdrdma`` (bool, per
  pair, network connections only): whether the connection uses GPUDirect RDMA;
- on ``host``: ``nccl.version`` (str, ``2.19.3``), ``nccl.cuda_driver`` (int, ``12020``),
  ``nccl.transports`` (str, the sorted set of transports), ``nccl.channels`` (int, channels
  seen in connection and ring lines: one more than the highest channel id, ids counting from
  0), ``nccl.network`` (str, ``IB`` / ``Socket``, from "Using
  network …", or ``Socket`` where the socket network started, "NET/Socket : Using …", and no
  IB device did: NCCL tries IB first and starts sockets only without it),
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
  address lspci and nvidia-smi print) from the communicator's "comm … rank … busId" line;
- ``nccl.p2p_disabled`` (bool, True, per ``gpu<A>-gpu<B>`` as printed, NVML device indices):
  "P2P is disabled between connected GPUs A and B": the driver refuses peer-to-peer between
  two GPUs NCCL would otherwise join over PCIe, so their traffic goes through host memory.

Problems: each distinct ``NCCL WARN`` message (the first five), and a line cut by the paste.

The recognisers of each kind of message are :mod:`casefile_probes.nccl_debug_lines`; this
module finds the messages in a paste, turns what they said into facts, and is the probe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, to_int
from casefile_probes.nccl_debug_lines import Collected as _Collected
from casefile_probes.nccl_debug_lines import LogLine as LogLine
from casefile_probes.nccl_debug_lines import bare_setting as _bare_setting
from casefile_probes.nccl_debug_lines import read_message as _read_message

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
# The library's own banner behind another logger's prefix ("  | 2025-05-16T16:39:51 | NCCL
# version 2.21.5+cuda12.8"): the "+cuda" build suffix keeps prose about versions out.
_PREFIXED_VERSION = re.compile(r"(?:^|[\s|:>])NCCL version (?P<version>\d+\.\d+\.\d+)\+cuda")
#: a line that starts with the level marker: a message someone quoted without its origin,
#: perhaps numbered by an editor ("10 [3] NCCL INFO …") or with its device kept ("[4] NCCL …")
_QUOTED = re.compile(
    r"^[\s>`'\"]{0,8}(?:\d{1,6}\s+)?(?:\[(?P<device>\d+)\]\s+)?NCCL (?P<level>INFO|WARN|TRACE)\b ?"
)
# A time stamp a log collector glued to the host name ("…-07:00ip-10-36-29-253:79:79 [0]").
_GLUED_STAMP = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?=[A-Za-z])"
)


@dataclass(slots=True)
class NcclLog:
    """The log messages found in a text, and the bare ``NCCL version`` lines beside them."""

    lines: list[LogLine] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)


def _origin(line: str, marker: int) -> tuple[int, str, int | None, bool] | None:
    """Where the ``host:pid:tid [dev]`` in front of a level marker starts, its host and device,
    and whether the host name was glued to other text that had to be cut off it.

    Read backwards from the marker over at most a few hundred characters, so that a long line
    costs time in proportion to its length, whatever it holds. A host name holds no ``:``, so
    one that does was glued to what came before it: the tail of another rank's torn line
    (``g183:161258:16169g183``) or an ``mpirun --tag-output`` rank tag
    (``[1,9]<stdout>:worker-1``); only its last part can be the host. A time stamp a log
    collector glued on (``…-07:00ip-10-36-29-253``) is cut off whole.
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
    host = origin[0]
    if stamp := _GLUED_STAMP.match(host):
        host = host[stamp.end() :]
    glued = ":" in host
    if glued:
        host = host.rsplit(":", 1)[1]
        if not host:
            return None
    return start, host, to_int(parts[-1]), glued


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
        if m := _BARE_VERSION.match(line) or _PREFIXED_VERSION.search(line):
            log.versions.append(m.group("version"))
        if "NCCL " not in line:
            _bare_setting(line, found)
            continue
        lead = len(line) - len(line.lstrip())
        starts: list[tuple[int, int, str, int | None, str, bool]] = []
        for marker in _LEVEL.finditer(line):
            origin = _origin(line, marker.start())
            if origin is not None:
                start, host, device, glued = origin
                starts.append((start, marker.end(), host, device, marker.group(1), glued))
        quoted = _QUOTED.match(line)
        if quoted is not None and (not starts or quoted.end() <= starts[0][0]):
            # a message quoted without its ``host:pid:tid`` ("NCCL INFO NET/Socket : …"), also
            # where a terminal ran the next rank's lines onto the same line after it
            stop = starts[0][0] if starts else len(line)
            message = _without_repeats(line[quoted.end() : stop].strip())
            device = to_int(quoted.group("device"))
            found.append((False, "", device, quoted.group("level"), message))
        elif not starts:
            _bare_setting(line, found)
        for index, (start, end, host, device, level, glued) in enumerate(starts):
            stop = starts[index + 1][0] if index + 1 < len(starts) else len(line)
            message = _without_repeats(line[end:stop].strip())
            clean_start = start <= lead and not glued
            found.append((clean_start, host, device, level, message))
    known = sorted({host for clean, host, *_ in found if clean}, key=len, reverse=True)
    for clean, host, device, level, message in found:
        if not clean and host not in known:
            host = next((k for k in known if host.endswith(k)), host)
        log.lines.append(LogLine(host, device, level, message))
    return log


def add_log_facts(result: ParseResult, log: NcclLog) -> None:
    """Add the facts and problems of an NCCL log to ``result`` (shared with nccl-tests)."""
    c = _Collected()
    for line in log.lines:
        _read_message(c, line)
    version = log.versions[0] if log.versions else None
    result.add("nccl.version", c.host.get("nccl.version", version), "host")
    network = c.host.get("nccl.network")
    if (
        network is None
        and c.host.get("nccl.socket.interfaces")
        and not c.host.get("nccl.ib.devices")
    ):
        network = "Socket"  # NCCL starts its socket network only when no IB device serves
    result.add("nccl.network", network, "host")
    for name in (
        "nccl.cuda_driver",
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
    # channel ids count from 0: a paste that shows channels 02 and 03 has at least four
    channels = max(max(c.channels, default=-1) + 1, c.channel_total or 0)
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
    for a, b in sorted(c.p2p_disabled):
        result.add("nccl.p2p_disabled", True, f"gpu{a}-gpu{b}")
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


# NCCL's own log lines, whatever wraps them (a rank prefix, a launcher's, a logger's).
_NCCL_LOG_LINE = re.compile(r"\bNCCL (?:INFO|WARN)\b")


def recognise_nccl_debug(text: str) -> bool:
    """Whether ``text`` holds lines of NCCL's own log (``NCCL INFO``, ``NCCL WARN``)."""
    return _NCCL_LOG_LINE.search(text) is not None


PROBE = Probe(
    name="nccl-debug",
    summary="NCCL's own log (NCCL_DEBUG=INFO): transports, settings, topology, warnings",
    parse=parse_nccl_debug,
    recognises=recognise_nccl_debug,
    # Any NCCL program logs this way; the nccl-tests binary is one that is usually at hand.
    argv=("env", "NCCL_DEBUG=INFO", "all_reduce_perf", "-b", "8", "-e", "8M", "-f", "2", "-g", "1"),
    cost="cheap",
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
        "nccl.p2p_disabled",
        "nccl.log.hosts",
        "nccl.log.lines",
        "nccl.warnings",
        # patterns (fnmatch): families the parser names per field, section or test
        "nccl.env.*",
    ),
    needs_load=False,
    extra={"argv_note": "or paste any program's output run with NCCL_DEBUG=INFO"},
)
