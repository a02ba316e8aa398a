"""NVIDIA ``nvbandwidth``: copy bandwidth between every pair of GPUs and between host and GPUs.

nvbandwidth measures each copy path with the copy engines (``_ce``) or with kernels (``_sm``)
and prints one matrix per test: ``memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)`` over all
GPU pairs, or a single ``CPU(row)`` line against every GPU. A pair far below its neighbours is
a link that trains slow, crosses a socket, or has no peer access at all (then the test is
"Waived"). People paste it cut short, with the device list or the ``Running …`` line replaced
by ``...``, or quoted; each matrix is read as far as it goes.

Facts:

- ``nvbandwidth.<testcase>`` (unit from the title, usually GB/s) per ``gpu<i>-gpu<j>``
  (row-column, the diagonal is skipped) or per ``gpu<j>`` when the other axis is the CPU or
  when the matrix has only a GPU axis (``device_local_copy``'s "memcpy local GPU(column)":
  each GPU copying within its own memory); ``N/A`` cells give no fact. A matrix printed
  without its ``Running <testcase>`` line is named from the ``SUM <testcase>`` line under it;
- on ``host``: ``nvbandwidth.<testcase>.sum`` (the SUM line), ``nvbandwidth.<testcase>.min`` /
  ``.max`` (over the cells read), ``nvbandwidth.<testcase>.waived`` (bool, true: the test
  could not run, typically no peer access), ``nvbandwidth.version`` (str),
  ``nvbandwidth.cuda_runtime`` / ``nvbandwidth.cuda_driver`` (int), ``nvbandwidth.driver``
  (str), ``nvbandwidth.gpus`` (int: the largest of the device list and the matrices' headers);
- per ``gpu<N>``: ``name`` (str) and ``pci.bus_id`` (str, ``0000:34:00.0``) from the
  "Device N: name (00000000:34:00)" lines;
- on ``host``, in the CUDA P2P test's names, so the peer-to-peer rules read either tool
  (:func:`add_peer_facts`): ``p2p.unidir_bw.enabled.max`` / ``.min`` (GB/s, the best and worst
  pair of the one-way copies between GPUs) and ``p2p.enabled`` (bool: a copy between GPUs
  ran; false where every one was waived on two GPUs or more).

Problems: a row with fewer or more values than its header (read as far as it goes, the last
value dropped when the paste ends inside the row), a waived test, an error or ``ASSERT``
printed instead of results, a matrix title with no rows under it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._tables import row_cells
from casefile_probes._text import clean_paste, normalise_bus_id, to_float

__all__ = [
    "PROBE",
    "NvbReport",
    "NvbTable",
    "add_cell_facts",
    "device_line",
    "parse_nvbandwidth",
    "read_nvbandwidth",
]

_RUNNING = re.compile(r"^\s*(?:>\s*)*Running\s+(?:benchmark\s+)?(?P<test>[a-z0-9_]+)\.?\s*$")
_WAIVED = re.compile(r"^\s*(?:>\s*)*Waiving\s+(?P<test>[a-z0-9_]+)\.?\s*$")
# A matrix title: "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)". Read in three steps
# (the start, the first pair of axes, the last parenthesis) rather than with one pattern whose
# lazy gaps made a long line of axes cost quadratic time (42 s for 200 KB).
_TITLE_START = re.compile(r"^\s*(?:memcpy|memory)\b", re.I)
_AXES = re.compile(
    r"(?P<a>CPU|GPU)\((?P<a_axis>rows?|columns?)\)\s*(?:->|<-|<->)\s*"
    r"(?P<b>CPU|GPU)\((?P<b_axis>rows?|columns?)\)",
    re.I,
)
# A matrix with one axis only ("memcpy local GPU(column) bandwidth (GB/s)", device_local_copy):
# its single row holds one value per GPU.
_ONE_AXIS = re.compile(r"(?P<a>CPU|GPU)\((?P<a_axis>rows?|columns?)\)", re.I)
_COLUMNS = re.compile(r"^\s*[0-9]+(?:\s+[0-9]+)*\s*$")
_ROW = re.compile(r"^\s*(?P<row>[0-9]+)\s+(?P<cells>\S.*)$")
_CELL = re.compile(r"[0-9]+(?:\.[0-9]+)?|N/A")
_SUM = re.compile(r"^\s*SUM\s+(?P<test>[a-z0-9_]+)\s+(?P<value>[0-9]+(?:\.[0-9]+)?)\s*$")
_VERSION = re.compile(r"nvbandwidth Version:\s*(?P<version>\S+)", re.I)
_CUDA_RUNTIME = re.compile(r"^\s*CUDA Runtime Version:\s*(?P<value>\d+)")
_CUDA_DRIVER = re.compile(r"^\s*CUDA Driver Version:\s*(?P<value>\d+)")
_DRIVER = re.compile(r"^\s*Driver Version:\s*(?P<value>\S+)")
# "Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)": the name runs to the end of the line and
# the bus id is taken off its end afterwards; a lazy name followed by optional parts made a
# line with a long run of blanks cost quadratic time (minutes for 200 KB).
_DEVICE = re.compile(r"^\s*Device\s+(?P<index>\d+)\s*:\s*(?P<name>\S.*)$")
_DEVICE_BUS = re.compile(r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.\d)?")
_ONE = "one"
_ERROR = re.compile(
    r"^\s*(?:ASSERT in expression|CUDA_ERROR|cuda error|Error:|terminate called)", re.I
)


@dataclass
class NvbTable:
    """One result matrix: its test case, unit, axes and the cells read."""

    test: str | None
    unit: str
    row_kind: str
    column_kind: str
    columns: list[int] = field(default_factory=list)
    cells: dict[tuple[int, int], float] = field(default_factory=dict)
    rows_seen: int = 0


@dataclass
class NvbReport:
    """Everything nvbandwidth output said, before it becomes facts."""

    tables: list[NvbTable] = field(default_factory=list)
    sums: dict[str, float] = field(default_factory=dict)
    waived: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    buses: dict[int, str] = field(default_factory=dict)
    header: dict[str, int | str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)

    def seen(self) -> bool:
        """Whether anything of nvbandwidth's was found at all."""
        return bool(self.tables or self.sums or self.waived or self.header or self.running)


def device_line(line: str) -> tuple[int, str, str | None] | None:
    """``(index, name, bus id as printed or None)`` from a "Device N: name (bus)" line."""
    m = _DEVICE.match(line)
    if m is None:
        return None
    name = m.group("name").rstrip()
    bus: str | None = None
    if name.endswith(")"):
        opening = name.rfind("(")
        if opening > 0 and _DEVICE_BUS.fullmatch(name, opening + 1, len(name) - 1):
            bus = name[opening + 1 : -1]
            name = name[:opening].rstrip()
    return int(m.group("index")), name, bus


def _one_axis(line: str) -> re.Match[str] | None:
    """A one-axis title ("memcpy local GPU(column) bandwidth"): one labelled axis, and a
    local test. Two labelled axes joined by an arrow the pattern does not know ("CPU(row) →
    GPU(column)") are no one-axis matrix: read as one, a row of it would be taken for the
    whole and the others dropped without a word."""
    found = list(_ONE_AXIS.finditer(line))
    if len(found) != 1 or "local" not in line.lower():
        return None
    return found[0]


def _title(line: str, test: str | None) -> NvbTable | None:
    """The table a title line opens: its axes and the unit in its last parenthesis."""
    if not _TITLE_START.match(line):
        return None
    text = line.rstrip()
    m = _AXES.search(line) or _one_axis(line)
    if m is None or not text.endswith(")"):
        return None
    opening = text.rfind("(", m.end())
    if opening < 0 or ")" in text[opening + 1 : -1]:
        return None
    a_kind = m.group("a").lower()
    # A one-axis matrix's other axis is its single, unlabelled row or column ("one").
    b_kind = m.group("b").lower() if "b" in m.groupdict() else _ONE
    a_is_row = m.group("a_axis").lower().startswith("row")
    row_kind, column_kind = (a_kind, b_kind) if a_is_row else (b_kind, a_kind)
    return NvbTable(test, text[opening + 1 : -1].strip(), row_kind, column_kind)


def _read_row(table: NvbTable, row: int, text: str, at_end: bool) -> str | None:
    """Read a row as far as it goes; a problem when it does not fit the column header."""
    name = table.test or "(unnamed test)"
    cells, problem = row_cells(
        text, _CELL, len(table.columns), at_end, f"nvbandwidth {name} row {row}"
    )
    table.rows_seen += 1
    for column, cell in zip(table.columns, cells, strict=False):
        value = to_float(cell) if cell != "N/A" else None
        if value is not None:
            table.cells[(row, column)] = value
    return problem


def read_nvbandwidth(lines: list[str]) -> NvbReport:
    """Read nvbandwidth's banner, device list, matrices, SUM and Waiving lines."""
    report = NvbReport()
    test: str | None = None
    table: NvbTable | None = None
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for position, line in enumerate(lines):
        if m := _VERSION.search(line):
            report.header.setdefault("nvbandwidth.version", m.group("version"))
        elif m := _CUDA_RUNTIME.match(line):
            report.header.setdefault("nvbandwidth.cuda_runtime", int(m.group("value")))
        elif m := _CUDA_DRIVER.match(line):
            report.header.setdefault("nvbandwidth.cuda_driver", int(m.group("value")))
        elif m := _DRIVER.match(line):
            report.header.setdefault("nvbandwidth.driver", m.group("value"))
        elif (device := device_line(line)) is not None:
            index, name, printed = device
            report.names.setdefault(index, name)
            if printed and (bus := normalise_bus_id(_with_function(printed))) is not None:
                report.buses.setdefault(index, bus)
        elif m := _RUNNING.match(line):
            test, table = m.group("test"), None
            report.running.append(test)
        elif m := _WAIVED.match(line):
            report.waived.append(m.group("test"))
            test, table = None, None
        elif m := _SUM.match(line):
            value = to_float(m.group("value"))
            if value is not None:
                report.sums[m.group("test")] = value
            if table is not None and table.test is None:
                table.test = m.group("test")
            test, table = None, None
        elif (new := _title(line, test)) is not None:
            table = new
            report.tables.append(table)
        elif table is not None and not table.columns and _COLUMNS.match(line):
            table.columns = [int(c) for c in line.split()]
        elif table is not None and table.columns and (m := _ROW.match(line)):
            problem = _read_row(table, int(m.group("row")), m.group("cells"), position == last)
            if problem:
                report.problems.append(problem)
        elif _ERROR.match(line):
            report.errors.append(line.strip())
    return report


def _with_function(bus: str) -> str:
    """nvbandwidth prints ``00000000:34:00`` without the function number; lspci's has one."""
    return bus if "." in bus else bus + ".0"


def _subject(table: NvbTable, row: int, column: int) -> str | None:
    if table.row_kind == _ONE:
        return f"{table.column_kind}{column}" if row == 0 else None
    if table.column_kind == _ONE:
        return f"{table.row_kind}{row}" if column == 0 else None
    if table.row_kind == "gpu" and table.column_kind == "gpu":
        return None if row == column else f"gpu{row}-gpu{column}"
    if table.row_kind == "cpu" and table.column_kind == "gpu":
        return f"gpu{column}" if row == 0 else f"cpu{row}-gpu{column}"
    if table.row_kind == "gpu" and table.column_kind == "cpu":
        return f"gpu{row}" if column == 0 else f"gpu{row}-cpu{column}"
    return f"{table.row_kind}{row}-{table.column_kind}{column}"


def add_cell_facts(result: ParseResult, report: NvbReport) -> None:
    """The per-cell and SUM facts (what the ``cuda-bandwidth`` probe reports too)."""
    for table in report.tables:
        if table.test is None:
            continue
        for (row, column), value in sorted(table.cells.items()):
            subject = _subject(table, row, column)
            if subject is not None:
                result.add(f"nvbandwidth.{table.test}", value, subject, table.unit)
    for name, value in report.sums.items():
        result.add(f"nvbandwidth.{name}.sum", value, "host", "GB/s")


#: the one-way copies between two GPUs (copy engines or kernels, read or write): what the CUDA
#: P2P test calls unidirectional bandwidth with P2P enabled, since nvbandwidth runs them only
#: where the GPUs have peer access (and waives them where they have none)
_PEER_COPY = re.compile(r"^device_to_device_memcpy_(?:read|write)_(?:ce|sm)$")
_PEER_TEST = re.compile(r"^device_to_device_(?:bidirectional_)?memcpy_(?:read|write)_(?:ce|sm)$")


def add_peer_facts(result: ParseResult, report: NvbReport) -> None:
    """What the run says of peer-to-peer, in the P2P test's own facts, so the rules that judge
    it read either tool: ``p2p.unidir_bw.enabled.max`` / ``.min`` (the best and worst pair of
    the one-way copies between GPUs) and ``p2p.enabled`` on ``host`` (true where such a copy
    ran; false where every copy between GPUs was waived on a run of two GPUs or more, since
    nvbandwidth waives them where the GPUs have no peer access; one GPU alone waives them
    too, and says nothing of P2P)."""
    copies = [
        t
        for t in report.tables
        if t.test is not None and _PEER_COPY.match(t.test) and t.row_kind == t.column_kind == "gpu"
    ]
    values = [v for t in copies for (row, column), v in t.cells.items() if row != column]
    if values:
        result.add("p2p.unidir_bw.enabled.max", max(values), "host", copies[0].unit)
        result.add("p2p.unidir_bw.enabled.min", min(values), "host", copies[0].unit)
    ran = any(t.test is not None and _PEER_TEST.match(t.test) and t.cells for t in report.tables)
    waived = any(_PEER_TEST.match(test) for test in report.waived)
    if ran:
        result.add("p2p.enabled", True, "host")
    elif waived and (_gpus(report) or 0) >= 2:
        result.add("p2p.enabled", False, "host")


def _gpus(report: NvbReport) -> int | None:
    counts = [len(report.names)]
    for table in report.tables:
        if table.column_kind == "gpu" and table.columns:
            counts.append(max(table.columns) + 1)
        if table.row_kind == "gpu" and table.cells:
            counts.append(max(row for row, _ in table.cells) + 1)
    return max(counts) or None


#: a test named on nvbandwidth's command line, after the program: "./nvbandwidth -t
#: host_to_device_memcpy_ce", "nvbandwidth --testcase=…"; the names run to the next option
_TESTCASE = re.compile(
    r"\bnvbandwidth\b[^\n]{0,200}?(?:\s-t|\s--testcase)(?:\s{1,4}|=)"
    r"(?P<names>[a-z][a-z0-9_]{2,80}(?:\s{1,4}[a-z][a-z0-9_]{2,80}){0,20})(?=\s{0,4}(?:-|$))"
)


def _prompt_test(commands: list[str]) -> str | None:
    """The one test a paste's one nvbandwidth command names (``-t NAME``), else None: several
    commands, several names, or a ``-t`` of another program (``ssh -t``) name no table."""
    runs = [command for command in commands if "nvbandwidth" in command]
    if len(runs) != 1 or (match := _TESTCASE.search(runs[0])) is None:
        return None
    names = match.group("names").split()
    return names[0] if len(names) == 1 else None


def parse_nvbandwidth(text: str) -> ParseResult:
    """Facts from nvbandwidth output, whole or in part."""
    cleaned = clean_paste(text, hash_prompt=True)
    report = read_nvbandwidth(cleaned.lines)
    if not report.seen():
        return ParseResult.unparsed("no nvbandwidth output found (no banner, matrix or SUM line)")
    unnamed = [table for table in report.tables if table.test is None]
    named = _prompt_test(cleaned.commands)
    if named is not None and len(unnamed) == 1:  # the one table the one test printed
        unnamed[0].test = named
    result = ParseResult()
    add_cell_facts(result, report)
    add_peer_facts(result, report)
    for table in report.tables:
        values = [v for (r, c), v in table.cells.items() if _subject(table, r, c) is not None]
        if table.test is not None and values:
            result.add(f"nvbandwidth.{table.test}.min", min(values), "host", table.unit)
            result.add(f"nvbandwidth.{table.test}.max", max(values), "host", table.unit)
    for test in dict.fromkeys(report.waived):
        result.add(f"nvbandwidth.{test}.waived", True, "host")
    for name in ("nvbandwidth.version", "nvbandwidth.cuda_runtime", "nvbandwidth.cuda_driver"):
        result.add(name, report.header.get(name), "host")
    result.add("nvbandwidth.driver", report.header.get("nvbandwidth.driver"), "host")
    result.add("nvbandwidth.gpus", _gpus(report), "host")
    for index, name in sorted(report.names.items()):
        result.add("name", name, f"gpu{index}")
    for index, bus in sorted(report.buses.items()):
        result.add("pci.bus_id", bus, f"gpu{index}")
    result.problems.extend(report.problems)
    for table in report.tables:
        if not table.cells:
            result.problems.append(f"nvbandwidth {table.test or '(unnamed test)'}: no values read")
    result.problems.extend(
        f"nvbandwidth waived {test}: it could not run here (no peer access between the GPUs?)"
        for test in dict.fromkeys(report.waived)
    )
    result.problems.extend(f"nvbandwidth error: {error}" for error in report.errors[:3])
    if not report.tables and not report.sums:
        ran = f" (last started: {report.running[-1]})" if report.running else ""
        result.problems.append(f"no nvbandwidth result matrix{ran}")
    if not result.facts:
        return ParseResult.unparsed(result.problems[0])
    return result


# nvbandwidth's banner, a test starting, or a matrix's title.
_NVBANDWIDTH_SHAPE = re.compile(
    r"nvbandwidth Version:"
    r"|Running (?:benchmark )?\w+_memcpy_(?:ce|sm)\b"
    r"|memcpy (?:CE|SM) (?:CPU|GPU)\((?:row|column)s?\) (?:<-|->) (?:CPU|GPU)\("
    r"|memcpy local GPU\(column\) bandwidth"
)


def recognise_nvbandwidth(text: str) -> bool:
    """Whether ``text`` holds nvbandwidth output (its banner, a test or a matrix)."""
    return _NVBANDWIDTH_SHAPE.search(text) is not None


PROBE = Probe(
    name="nvbandwidth",
    summary="GPU<->GPU and host<->GPU copy bandwidth matrices (NVIDIA nvbandwidth)",
    parse=parse_nvbandwidth,
    recognises=recognise_nvbandwidth,
    argv=("nvbandwidth",),
    cost="moderate",
    timeout_s=900.0,
    facts=(
        "nvbandwidth.host_to_device_memcpy_ce",
        "nvbandwidth.device_to_host_memcpy_ce",
        "nvbandwidth.device_to_device_memcpy_read_ce",
        "nvbandwidth.device_to_device_memcpy_write_ce",
        "nvbandwidth.device_to_device_memcpy_read_ce.min",
        "nvbandwidth.device_to_device_memcpy_write_ce.min",
        "nvbandwidth.host_to_device_memcpy_ce.sum",
        "nvbandwidth.device_to_device_memcpy_write_ce.waived",
        "nvbandwidth.version",
        "nvbandwidth.cuda_runtime",
        "nvbandwidth.cuda_driver",
        "nvbandwidth.driver",
        "nvbandwidth.gpus",
        "p2p.unidir_bw.enabled.max",
        "p2p.unidir_bw.enabled.min",
        "p2p.enabled",
        "name",
        "pci.bus_id",
        # patterns (fnmatch): families the parser names per field, section or test
        "nvbandwidth.*",
    ),
    needs_load=False,
    extra={"argv_note": "-t <testcase> runs one test; the full run takes minutes"},
)
