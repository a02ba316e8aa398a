"""Host-device copy bandwidth: CUDA samples ``bandwidthTest`` and NVIDIA ``nvbandwidth``.

A measured host-to-device rate is the direct answer to "what does this PCIe link deliver?"
(a Gen5 x16 link should move ~50 GB/s pinned; a VM without proper passthrough, a
downgraded link or a far NUMA node shows much less). Both tools are read by one parser
because people paste either under the same question.

bandwidthTest facts (GB/s; older versions print MB/s, which are converted: their "MB" is
2^20 bytes, so GB/s = MB/s × 1048576 / 1e9):

- ``bandwidth.h2d`` / ``bandwidth.d2h`` / ``bandwidth.d2d`` for pinned memory,
  ``bandwidth.h2d.pageable`` … for pageable memory; subject ``gpu<N>`` (the "Device N"
  line, ``host`` when a run covers several devices together) holds the value at the
  largest transfer size, and subject ``size=<bytes>`` holds every row;
- ``bandwidth.memory`` (str, per gpu) "pinned", "pageable" or "pinned+pageable";
- the same from ``--csv`` lines (``bandwidthTest-D2D, Bandwidth = 10.9 GB/s, … Size = 14000
  bytes``), one section per direction and memory;
- ``name`` (str, per gpu) from "Device N: name".

nvbandwidth facts (read by :mod:`casefile_probes.nvbandwidth`, whose probe reports more):
``nvbandwidth.<testcase>`` (e.g. ``nvbandwidth.host_to_device_memcpy_ce``,
unit from the table title, usually GB/s) with subject ``gpu<j>`` when the other axis is a
single CPU, else ``gpu<i>-gpu<j>`` (row-column, diagonal skipped); ``nvbandwidth.<testcase>.sum``
on ``host`` from the SUM lines. ``N/A`` cells give no fact.

Pastes whose tabs came through as vim ``listchars`` glyphs (``>---``) are read with the
glyphs turned back into tabs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, to_float, to_int
from casefile_probes.nvbandwidth import add_cell_facts, device_line, read_nvbandwidth

__all__ = ["PROBE", "parse_bandwidth"]

_LISTCHARS = re.compile(r">+-*")
# The banner that starts a run; its "[" is sometimes lost in a paste of several runs.
_START = re.compile(r"(?:^\s*|\[)CUDA Bandwidth Test\]")
_DIRECTION = re.compile(
    r"^\s*(?P<dir>Host to Device|Device to Host|Device to Device) Bandwidth,\s*"
    r"(?P<count>\d+)\s*Device",
    re.I,
)
_MEMORY = re.compile(r"^\s*(?P<memory>PINNED|PAGEABLE)\s+Memory Transfers", re.I)
_UNIT = re.compile(r"Transfer Size \(Bytes\)\s*Bandwidth\s*\((?P<unit>[GM]B/s)\)", re.I)
_SIZE_ROW = re.compile(r"^\s*(?P<size>[0-9]+)\s+(?P<value>[0-9]+(?:\.[0-9]+)?)\s*$")
_RESULT = re.compile(r"^\s*Result\s*=\s*(?P<result>\w+)")
#: ``--csv`` (shmoo) lines: "bandwidthTest-D2D, Bandwidth = 0.8 GB/s, Time = 0.00000 s, Size =
#: 1000 bytes, NumDevsUsed = 1"; host transfers name their memory ("-H2D-Pinned", "-D2H-Paged")
_CSV_ROW = re.compile(
    r"^\s*bandwidthTest-(?P<dir>H2D|D2H|D2D)(?:-(?P<memory>Pinned|Paged)(?:-?WriteCombined)?)?,"
    r"\s{0,4}"
    r"Bandwidth\s{0,4}=\s{0,4}(?P<value>[0-9]{1,9}(?:\.[0-9]{1,9})?)\s{0,4}(?P<unit>[GM]B/s),"
    r"[^\n]{0,80}?Size\s{0,4}=\s{0,4}(?P<size>[0-9]{1,15})\s{0,4}bytes"
    r"(?:,\s{0,4}NumDevsUsed\s{0,4}=\s{0,4}(?P<count>[0-9]{1,4}))?",
    re.I,
)
_CSV_DIRECTIONS = {"H2D": "h2d", "D2H": "d2h", "D2D": "d2d"}
_ERROR = re.compile(
    r"(CUDA error|no CUDA-capable device|cudaGetDeviceCount returned|"
    r"CUDA driver version is insufficient|command not found|No such file)",
    re.I,
)

_DIRECTIONS = {"host to device": "h2d", "device to host": "d2h", "device to device": "d2d"}
# bandwidthTest's old MB/s: bytes / 2^20 per second (see its bandwidthInMBs formula).
_MB_TO_GB = 1048576 / 1e9


@dataclass
class _Section:
    fact: str
    subject: str
    unit_scale: float = 1.0
    rows: list[tuple[int, float]] = field(default_factory=list)


class _BandwidthTestReader:
    """State machine over bandwidthTest's sections (one or several runs in a paste)."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.devices: list[int] = []
        self.direction: str | None = None
        self.count = 1
        self.memory = "pinned"
        self.scale = 1.0
        self.section: _Section | None = None
        self.memories: dict[str, list[str]] = {}
        self.seen = False

    def feed(self, line: str) -> bool:
        if _START.search(line):
            self._close()
            self.devices = []
            self.seen = True
            return True
        if m := _DIRECTION.match(line):
            self._close()
            self.direction = _DIRECTIONS[m.group("dir").lower()]
            self.count = to_int(m.group("count")) or 1
            self.memory = "pinned"
            self.scale = 1.0
            self.seen = True
            return True
        if m := _MEMORY.match(line):
            self.memory = m.group("memory").lower()
            return True
        if m := _UNIT.search(line):
            self.scale = _MB_TO_GB if m.group("unit").upper() == "MB/S" else 1.0
            if self.direction is not None:
                self._open()
            return True
        if self.section is not None and (m := _SIZE_ROW.match(line)):
            value = to_float(m.group("value"))
            size = to_int(m.group("size"))
            if value is not None and size is not None:
                self.section.rows.append((size, value * self.section.unit_scale))
            return True
        if m := _CSV_ROW.match(line):
            self._csv_row(m)
            return True
        if m := _RESULT.match(line):
            self._close()
            if m.group("result").upper() != "PASS":
                self.result.problems.append(f"bandwidthTest reported Result = {m.group('result')}")
            return True
        return False

    def _csv_row(self, row: re.Match[str]) -> None:
        """A ``--csv`` line: a row of the section its direction and memory name, opened when
        the line before was another's."""
        direction = _CSV_DIRECTIONS[row.group("dir").upper()]
        # a device-to-device line names no memory: it is the run's, as the host lines said
        said = (row.group("memory") or "").lower()
        memory = {"paged": "pageable", "pinned": "pinned"}.get(said, self.memory)
        scale = _MB_TO_GB if row.group("unit").upper() == "MB/S" else 1.0
        self.seen = True
        count = to_int(row.group("count") or "1") or 1
        same = (self.direction, self.memory, self.scale, self.count) == (
            direction,
            memory,
            scale,
            count,
        )
        if self.section is None or not same:
            self._close()
            self.direction, self.memory, self.scale, self.count = direction, memory, scale, count
            self._open()
        value, size = to_float(row.group("value")), to_int(row.group("size"))
        if self.section is not None and value is not None and size is not None:
            self.section.rows.append((size, value * self.section.unit_scale))

    def device(self, index: int) -> None:
        self.devices.append(index)

    def _subject(self) -> str:
        if self.count == 1 and len(self.devices) == 1:
            return f"gpu{self.devices[0]}"
        if self.count == 1 and not self.devices:
            return "gpu0"
        return "host"

    def _open(self) -> None:
        assert self.direction is not None
        suffix = "" if self.memory == "pinned" else f".{self.memory}"
        self.section = _Section(f"bandwidth.{self.direction}{suffix}", self._subject(), self.scale)

    def _close(self) -> None:
        section = self.section
        self.section = None
        if section is None or not section.rows:
            return
        for size, value in section.rows:
            self.result.add(section.fact, round(value, 4), f"size={size}", "GB/s")
        headline = max(section.rows, key=lambda row: row[0])[1]
        self.result.add(section.fact, round(headline, 4), section.subject, "GB/s")
        memory = "pageable" if section.fact.endswith(".pageable") else "pinned"
        kinds = self.memories.setdefault(section.subject, [])
        if memory not in kinds:
            kinds.append(memory)

    def finish(self) -> None:
        self._close()
        for subject, kinds in self.memories.items():
            self.result.add("bandwidth.memory", "+".join(sorted(kinds, reverse=True)), subject)


def parse_bandwidth(text: str) -> ParseResult:
    """Facts from bandwidthTest or nvbandwidth output (or both in one paste)."""
    cleaned = clean_paste(text, hash_prompt=True)
    lines = cleaned.lines
    if any(">---" in line for line in lines):
        lines = [_LISTCHARS.sub("\t", line) if ">-" in line else line for line in lines]
    result = ParseResult()
    reader = _BandwidthTestReader(result)
    names: dict[int, str] = {}
    for line in lines:
        if (device := device_line(line)) is not None:
            # shared with nvbandwidth, which prints "Device 0: name (00000000:34:00)"
            index, name, _ = device
            names.setdefault(index, name)
            reader.device(index)
            continue
        reader.feed(line)
    reader.finish()

    # nvbandwidth's matrices, read by the nvbandwidth probe's own reader (rows cut short are
    # read as far as they go); the nvbandwidth probe reports more about them than this one.
    report = read_nvbandwidth(lines)
    add_cell_facts(result, report)
    result.problems.extend(report.problems)
    result.add("nvbandwidth.version", report.header.get("nvbandwidth.version"), "host")
    if result.facts or names:
        for index, name in sorted(names.items()):
            result.add("name", name, f"gpu{index}")
    if not any(f.name.startswith(("bandwidth.", "nvbandwidth.")) for f in result.facts):
        error = next((line.strip() for line in lines if _ERROR.search(line)), None)
        if error:
            return ParseResult.unparsed(f"the test printed an error, not results: {error}")
        if reader.seen or report.tables:
            return ParseResult.unparsed("bandwidth test output without any result rows")
        return ParseResult.unparsed("no bandwidthTest or nvbandwidth results found")
    return result


# bandwidthTest's banner and its section titles (nvbandwidth's output is nvbandwidth's to
# recognise, though this parser reads it too).
_BANDWIDTH_TEST_SHAPE = re.compile(
    r"\[CUDA Bandwidth Test\]"
    r"|(?:Host to Device|Device to Host|Device to Device) Bandwidth,[ \t]*\d+[ \t]+Device"
    r"|^[ \t]*bandwidthTest-(?:H2D|D2H|D2D)(?:-(?:Pinned|Paged)(?:-?WriteCombined)?)?,"
    r"[ \t]*Bandwidth[ \t]*=",
    re.M,
)


def recognise_bandwidth(text: str) -> bool:
    """Whether ``text`` holds the CUDA sample ``bandwidthTest``'s output."""
    return _BANDWIDTH_TEST_SHAPE.search(text) is not None


PROBE = Probe(
    name="cuda-bandwidth",
    summary="Host<->device copy bandwidth (CUDA samples bandwidthTest; nvbandwidth pastes too)",
    parse=parse_bandwidth,
    recognises=recognise_bandwidth,
    argv=("bandwidthTest", "--memory=pinned", "--mode=quick"),
    cost="moderate",
    timeout_s=300.0,
    facts=(
        "bandwidth.h2d",
        "bandwidth.d2h",
        "bandwidth.d2d",
        "bandwidth.h2d.pageable",
        "bandwidth.d2h.pageable",
        "bandwidth.memory",
        "nvbandwidth.host_to_device_memcpy_ce",
        "nvbandwidth.device_to_host_memcpy_ce",
        "nvbandwidth.device_to_device_memcpy_write_ce",
        "name",
        # patterns (fnmatch): families the parser names per field, section or test
        "nvbandwidth.*",
    ),
    needs_load=False,
)
