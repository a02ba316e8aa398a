"""CUDA samples ``p2pBandwidthLatencyTest``: GPU-to-GPU bandwidth with and without P2P.

Whether peer-to-peer works between two GPUs, and what it buys, decides whether GPU-to-GPU
traffic crosses the CPU's memory. Virtual machines and consumer cards often lose P2P; this
test shows it as "CANNOT Access Peer" lines and as matrices of copy bandwidth and latency
with P2P off and on.

Facts (pairs are ``gpu<row>-gpu<column>`` as printed, the diagonal is skipped):

- ``p2p.enabled`` (bool, per ordered pair) from "Device=X CAN/CANNOT Access Peer Device=Y",
  or from the "P2P Connectivity Matrix" when those lines are missing;
- ``p2p.unidir_bw.disabled`` / ``p2p.unidir_bw.enabled`` / ``p2p.bidir_bw.disabled`` /
  ``p2p.bidir_bw.enabled`` (GB/s per pair); the modified test's "(P2P Reads)" matrices add
  ``.reads`` (``p2p.unidir_bw.enabled.reads``); "(P2P Writes)" is the default, no suffix;
- ``p2p.latency.gpu.disabled`` / ``p2p.latency.gpu.enabled`` and ``p2p.latency.cpu.*``
  (us per pair), ``.reads`` likewise;
- on ``host``, for every bandwidth matrix above, ``<name>.min`` and ``<name>.max`` (GB/s)
  over the off-diagonal pairs, e.g. ``p2p.unidir_bw.enabled.min``; ``p2p.gpus`` (int);
- ``name`` (str) per ``gpu<N>`` from the "Device: N, name, pciBusID …" lines.

A paste copied out of an editor or pager with its line numbers (vim's ``:set number``,
``cat -n``, ``less -N``: every line starts with its number, counting up by one) is read without
them. A matrix row with fewer values than its header has columns (a paste cut mid-row) is read as
far as it goes, less its last value when it is the last line of the paste (that value may be
cut too); a row with more values keeps the first ones, one per column. Either way a problem
names the matrix and the row. The GPU count is the largest of the device list, the access
lines and the matrix headers, so a cut device list does not make the box look smaller; when
a header names more GPUs than the device list, that is stated too.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._tables import row_cells
from casefile_probes._text import clean_paste, to_float

__all__ = ["PROBE", "parse_p2p"]

_DEVICE = re.compile(r"^\s*Device:\s*(?P<index>\d+),\s*(?P<name>.+?),\s*pciBusID:")
_ACCESS = re.compile(
    r"Device=\s*(?P<a>\d+)\s+(?P<can>CAN|CANNOT)\s+Access Peer Device=\s*(?P<b>\d+)\b"
)
_BW_TITLE = re.compile(
    r"^\s*(?P<dir>Unidirectional|Bidirectional)\s+P2P=(?P<state>Enabled|Disabled)\s+Bandwidth"
    r"(?:\s*\(P2P (?P<mode>Writes|Reads)\))?\s+Matrix",
    re.I,
)
_LAT_TITLE = re.compile(
    r"^\s*P2P=(?P<state>Enabled|Disabled)\s+Latency(?:\s*\(P2P (?P<mode>Writes|Reads)\))?"
    r"\s+Matrix",
    re.I,
)
_CONNECTIVITY = re.compile(r"^\s*P2P Connectivity Matrix", re.I)
_COLUMNS = re.compile(r"^\s*(?P<label>D\\D|GPU|CPU)\s+(?P<cols>[0-9][0-9\s]*)$")
_ROW = re.compile(r"^\s*(?P<row>[0-9]+)\s+(?P<cells>\S.*)$")
_CELL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
# A line number an editor or pager put in front of a line: digits, then one blank or the end.
_LINE_NUMBER = re.compile(r"^[ \t]*(?P<number>\d+)(?:[ \t]|$)")


@dataclass
class _Matrix:
    name: str
    unit: str | None
    columns: list[int] = field(default_factory=list)
    cells: dict[tuple[int, int], float] = field(default_factory=dict)


def _section_name(line: str) -> tuple[str, str | None] | None:
    if m := _BW_TITLE.match(line):
        kind = "unidir_bw" if m.group("dir").lower().startswith("uni") else "bidir_bw"
        suffix = ".reads" if (m.group("mode") or "").lower() == "reads" else ""
        return f"p2p.{kind}.{m.group('state').lower()}{suffix}", "GB/s"
    if m := _LAT_TITLE.match(line):
        suffix = ".reads" if (m.group("mode") or "").lower() == "reads" else ""
        # "{side}" is filled in by the GPU / CPU sub-table header.
        return f"p2p.latency.{{side}}.{m.group('state').lower()}{suffix}", "us"
    if _CONNECTIVITY.match(line):
        return "connectivity", None
    return None


def _without_line_numbers(lines: list[str]) -> list[str]:
    """``lines`` less the line numbers an editor or pager printed in front of each one.

    Taken off only when every non-blank line starts with a number, the numbers count up by one
    from line to line, and what is left holds a line of the test's own (a title, a column
    header, a device or access line): a matrix's rows alone also start with consecutive
    numbers, their row indices, which must stay.
    """
    numbered = [(line, _LINE_NUMBER.match(line)) for line in lines if line.strip()]
    if len(numbered) < 3 or any(m is None for _, m in numbered):
        return lines
    numbers = [int(m.group("number")) for _, m in numbered if m is not None]
    if any(b != a + 1 for a, b in itertools.pairwise(numbers)):
        return lines
    stripped = [line[m.end() :] if (m := _LINE_NUMBER.match(line)) else line for line in lines]
    own = any(
        _section_name(line) or _COLUMNS.match(line) or _DEVICE.match(line) or _ACCESS.search(line)
        for line in stripped
    )
    return stripped if own else lines


def parse_p2p(text: str) -> ParseResult:
    """Facts from p2pBandwidthLatencyTest output, whole or in part."""
    lines = _without_line_numbers(clean_paste(text).lines)
    result = ParseResult()
    names: dict[int, str] = {}
    access: dict[tuple[int, int], bool] = {}
    matrices: list[_Matrix] = []
    template: tuple[str, str | None] | None = None
    current: _Matrix | None = None
    bad_rows: list[str] = []
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for position, line in enumerate(lines):
        if m := _DEVICE.match(line):
            names.setdefault(int(m.group("index")), m.group("name").strip())
            continue
        if m := _ACCESS.search(line):
            access[(int(m.group("a")), int(m.group("b")))] = m.group("can") == "CAN"
            continue
        if (section := _section_name(line)) is not None:
            template = section
            current = None
            continue
        if template is None:
            continue
        if m := _COLUMNS.match(line):
            side = m.group("label").lower()
            name = template[0].replace("{side}", "cpu" if side == "cpu" else "gpu")
            current = _Matrix(name, template[1], [int(c) for c in m.group("cols").split()])
            matrices.append(current)
            continue
        if current is not None and (m := _ROW.match(line)):
            problem = _read_row(current, int(m.group("row")), m.group("cells"), position == last)
            if problem:
                bad_rows.append(problem)
            continue
        if line.strip() and not line.strip().startswith("..."):
            # Anything else (the NOTE, an elision) ends the table but not the section:
            # latency sections carry a GPU and a CPU table under one title.
            current = None

    if not names and not access and not matrices:
        return ParseResult.unparsed(
            "no p2pBandwidthLatencyTest output found (no 'Device=X CAN Access Peer' lines "
            "or P2P matrices)"
        )
    for index, name in sorted(names.items()):
        result.add("name", name, f"gpu{index}")
    gpus = set(names) | {i for pair in access for i in pair}
    for matrix in matrices:
        gpus |= set(matrix.columns)
    result.add("p2p.gpus", len(gpus) or None, "host")
    connectivity = [m for m in matrices if m.name == "connectivity"]
    pairs = dict(access)
    for matrix in connectivity:
        for (a, b), value in matrix.cells.items():
            if a != b and (a, b) not in pairs:
                pairs[(a, b)] = value >= 1
    for (a, b), enabled in sorted(pairs.items()):
        if a != b:
            result.add("p2p.enabled", enabled, f"gpu{a}-gpu{b}")
    for matrix in matrices:
        if matrix.name == "connectivity":
            continue
        off_diagonal = {pair: v for pair, v in sorted(matrix.cells.items()) if pair[0] != pair[1]}
        for (a, b), value in off_diagonal.items():
            result.add(matrix.name, value, f"gpu{a}-gpu{b}", matrix.unit)
        if "_bw." in matrix.name and off_diagonal:
            result.add(f"{matrix.name}.min", min(off_diagonal.values()), "host", matrix.unit)
            result.add(f"{matrix.name}.max", max(off_diagonal.values()), "host", matrix.unit)
    if not any(m.name != "connectivity" and m.cells for m in matrices):
        result.problems.append("no bandwidth or latency matrix values (output cut short?)")
    if bad_rows:
        result.problems.append(f"rows read in part: {'; '.join(bad_rows)}")
    header_gpus = max((len(m.columns) for m in matrices), default=0)
    if names and header_gpus > len(names):
        result.problems.append(
            f"the matrices have {header_gpus} GPUs but only {len(names)} 'Device:' lines "
            "(device list cut short?)"
        )
    return result


def _read_row(matrix: _Matrix, row: int, text: str, at_end: bool) -> str | None:
    """Read one matrix row as far as it goes; a problem when it does not fit the header."""
    cells, problem = row_cells(text, _CELL, len(matrix.columns), at_end, f"{matrix.name} row {row}")
    for column, cell in zip(matrix.columns, cells, strict=False):
        value = to_float(cell)
        if value is not None:
            matrix.cells[(row, column)] = value
    return problem


# The sample's banner, its matrices' titles and their "D\D" corner.
_P2P_SHAPE = re.compile(
    r"P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test"
    r"|P2P=(?:Enabled|Disabled)[ \t]+(?:Latency|Bandwidth)"
    r"|P2P Connectivity Matrix"
    r"|^[ \t]*D\\D[ \t]+0\b",
    re.MULTILINE,
)


def recognise_p2p(text: str) -> bool:
    """Whether ``text`` holds ``p2pBandwidthLatencyTest`` output (or one of its matrices)."""
    return _P2P_SHAPE.search(text) is not None


PROBE = Probe(
    name="cuda-p2p-bandwidth",
    summary="GPU-to-GPU bandwidth and latency with P2P off and on (p2pBandwidthLatencyTest)",
    parse=parse_p2p,
    recognises=recognise_p2p,
    argv=("p2pBandwidthLatencyTest",),
    cost="moderate",
    timeout_s=300.0,
    facts=(
        "p2p.enabled",
        "p2p.unidir_bw.disabled",
        "p2p.unidir_bw.enabled",
        "p2p.bidir_bw.disabled",
        "p2p.bidir_bw.enabled",
        "p2p.latency.gpu.disabled",
        "p2p.latency.gpu.enabled",
        "p2p.unidir_bw.enabled.min",
        "p2p.unidir_bw.enabled.max",
        "p2p.bidir_bw.enabled.min",
        "p2p.bidir_bw.enabled.max",
        "p2p.gpus",
        "name",
        # patterns (fnmatch): families the parser names per field, section or test
        "p2p.*",
    ),
    needs_load=False,
)
