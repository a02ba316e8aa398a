"""``nvidia-smi topo -m``: how each pair of GPUs (and NICs) is connected.

Facts (subjects: ``gpuN``, ``nicN`` or the NIC's own name such as ``mlx5_0``, and pairs
``a-b`` with GPUs first, then by index, so ``gpu0-gpu1``, ``gpu3-nic0``, ``nic0-nic1``):

- ``topo.link`` (str, pair): the matrix cell — ``NV12``, ``PIX``, ``PXB``, ``PHB``, ``NODE``,
  ``SYS``, ``SOC`` (the pre-2018 name of ``SYS``) … ``X`` (self) is skipped.
- ``topo.nvlinks`` (int, pair): the number of bonded NVLinks for ``NV#`` cells.
- ``topo.p2p_possible`` (bool, GPU–GPU pairs only): whether the path allows peer-to-peer
  transfers without staging through host memory. True for ``NV#``, ``PIX`` and ``PXB``;
  False for ``PHB``, ``NODE``, ``SYS`` and ``SOC``. Rationale: NVIDIA's legend says the
  latter traverse a PCIe host bridge or the inter-socket link, where PCIe P2P is normally
  unsupported or disabled (NCCL's default P2P level stops at ``PXB`` for the same reason).
  It is an estimate from the topology; ``topo -p2p`` below reports what the driver allows.
- ``topo.cpu_affinity``, ``topo.numa_affinity``, ``topo.gpu_numa_id`` (str, per GPU; none
  from a row cut short, whose last token is the stump of a cell, and none from the last value
  of a row short of its affinity columns, which may be cut: ``112-127,240-25``).

A row that ends inside its cells may end on a cut cell: ``NV1`` there is not read, as it may
be the start of ``NV10`` … ``NV18`` (no other cell name starts another).
- ``topo.nic_device`` (str, per NIC): the device name from the "NIC Legend" (``mlx5_2``).

``nvidia-smi topo -p2p r|w|n|a|p`` prints a status matrix instead; it gives
``topo.p2p.read`` / ``.write`` / ``.nvlink`` / ``.atomics`` / ``.pcie`` (or ``.status``
when the paste does not show which capability was asked) with the cell (``OK``, ``NS``,
``CNS``, ``GNS``, ``TNS``, ``DR``), and ``topo.p2p_supported`` (bool): True for ``OK``,
False for the "not supported" codes, absent for ``U`` (unknown).
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI
from ._text import clean, is_missing, natural_key, tool_error

__all__ = ["PROBE", "parse_topo"]

# Link cells of the -m matrix and status cells of -p2p matrices. Longer names first, so that
# glued cells ("NODENODE", "NODEPXB" in pastes that lost a tab) split correctly.
_LINK = r"NV\d+|NODE|PHB|PXB|PIX|SYS|SOC|X"
_P2P = r"CNS|GNS|TNS|NS|OK|DR|U|X"
_LINK_RE = re.compile(rf"^(?:{_LINK})+$")
_P2P_RE = re.compile(rf"^(?:{_P2P})+$")
_DEVICE = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\w+|[a-z]+\d*_[\w]+)$")
_AFFINITY_LABELS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
_CPU_SET = re.compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")
_NIC_LEGEND = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_P2P_CAPS = {"r": "read", "w": "write", "n": "nvlink", "a": "atomics", "p": "pcie"}
_P2P_OK = {"OK": True, "NS": False, "CNS": False, "GNS": False, "TNS": False, "DR": False}
# NVLink counts run up to 18 (NV18), so NV1 is the one cell that may be the stump of another.
_NV_STUMP = "NV1"
_P2P_POSSIBLE = {"PIX": True, "PXB": True, "PHB": False, "NODE": False, "SYS": False, "SOC": False}


def _subject(label: str) -> str:
    return label.lower() if re.match(r"^(GPU|NIC)\d+$", label) else label


def _pair(a: str, b: str) -> str:
    """A pair subject in a stable order: GPUs before other devices, then natural order."""

    def key(name: str) -> tuple[int, tuple[tuple[int, int | str], ...]]:
        return (0 if name.startswith("gpu") else 1, natural_key(name))

    first, second = sorted((a, b), key=key)
    return f"{first}-{second}"


def _split_header(tokens: list[str]) -> list[str]:
    """Device names of a header, splitting names glued by a lost tab (``NIC8NIC9``)."""
    names: list[str] = []
    for token in tokens:
        pieces = re.findall(r"(?:GPU|NIC)\d+", token)
        if pieces and "".join(pieces) == token:
            names.extend(pieces)
        else:
            names.append(token)
    return names


def _split_cells(token: str, pattern: str) -> list[str]:
    return re.findall(pattern, token)


class _Matrix:
    """One matrix block: its column devices, its kind and the rows read so far."""

    def __init__(self, columns: list[str], affinity: list[str]) -> None:
        self.columns = columns
        self.affinity = affinity
        self.rows: dict[str, list[str]] = {}
        self.extra: dict[str, list[str]] = {}
        self.kind = "link"


def _header(line: str) -> tuple[list[str], list[str]] | None:
    """Column devices and affinity labels when ``line`` is a matrix header."""
    text = line.strip()
    affinity: list[str] = []
    for label in _AFFINITY_LABELS:
        # a glued header ("NIC11CPU Affinity") still names its affinity columns
        if label in text:
            affinity.append(label)
    cut = min((text.index(label) for label in affinity), default=len(text))
    devices = _split_header(text[:cut].split())
    if not devices or devices[0] != "GPU0":
        return None
    if not all(_DEVICE.match(name) for name in devices):
        return None
    return devices, affinity


def parse_topo(text: str) -> ParseResult:
    """Read a topology (``-m``) or peer-to-peer status (``-p2p``) matrix."""
    cleaned = clean(text)
    result = ParseResult()
    lines = cleaned.lines
    capability: str | None = None
    for command in cleaned.commands:
        match = re.search(r"-p2p\s+([rwnap]+)\b", command)
        if match and len(match.group(1)) == 1:
            capability = _P2P_CAPS[match.group(1)]
        elif match:
            result.problems.append(
                f"command asks for several P2P capabilities ({match.group(1)!r}); "
                "cells reported as topo.p2p.status"
            )

    matrices: list[_Matrix] = []
    nic_names: dict[str, str] = {}
    current: _Matrix | None = None
    for line in lines:
        legend = _NIC_LEGEND.match(line)
        if legend:
            nic_names[legend.group(1).lower()] = legend.group(2)
            continue
        header = _header(line)
        if header is not None:
            current = _Matrix(*header)
            matrices.append(current)
            continue
        if current is None:
            continue
        tokens = line.split()
        if not tokens or not _DEVICE.match(tokens[0]):
            if line.strip().startswith("Legend"):
                current = None
            continue
        _read_row(current, tokens, result)

    if not matrices:
        error = tool_error(lines)
        if error:
            return ParseResult.unparsed(error)
        return ParseResult.unparsed("no topology matrix header found (a line starting 'GPU0 …')")

    for matrix in matrices:
        _emit(matrix, result, capability)
        if matrix.kind == "p2p" and capability is None:
            result.problems.append(
                "P2P status matrix without its command line: the capability (read, write …) "
                "is unknown, cells reported as topo.p2p.status"
            )
    for nic, name in sorted(nic_names.items(), key=lambda item: natural_key(item[0])):
        result.add("topo.nic_device", name, subject=nic)
    if not result.facts:
        result.parsed = False
        result.problems.append("topology matrix header found but no readable rows")
    return result


def _read_row(matrix: _Matrix, tokens: list[str], result: ParseResult) -> None:
    label = tokens[0]
    cells: list[str] = []
    rest = tokens[1:]
    position = 0
    p2p_like = False
    while position < len(rest) and len(cells) < len(matrix.columns):
        token = rest[position]
        if _LINK_RE.match(token):
            cells.extend(_split_cells(token, _LINK))
        elif _P2P_RE.match(token):
            cells.extend(_split_cells(token, _P2P))
            p2p_like = True
        else:
            break
        position += 1
    if p2p_like:
        matrix.kind = "p2p"
    if len(cells) > len(matrix.columns):
        result.problems.append(f"row {label}: more cells than columns; extra cells ignored")
        cells = cells[: len(matrix.columns)]
    if len(cells) < len(matrix.columns):
        if position == len(rest) and cells and cells[-1] == _NV_STUMP:
            # The row ends inside its cells, so its last cell may be cut: "NV1" is a whole
            # cell or the first three letters of NV10 … NV18, and a wrong NVLink count is
            # worse than none. No other cell name is a prefix of a longer one.
            cells.pop()
            result.problems.append(
                f"row {label}: the last cell 'NV1' may be the stump of NV10 … NV18; not read"
            )
        result.problems.append(
            f"row {label}: {len(cells)} of {len(matrix.columns)} cells readable (truncated?)"
        )
    matrix.rows[label] = cells
    # A row cut short ends in the stump of a cell ("SY"), not in its affinity columns: taken
    # as a CPU list it would mark the whole column clipped and lose every other row's value.
    matrix.extra[label] = rest[position:] if len(cells) == len(matrix.columns) else []


def _emit(matrix: _Matrix, result: ParseResult, capability: str | None) -> None:
    seen: dict[str, str] = {}
    cpu_values: dict[str, str] = {}
    for label, cells in matrix.rows.items():
        row_subject = _subject(label)
        for column, cell in zip(matrix.columns, cells, strict=False):
            col_subject = _subject(column)
            if col_subject == row_subject or cell == "X":
                continue
            pair = _pair(row_subject, col_subject)
            if pair in seen:
                if seen[pair] != cell:
                    result.problems.append(
                        f"{pair}: matrix is not symmetric ({seen[pair]} vs {cell}); "
                        "kept the first reading"
                    )
                continue
            seen[pair] = cell
            both_gpus = row_subject.startswith("gpu") and col_subject.startswith("gpu")
            if matrix.kind == "p2p":
                name = f"topo.p2p.{capability}" if capability else "topo.p2p.status"
                result.add(name, cell, subject=pair)
                result.add("topo.p2p_supported", _P2P_OK.get(cell), subject=pair)
                continue
            result.add("topo.link", cell, subject=pair)
            if cell.startswith("NV"):
                result.add("topo.nvlinks", int(cell[2:]), subject=pair)
                if both_gpus:
                    result.add("topo.p2p_possible", True, subject=pair)
            elif both_gpus:
                result.add("topo.p2p_possible", _P2P_POSSIBLE.get(cell), subject=pair)
        if matrix.kind == "link" and label.startswith("GPU"):
            values = matrix.extra.get(label, [])
            if matrix.affinity and len(values) < len(matrix.affinity):
                # A row short of its affinity columns was cut, and where it was cut is its
                # last value: "112-127,240-25" reads as a CPU list but is the stump of one.
                if values:
                    result.problems.append(
                        f"row {label}: affinity columns missing; its last value {values[-1]!r} "
                        "may be cut short, not read"
                    )
                    values = values[:-1]
                else:
                    result.problems.append(f"row {label}: affinity columns missing")
            for label_name, value in zip(matrix.affinity, values, strict=False):
                if label_name == "CPU Affinity":
                    cpu_values[row_subject] = value
                elif not is_missing(value):
                    fact = (
                        "topo.numa_affinity"
                        if label_name == "NUMA Affinity"
                        else "topo.gpu_numa_id"
                    )
                    result.add(fact, value, subject=row_subject)
    if not cpu_values:
        return
    bad = [
        value
        for value in cpu_values.values()
        if not is_missing(value) and not _CPU_SET.match(value)
    ]
    if bad:
        # A narrow terminal clips this column from the left ("-31,64-95"); then every value
        # in it is suspect, even those that still look like a CPU list.
        result.problems.append(
            f"CPU Affinity column looks clipped (e.g. {bad[0]!r}); CPU affinity not recorded"
        )
        return
    for subject, value in cpu_values.items():
        if not is_missing(value):
            result.add("topo.cpu_affinity", value, subject=subject)


# The matrix's first row (GPU0 against itself is "X") or the legend's first entry.
_TOPO_SHAPE = re.compile(r"^[ \t]*GPU0[ \t]+X(?:[ \t]|$)|^[ \t]*X[ \t]+=[ \t]+Self\b", re.MULTILINE)


def recognise_topo(text: str) -> bool:
    """Whether ``text`` holds an ``nvidia-smi topo`` matrix (``-m`` or ``-p2p``)."""
    return _TOPO_SHAPE.search(text) is not None


PROBE = Probe(
    name="nvidia-smi-topo",
    summary="GPU/NIC interconnect matrix: NVLink, PCIe switch, host bridge or socket link per pair",
    parse=parse_topo,
    recognises=recognise_topo,
    argv=("nvidia-smi", "topo", "-m"),
    cost="instant",
    facts=(
        "topo.link",
        "topo.nvlinks",
        "topo.p2p_possible",
        "topo.cpu_affinity",
        "topo.numa_affinity",
        "topo.gpu_numa_id",
        "topo.nic_device",
        "topo.p2p_supported",
        # patterns (fnmatch): families the parser names per field, section or test
        "topo.p2p.*",
    ),
    needs_load=False,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
