"""``numactl -H`` and ``lscpu``: NUMA nodes, the CPUs on each, and the distances between them.

A GPU's data loader or NCCL proxy thread running on the far socket pays the inter-socket link
on every host-memory copy, and two GPUs on different nodes reach each other across it. The
lspci probe gives each GPU's ``pci.numa_node``; these give the nodes themselves.

Facts on ``host``: ``numa.nodes`` (int: "available: N nodes" or "NUMA node(s): N"); from
lscpu also ``cpu.count`` (int, "CPU(s)"), ``cpu.sockets``, ``cpu.threads_per_core``,
``cpu.cores_per_socket`` (int) and ``cpu.model`` (str).

Per node (subject ``node0``, ``node1`` …): ``numa.cpus`` (str, the CPU list written as ranges,
``0-5,24-29``, whichever way the tool printed it, ``--cpu-compress`` ranges included, which
must agree with the count numactl prints after them; absent for a node without CPUs, as GPU
memory nodes on Grace systems are) and ``numa.cpu_count`` (int, 0 for such a node); from
numactl ``numa.memory.total`` and ``numa.memory.free`` (MB, as printed).

Per pair of nodes (subject ``node0-node1``, lower number first): ``numa.distance`` (int, the
SLIT distance; 10 is local). The matrix is read by its header row of node numbers, so sparse
node numbers work; a row that is not symmetric with its mirror is reported as a problem.

On ``host``, ``numa.cpu_nodes_per_socket`` (float): how many nodes holding CPUs each socket is
split into (NPS2/NPS4, sub-NUMA clustering), from lscpu's socket count or, in numactl's output,
which prints none, from the distances (nodes of one socket lie under 20 apart); nodes without
CPUs are not counted. Absent where the paste does not say enough.

A ``numactl -H`` paste that ends on a node's CPU line was cut there, perhaps inside the list:
that list is not read, and a problem says so. Output with none of these lines is unparsed,
with the tool's words when it printed an error ("No NUMA available on this system", command
not found).
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import clean_paste, natural_key

__all__ = ["LSCPU_PROBE", "PROBE", "compact_cpus", "parse_numa"]

_AVAILABLE = re.compile(r"^available:\s*(?P<count>\d+)\s+nodes?\b")
# "node 0 cpus: 0 1 2 3", or with --cpu-compress "node 0 cpus: 0-15 (16)" (ranges, then the count)
_NODE_CPUS = re.compile(
    r"^node\s+(?P<node>\d+)\s+cpus:\s*(?P<cpus>[\d\s,-]*?)\s*(?:\((?P<count>\d+)\))?\s*$"
)
_NODE_SIZE = re.compile(r"^node\s+(?P<node>\d+)\s+(?P<kind>size|free):\s*(?P<mb>\d+)\s*MB\s*$")
_DISTANCE_HEADER = re.compile(r"^node\s+(?P<nodes>\d+(?:\s+\d+)*)\s*$")
_DISTANCE_ROW = re.compile(r"^\s*(?P<node>\d+):\s*(?P<values>\d+(?:\s+\d+)*)\s*$")
_LSCPU = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z0-9 ()/-]*?):(?P<value>.*)$")
_LSCPU_NODE = re.compile(r"^NUMA node(?P<node>\d+) CPU\(s\)$")
# "No NUMA available on this system" (a kernel without NUMA), a missing numactl or lscpu.
_TOOL_ERROR = re.compile(
    r"No NUMA available|numactl: command not found|lscpu: command not found"
    r"|(?:numactl|lscpu):.*(?:not found|No such file)",
    re.I,
)
_RANGE = re.compile(r"^(?P<low>\d+)(?:-(?P<high>\d+))?$")

_LSCPU_INTS = {
    "CPU(s)": "cpu.count",
    "Socket(s)": "cpu.sockets",
    "Thread(s) per core": "cpu.threads_per_core",
    "Core(s) per socket": "cpu.cores_per_socket",
    "NUMA node(s)": "numa.nodes",
}

#: A CPU list longer than this is not a CPU list (and would be slow to write out).
_MAX_CPU = 1 << 20


def compact_cpus(cpus: list[int]) -> str:
    """CPU numbers as ranges: ``[0, 1, 2, 5]`` → ``0-2,5``."""
    return _write(_merge([(cpu, cpu) for cpu in cpus]))


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, overlapping and adjacent ranges joined (never expanded into CPUs)."""
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _write(ranges: list[tuple[int, int]]) -> str:
    return ",".join(str(low) if low == high else f"{low}-{high}" for low, high in ranges)


def _ranges(text: str) -> list[tuple[int, int]] | None:
    """``0-5,24-29`` as ``[(0, 5), (24, 29)]``; None when it is not a CPU list."""
    ranges = []
    for part in text.split(","):
        match = _RANGE.match(part.strip())
        if match is None:
            return None
        low = int(match.group("low"))
        high = int(match.group("high") or low)
        if high < low or high > _MAX_CPU:
            return None
        ranges.append((low, high))
    return ranges


def _node_cpus(result: ParseResult, node: str, ranges: list[tuple[int, int]]) -> None:
    subject = f"node{node}"
    merged = _merge(ranges)
    if merged:
        result.add("numa.cpus", _write(merged), subject)
    result.add("numa.cpu_count", sum(high - low + 1 for low, high in merged), subject)


def _numactl_cpus(result: ParseResult, node: str, text: str, count: str | None) -> None:
    """A node's CPU list as numactl prints it: numbers one by one, or (``--cpu-compress``)
    ranges followed by the count in brackets, which must agree with the ranges."""
    ranges = _ranges(",".join(text.replace(",", " ").split())) if text.strip() else []
    if ranges is None:
        result.problems.append(f"unreadable CPU list for node{node}: {text[:40]!r}")
        return
    if count is not None:
        listed = sum(high - low + 1 for low, high in _merge(ranges))
        if listed != int(count):
            result.problems.append(
                f"node{node}'s CPU list has {listed} CPUs but numactl counts {count}: not read"
            )
            return
    _node_cpus(result, node, ranges)


def _read_distances(lines: list[str], start: int, result: ParseResult) -> int:
    """The matrix under ``node distances:``; returns the index of the first line after it."""
    header = _DISTANCE_HEADER.match(lines[start].strip()) if start < len(lines) else None
    if header is None:
        result.problems.append("'node distances:' without the row of node numbers")
        return start
    columns = header.group("nodes").split()
    matrix: dict[tuple[str, str], int] = {}
    position = start + 1
    while position < len(lines):
        row = _DISTANCE_ROW.match(lines[position])
        if row is None:
            break
        values = row.group("values").split()
        if len(values) != len(columns):
            result.problems.append(f"distance row {row.group('node')} has {len(values)} values")
        for column, value in zip(columns, values, strict=False):
            matrix[(row.group("node"), column)] = int(value)
        position += 1
    asymmetric = []
    for (a, b), value in sorted(matrix.items(), key=lambda item: natural_key(" ".join(item[0]))):
        if int(a) >= int(b):
            continue
        mirror = matrix.get((b, a))
        if mirror is not None and mirror != value:
            asymmetric.append(f"node{a}-node{b}")
        result.add("numa.distance", value, f"node{a}-node{b}")
    if asymmetric:
        result.problems.append(f"distances differ by direction for {', '.join(asymmetric)}")
    return position


def parse_numa(text: str) -> ParseResult:
    """Facts from ``numactl -H`` (``--hardware``) or ``lscpu`` output."""
    cleaned = clean_paste(text, hash_prompt=True)
    lines = cleaned.lines
    result = ParseResult()
    read = 0
    position = 0
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    available = False
    while position < len(lines):
        line = lines[position].strip()
        position += 1
        if match := _AVAILABLE.match(line):
            result.add("numa.nodes", int(match.group("count")))
            available = True
        elif match := _NODE_CPUS.match(line):
            if available and position - 1 == last:
                # numactl -H prints a node's size after its CPUs: a paste that ends on the CPU
                # line was cut, maybe inside the list, which would then count too few CPUs.
                result.problems.append(
                    f"node{match.group('node')}'s CPU list ends the paste (cut short?): not read"
                )
                continue
            _numactl_cpus(result, match.group("node"), match.group("cpus"), match.group("count"))
        elif match := _NODE_SIZE.match(line):
            name = "numa.memory.total" if match.group("kind") == "size" else "numa.memory.free"
            result.add(name, int(match.group("mb")), f"node{match.group('node')}", "MB")
        elif line == "node distances:":
            position = _read_distances(lines, position, result)
        elif match := _LSCPU.match(lines[position - 1]):
            read += _lscpu_line(match.group("key"), match.group("value").strip(), result)
            continue
        else:
            continue
        read += 1
    if not read or not result.facts:
        error = next((line.strip() for line in lines if _TOOL_ERROR.search(line)), None)
        if error:
            return ParseResult.unparsed(f"the tool printed an error, not NUMA state: {error}")
        return ParseResult.unparsed(
            "no NUMA lines found (expected numactl -H's 'available: N nodes' or lscpu's "
            "'NUMA node(s):')"
        )
    if "numa.nodes" not in {fact.name for fact in result.facts}:
        result.problems.append("no node count ('available: N nodes' / 'NUMA node(s):'): cut?")
    per_socket = _cpu_nodes_per_socket(result)
    if per_socket is not None:
        result.add("numa.cpu_nodes_per_socket", per_socket)
    return result


#: below this SLIT distance two nodes share a socket: nodes of one socket read 10-12, nodes on
#: different sockets 20 and more (21 on Intel, 32 on AMD EPYC). Some firmware gives every
#: remote node one figure below it (16 on two Opteron 6272 packages of two dies each): the
#: matrix cannot tell the packages apart there, all nodes group as one, and the socket reads
#: as split into all of them, which is a split all the same
_SAME_SOCKET = 20


def _cpu_nodes_per_socket(result: ParseResult) -> float | None:
    """How many NUMA nodes holding CPUs each socket is split into: the BIOS's NPS2/NPS4 or
    sub-NUMA clustering where above one. Nodes without CPUs (a Grace system's GPU memory, CXL
    memory) are no split of a socket. The sockets are lscpu's count, else the groups of CPU
    nodes within a socket's distance of each other in numactl's matrix (it prints no socket
    count); one node holding CPUs is one per socket whatever the count. None where the paste
    does not say enough (a node's CPU list or the distances cut off)."""
    counts = {f.subject: f.value for f in result.facts if f.name == "numa.cpu_count"}
    nodes = [node for node, count in counts.items() if isinstance(count, int) and count > 0]
    total = next((f.value for f in result.facts if f.name == "numa.nodes"), None)
    if not nodes or not isinstance(total, int) or len(counts) < total:
        return None
    if len(nodes) == 1:
        return 1.0
    sockets = next((f.value for f in result.facts if f.name == "cpu.sockets"), None)
    if isinstance(sockets, int) and sockets > 0:
        return len(nodes) / sockets
    distance = {f.subject: f.value for f in result.facts if f.name == "numa.distance"}
    groups: list[set[str]] = []
    for node in sorted(nodes, key=natural_key):
        near = [
            group for group in groups for other in group if _near(distance.get(_pair(node, other)))
        ]
        if any(distance.get(_pair(node, other)) is None for other in nodes if other != node):
            return None  # the matrix does not cover every node with CPUs
        merged = {node}.union(*near) if near else {node}
        groups = [group for group in groups if group not in near] + [merged]
    return float(max(len(group) for group in groups))


def _pair(a: str, b: str) -> str:
    low, high = sorted((a, b), key=natural_key)
    return f"{low}-{high}"


def _near(value: object) -> bool:
    return isinstance(value, int) and value < _SAME_SOCKET


def _lscpu_line(key: str, value: str, result: ParseResult) -> int:
    """One ``Key: value`` line of lscpu; 1 when it gave a fact."""
    if key in _LSCPU_INTS:
        if value.isdigit():
            result.add(_LSCPU_INTS[key], int(value))
            return 1
        return 0
    if key == "Model name" and value:
        result.add("cpu.model", value)
        return 1
    node = _LSCPU_NODE.match(key)
    if node is None:
        return 0
    if not value:
        _node_cpus(result, node.group("node"), [])
        return 1
    ranges = _ranges(value)
    if ranges is None:
        result.problems.append(f"unreadable CPU list for node{node.group('node')}: {value[:40]!r}")
        return 0
    _node_cpus(result, node.group("node"), ranges)
    return 1


_FACTS = (
    "numa.nodes",
    "numa.cpus",
    "numa.cpu_count",
    "numa.memory.total",
    "numa.memory.free",
    "numa.distance",
    "numa.cpu_nodes_per_socket",
    "cpu.count",
    "cpu.sockets",
    "cpu.threads_per_core",
    "cpu.cores_per_socket",
    "cpu.model",
)

PROBE = Probe(
    name="numactl",
    summary="NUMA nodes: CPUs and memory per node, distances between nodes (numactl -H)",
    parse=parse_numa,
    argv=("numactl", "-H"),
    cost="instant",
    facts=_FACTS,
    needs_load=False,
)

LSCPU_PROBE = Probe(
    name="lscpu",
    summary="CPU sockets, cores and NUMA nodes with their CPU lists (lscpu)",
    parse=parse_numa,
    argv=("lscpu",),
    cost="instant",
    facts=_FACTS,
    needs_load=False,
)
