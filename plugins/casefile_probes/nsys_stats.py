"""``nsys stats`` (and ``nsys profile --stats=true``): the CUDA API, GPU kernel and GPU memory
time summaries, read for launch overhead, host synchronisation and small kernels.

Three reports matter for a single GPU that is not kept busy, under their current and their
2020-2021 names: ``cuda_api_sum`` (``cudaapisum``, "CUDA API Statistics"),
``cuda_gpu_kern_sum`` (``gpukernsum``, "CUDA Kernel Statistics") and ``cuda_gpu_mem_time_sum``
(``gpumemtimesum``, "CUDA Memory Operation Statistics (nanoseconds)"); ``cuda_gpu_sum``
(``gpusum``, what the ``nsys_easy`` script prints) holds the last two in one table, a
``Category`` column (``CUDA_KERNEL``, ``MEMORY_OPER``) before each name, and is read as both,
its ``Time (%)`` being of kernel plus memory-operation time. Any subset may be pasted,
as the column table or as ``--format csv``. Other reports in the same output (``osrt_sum``,
``nvtx_sum``, memory sizes) are recognised by their title or columns and left alone. Facts, all
on ``host``:

- ``kernels.count`` (sum of Instances), ``kernels.mean_us`` (kernel time per instance),
  ``kernels.short_share`` (share of instances in rows whose average is under 20 µs);
- ``kernels.launch_share``: ``cudaLaunchKernel…`` / ``cuLaunchKernel…`` share of CUDA API
  time; ``cpu.sync_share``: the ``…Synchronize`` calls' share of it;
- ``gpu.nccl_share``: share of kernel time in kernels naming NCCL;
- ``gpu.memcpy_share``: memory-operation time over kernel plus memory-operation time, when
  both reports are present;
- ``memcpy.host_share``: the share of memory-operation time in copies between host and device
  (``HtoD``, ``DtoH``, ``HtoA``, ``AtoH``) rather than on the device (``DtoD``, peer-to-peer,
  memset): GPU data staged through host memory shows here, from the memory report alone;
  ``memcpy.count`` and ``memcpy.mean_us`` (copies, time per copy; memsets left out) when that
  report is whole.
- ``gpu.busy_share`` only as a stated reading, read off the timeline: the summaries give kernel
  time but not the span it fell in (:mod:`casefile_probes._timeline`).

A table cut short (a paste that ends mid-row, a ``...`` line, or rows that end cleanly but
whose ``Time (%)`` adds up to less than 95) still gives its shares, taken against the total its
``Time (%)`` column implies; a kind of row it does not show gets no share unless the rows shown
hold 95% of the time; its counts and means, which the missing rows would change, are left out
with a problem saying so. Times are converted from the unit
the header names (``Total Time (ns)``, or ``(us)`` with ``--timeunit``); nanoseconds otherwise.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._timeline import BUSY_SHARE
from casefile_probes.nsys_numbers import NOT_ENGLISH, number, unreadable_pct

__all__ = ["PROBE", "looks_like_nsys_stats", "parse_nsys_stats"]

_API, _KERN, _MEM, _OTHER = "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "other"
_GPU_SUM = "cuda_gpu_sum"  # kernels and memory operations in one table, split on reading
_WANTED = (_API, _KERN, _MEM)

# Report titles as the tool prints them, newest spellings and the 2020-2021 ones, most
# specific first (``cuda_gpu_mem_time_sum`` before a bare "memory").
_TITLES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"cuda_api_sum|cudaapisum|CUDA API (?:Statistics|Summary)", re.I), _API),
    (
        re.compile(
            r"cuda_gpu_kern_sum|gpukernsum|CUDA (?:GPU )?Kernel (?:Statistics|Summary)", re.I
        ),
        _KERN,
    ),
    (
        re.compile(
            r"cuda_gpu_mem_time_sum|gpumemtimesum"
            r"|Memory Operation Statistics \((?:nanoseconds|by time)|MemOps Summary \(by Time",
            re.I,
        ),
        _MEM,
    ),
    (re.compile(r"cuda_gpu_sum|gpusum|CUDA GPU Summary \(Kernels/MemOps\)", re.I), _GPU_SUM),
    (
        re.compile(
            r"osrt|Operating System Runtime|nvtx|NV Tools|mem_size|memsizesum|\(KiB\)|\(MB\)"
            r"|by Size|cuda_gpu_trace|gputrace|kern_exec|_gb_sum",
            re.I,
        ),
        _OTHER,
    ),
)
_PCT_HEADER = re.compile(r"^Time ?\(%\)$")
_TOTAL_HEADER = re.compile(r"^Total Time(?: \((?P<unit>ns|us|ms|s)\))?$")
_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_ELISION = re.compile(r"^\s*(?:\.\.\.|…|\[\.\.\.\])\s*$")
_API_NAME = re.compile(r"^(?:cuda|cu|hip|nccl)", re.I)

_LAUNCH = re.compile(r"^(?:(?:cuda|cu|hip)\w*Launch\w*Kernel\w*)$")
_SYNC = re.compile(r"^(?:cuda|cu|hip)\w*Synchronize\w*$")
_NCCL = re.compile(r"nccl", re.I)
#: a copy between host and device, as the memory report names it (2020-2021 and current)
_HOST_COPY = re.compile(r"HtoD|DtoH|HtoA|AtoH|Host-to-Device|Device-to-Host", re.I)
#: a memory operation that copies nothing (counted in the report's time, not in the copies)
_MEMSET = re.compile(r"memset", re.I)
_SHORT_NS = 20_000.0  # a kernel shorter than 20 µs costs about what launching it costs
_COMPLETE_PCT = 95.0


@dataclass(slots=True)
class _Row:
    name: str
    total_ns: float
    pct: float | None
    count: int | None
    avg_ns: float | None


@dataclass(slots=True)
class _Table:
    kind: str
    rows: list[_Row] = field(default_factory=list)
    cut: bool = False
    #: for one part of a ``cuda_gpu_sum`` table, the whole table's time (its ``Time (%)`` is
    #: of that whole, so a cut part's own total is unknown)
    whole_ns: float | None = None
    #: why the rows could not be read as numbers (a localised format), if so
    unreadable: str | None = None

    def total_ns(self) -> float | None:
        """All of the report's time: the rows' sum when all are here, else what the largest
        row's ``Time (%)`` implies."""
        if not self.cut:
            return sum(row.total_ns for row in self.rows)
        if self.whole_ns is not None:
            return None
        best = max((row for row in self.rows if row.pct), key=lambda r: r.pct or 0.0, default=None)
        if best is None or not best.pct:
            return None
        return best.total_ns / (best.pct / 100.0)


@dataclass(slots=True)
class _Layout:
    """Where a header's columns are: the numeric cells before the name, and which is which."""

    width: int
    pct: int
    total: int
    scale: float
    count: int | None
    avg: int | None
    last: str
    names: list[str]
    category: bool = False


def _layout(cells: list[str]) -> _Layout | None:
    cells = [cell.strip() for cell in cells]
    if len(cells) < 3 or not _PCT_HEADER.match(cells[0]):
        return None
    total = next((i for i, c in enumerate(cells) if _TOTAL_HEADER.match(c)), None)
    if total is None:
        return None
    unit = _TOTAL_HEADER.match(cells[total])
    scale = _UNIT_NS[unit.group("unit") or "ns"] if unit else 1.0
    lowered = [c.lower() for c in cells]
    count = next(
        (
            i
            for i, c in enumerate(lowered)
            if c in ("num calls", "calls", "instances", "count", "operations")
        ),
        None,
    )
    avg = next((i for i, c in enumerate(lowered) if c.startswith(("avg", "average"))), None)
    if "category" in lowered:  # cuda_gpu_sum: the category is read as the name's first word
        width = lowered.index("category")
        return _Layout(width, 0, total, scale, count, avg, lowered[-1], lowered, category=True)
    return _Layout(len(cells) - 1, 0, total, scale, count, avg, lowered[-1], lowered)


def _split_row(line: str, width: int, is_csv: bool) -> list[str] | None:
    """``width`` numeric cells and the name after them (names hold spaces and commas)."""
    if is_csv:
        try:
            cells = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            return None
        if len(cells) < width + 1:
            return cells[:width] if len(cells) >= 2 else None
        return [*cells[:width], ",".join(cells[width:])]
    parts = line.split(None, width)
    return parts if len(parts) >= 2 else None


def _header_cells(stripped: str, is_csv: bool) -> list[str]:
    if not is_csv:
        return re.split(r" {2,}", stripped)
    try:
        return next(csv.reader([stripped]))
    except (csv.Error, StopIteration):
        return []


def _kind_before_rows(title: str | None, layout: _Layout) -> str | None:
    """The report a table is, from its title or its columns; None when only its rows can
    tell (a CUDA API summary and an OS runtime one share their columns)."""
    if layout.category:
        return _GPU_SUM
    if title is not None:
        for pattern, kind in _TITLES:
            if pattern.search(title):
                return kind
    if layout.last == "range" or "style" in layout.names:
        return _OTHER
    if "instances" in layout.names:
        return _KERN
    if layout.last == "operation" or "operations" in layout.names or "count" in layout.names:
        return _MEM
    return None


def _tables(lines: list[str]) -> tuple[list[_Table], list[str]]:
    """Every summary table in the text, each with the kind its title or columns say."""
    tables: list[_Table] = []
    problems: list[str] = []
    title: str | None = None
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        is_csv = stripped.startswith(("Time (%),", "Time(%),"))
        layout = _layout(_header_cells(stripped, is_csv)) if "Time" in stripped else None
        if layout is None:
            if stripped and any(p.search(stripped) for p, _ in _TITLES):
                title = stripped
            index += 1
            continue
        kind = _kind_before_rows(title, layout)
        title = None
        if kind == _OTHER:  # NVTX ranges, OS runtime calls: not read
            index += 1
            while index < len(lines) and lines[index].strip():
                index += 1
            continue
        table, index = _read_rows(lines, index + 1, layout, is_csv)
        if kind == _GPU_SUM and table.rows:
            tables.extend(_by_category(table))
            continue
        names = [row.name for row in table.rows]
        if kind is None:
            api_like = sum(1 for name in names if _API_NAME.match(name))
            kind = _API if names and api_like * 2 > len(names) else _OTHER
        table.kind = kind
        if table.rows:
            tables.append(table)
        elif table.unreadable is not None:
            problems.append(f"{kind}: {table.unreadable}")
        elif kind != _OTHER:
            problems.append(f"a {kind} header with no rows under it")
    return tables, problems


def _by_category(table: _Table) -> list[_Table]:
    """``cuda_gpu_sum``'s rows as a kernel table (``CUDA_KERNEL``) and a memory-operation table
    (``MEMORY_OPER``), each knowing the whole table's time."""
    whole = table.total_ns()
    kern = _Table(kind=_KERN, cut=table.cut, whole_ns=whole)
    mem = _Table(kind=_MEM, cut=table.cut, whole_ns=whole)
    for row in table.rows:
        category, _, name = row.name.replace(",", " ", 1).partition(" ")
        row.name = name.strip()
        if category == "CUDA_KERNEL":
            kern.rows.append(row)
        elif category == "MEMORY_OPER":
            mem.rows.append(row)
    return [kern, mem]


def _read_rows(lines: list[str], index: int, layout: _Layout, is_csv: bool) -> tuple[_Table, int]:
    table = _Table(kind=_OTHER)
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            if table.rows:
                break
            index += 1
            continue
        if set(stripped) <= set("- "):
            index += 1
            continue
        if _ELISION.match(stripped):
            table.cut = True
            index += 1
            break
        if number(stripped) is not None:  # a row cut after its first value
            table.cut = True
            break
        cells = _split_row(stripped, layout.width, is_csv)
        values = [number(c) for c in cells[: layout.width]] if cells else []
        if not cells or not values or any(v is None for v in values[:2]):
            break
        refused = unreadable_pct(cells[0], values[0]) if layout.pct == 0 else None
        if refused is not None:  # another locale's numbers: no row of it can be trusted
            table.rows.clear()
            table.unreadable = refused
            index += 1
            break
        complete = len(cells) == layout.width + 1 and all(v is not None for v in values)
        if not complete:
            table.cut = True
        name = cells[layout.width].strip() if complete else ""
        if name:
            table.rows.append(_row(name, values, layout))
        index += 1
        if not complete:
            break
    if not table.cut and table.rows and _covered_pct(table) < _COMPLETE_PCT:
        # rows that end cleanly but whose Time (%) falls well short of 100: the paste (or
        # the poster) stopped at a row boundary, and the rest of the report is missing
        table.cut = True
    return table, index


def _covered_pct(table: _Table) -> float:
    """How much of the report's time the rows shown hold: their total time against the whole
    that the largest row's ``Time (%)`` implies (100 when a row lacks it, so that nothing is
    assumed missing). Not the sum of the ``Time (%)`` column: it prints one decimal, so a whole
    report with a long tail of rows under 0.05 % would add up well short of 100."""
    if not table.rows or any(row.pct is None for row in table.rows):
        return 100.0
    largest = max(table.rows, key=lambda row: row.total_ns)
    if not largest.pct or largest.total_ns <= 0:
        return 100.0
    whole = largest.total_ns * 100.0 / largest.pct
    return 100.0 * sum(row.total_ns for row in table.rows) / whole


def _row(name: str, values: list[float | None], layout: _Layout) -> _Row:
    total = (values[layout.total] or 0.0) * layout.scale
    count = values[layout.count] if layout.count is not None else None
    avg = values[layout.avg] if layout.avg is not None else None
    return _Row(
        name=name,
        total_ns=total,
        pct=values[layout.pct],
        count=int(count) if count is not None else None,
        avg_ns=avg * layout.scale if avg is not None else None,
    )


def _share(table: _Table, pick: Callable[[str], bool]) -> float | None:
    """Share of the report's time in the rows ``pick`` selects; for a cut table that shows
    none of them, only when the rows shown hold (nearly) all of the time, since the rows
    missing could be the very ones asked about."""
    total = table.total_ns()
    if not total:
        return None
    chosen = [row for row in table.rows if pick(row.name)]
    if not chosen and table.cut and _covered_pct(table) < _COMPLETE_PCT:
        return None
    share = sum(row.total_ns for row in chosen) / total
    return round(min(max(share, 0.0), 1.0), 4)


def _first(tables: list[_Table], kind: str, problems: list[str]) -> _Table | None:
    found = [table for table in tables if table.kind == kind]
    if len(found) > 1:
        problems.append(f"{len(found) - 1} more {kind} table(s) in the paste: read the first")
    if found and found[0].cut:
        report = _GPU_SUM if found[0].whole_ns is not None else kind
        cut = f"{report} table cut short: shares taken against its Time (%) column"
        if cut not in problems:
            problems.append(cut)
    return found[0] if found else None


def parse_nsys_stats(text: str) -> ParseResult:
    """Read the CUDA API, GPU kernel and GPU memory-time summaries of ``nsys stats``."""
    if not isinstance(text, str):
        return ParseResult.unparsed("not text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    tables, problems = _tables(lines)
    result = ParseResult(problems=problems)
    api = _first(tables, _API, result.problems)
    kern = _first(tables, _KERN, result.problems)
    mem = _first(tables, _MEM, result.problems)
    if api is not None:
        result.add("kernels.launch_share", _share(api, lambda n: bool(_LAUNCH.match(n))))
        result.add("cpu.sync_share", _share(api, lambda n: bool(_SYNC.match(n))))
    if kern is not None:
        _add_kernel_facts(result, kern)
    if mem is not None:
        _add_copy_facts(result, mem)
    if kern is not None and mem is not None and kern.whole_ns and kern.whole_ns == mem.whole_ns:
        mem_part = sum(row.total_ns for row in mem.rows)
        shown = sum(row.total_ns for row in (*kern.rows, *mem.rows)) / kern.whole_ns * 100.0
        if mem.rows or not mem.cut or shown >= _COMPLETE_PCT:  # else hidden below the cut
            result.add("gpu.memcpy_share", round(min(mem_part / kern.whole_ns, 1.0), 4))
    elif kern is not None and mem is not None:
        kern_ns, mem_ns = kern.total_ns(), mem.total_ns()
        if kern_ns is not None and mem_ns is not None and kern_ns + mem_ns > 0:
            result.add("gpu.memcpy_share", round(mem_ns / (kern_ns + mem_ns), 4))
    if not result.facts:
        seen = sorted({table.kind for table in tables})
        if any(kind in _WANTED for kind in seen) or result.problems:  # there, but not readable
            return ParseResult.unparsed("; ".join(result.problems) or "no readable rows")
        found = f" (found: {', '.join(seen)})" if seen else ""
        return ParseResult.unparsed(
            f"no cuda_api_sum, cuda_gpu_kern_sum or cuda_gpu_mem_time_sum table{found}"
        )
    return result


def _add_copy_facts(result: ParseResult, mem: _Table) -> None:
    if mem.whole_ns is None:  # of a cuda_gpu_sum table, the rows' time is of kernels too
        result.add("memcpy.host_share", _share(mem, lambda n: bool(_HOST_COPY.search(n))))
    elif not mem.cut and mem.rows:
        own = sum(row.total_ns for row in mem.rows)
        host = sum(row.total_ns for row in mem.rows if _HOST_COPY.search(row.name))
        if own > 0:
            result.add("memcpy.host_share", round(host / own, 4))
    if mem.cut:
        return
    copies = [row for row in mem.rows if not _MEMSET.search(row.name)]
    if not copies or any(row.count is None for row in copies):
        return
    operations = sum(row.count or 0 for row in copies)
    result.add("memcpy.count", operations)
    if operations > 0:
        mean = sum(row.total_ns for row in copies) / operations / 1e3
        result.add("memcpy.mean_us", round(mean, 3), unit="us")


def _add_kernel_facts(result: ParseResult, kern: _Table) -> None:
    result.add("gpu.nccl_share", _share(kern, lambda n: bool(_NCCL.search(n))))
    if kern.cut:
        result.problems.append(
            "kernel table cut short: kernels.count, mean and short share left out"
        )
        return
    counts = [row.count for row in kern.rows]
    if not counts or any(c is None for c in counts):
        return
    instances = sum(c for c in counts if c is not None)
    result.add("kernels.count", instances)
    if instances <= 0:
        return
    result.add(
        "kernels.mean_us", round(sum(r.total_ns for r in kern.rows) / instances / 1e3, 3), unit="us"
    )
    short = 0
    for row in kern.rows:
        average = row.avg_ns if row.avg_ns is not None else row.total_ns / max(row.count or 1, 1)
        if average < _SHORT_NS:
            short += row.count or 0
    result.add("kernels.short_share", round(short / instances, 4))


def looks_like_nsys_stats(text: str) -> bool:
    """An ``nsys stats`` CUDA API, kernel or memory-time summary is in the text."""
    try:
        if not isinstance(text, str) or "Total Time" not in text:
            return False
        lines = text.replace("\r\n", "\n").split("\n")
        tables, problems = _tables(lines)
        # a report in another locale's numbers is nsys's too: recognised, then refused
        return any(table.kind in _WANTED for table in tables) or any(
            NOT_ENGLISH in problem for problem in problems
        )
    except Exception:  # a guess must never break the caller
        return False


#: the facts it gives as fractions from 0 to 1
_SHARES = (
    "kernels.short_share",
    "kernels.launch_share",
    "cpu.sync_share",
    "gpu.nccl_share",
    "gpu.memcpy_share",
    "memcpy.host_share",
)

PROBE = Probe(
    name="nsys-stats",
    summary="Nsight Systems summaries (nsys stats): launch and sync shares of CUDA API time",
    parse=parse_nsys_stats,
    argv=("nsys", "stats", "--report", "cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum"),
    where=frozenset({"pasted", "local", "ssh"}),
    cost="moderate",
    timeout_s=300.0,
    facts=("kernels.count", "kernels.mean_us", *_SHARES, "memcpy.count", "memcpy.mean_us"),
    stated_facts=(BUSY_SHARE,),
    fractions=(*_SHARES, BUSY_SHARE),
    recognises=looks_like_nsys_stats,
    extra={"argv_note": "append the report file: REPORT.nsys-rep (or .qdrep, .sqlite)"},
)
