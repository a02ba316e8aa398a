"""``prof.key_averages().table(...)``: the PyTorch profiler's summary table, read for where the
host's time goes while a single GPU waits for it.

A slow single-GPU step is often not the GPU's fault: the host spends its time launching many
small kernels, waiting on a synchronisation (``.item()``, ``cudaStreamSynchronize``) or copying
memory. The table people paste says so in a few rows, and this parser turns those rows into
shares a rule can compare. Facts, all on ``host``:

- ``profiler.cpu_time_total_s``, ``profiler.cuda_time_total_s``: the footer's "Self CPU time
  total" and "Self CUDA time total" (any device: ``Self XPU time total`` counts too), seconds;
  the device's less its GPU-side ``record_function`` annotations where it counts them
  (PyTorch 2.4 and older, :func:`~casefile_probes._profiler_rows.device_total`), so that it
  and the device shares are of kernels and copies;
- ``profiler.gpu_over_cpu``: device self time over host self time;
- ``kernels.launch_share``: share of self CPU time in kernel-launch rows (``cudaLaunchKernel``,
  ``cuLaunchKernel``, ``cudaLaunchKernelExC``, ``hipLaunchKernel``, ``urEnqueueKernelLaunch…``);
- ``kernels.count``: calls of those rows; ``kernels.mean_us``: device self time per launch;
- ``cpu.sync_share``: share of self CPU time in ``cuda…Synchronize``, ``aten::item`` and
  ``aten::_local_scalar_dense`` rows;
- ``gpu.memcpy_share``: share of device self time in ``Memcpy …`` / ``Memset …`` rows;
- ``memcpy.host_share``: the share of those rows' device time in copies between host and
  device (``Memcpy HtoD …``, ``Memcpy DtoH …``) rather than on the device (``Memcpy DtoD``,
  ``Memset``), among the rows shown;
- ``gpu.nccl_share``: share of device self time in rows naming NCCL (``ncclKernel…``,
  ``ncclDevKernel…``; not the ``nccl:all_reduce`` annotation, which repeats its kernels' time);
- ``profiler.top_op`` (str): the row name with the most device self time, else host self time,
  never a GPU-side annotation (``ProfilerStep*``, which spans the kernels under it)
  (from rows pasted without their header only where they are known to hold it);
- ``gpu.busy_share`` only as a stated reading: the table sums kernel time but not the wall time
  it fell in (:mod:`casefile_probes._timeline`).

Shares are fractions (0..1) against the footer's totals, or the ``Self … %`` column where the
footer is missing (a paste cut short). A kind of row the table does not show gets a share of 0
only when the rows shown account for (nearly) all of the time, each microsecond once (on the
device, by the rows of its own activity: an operator's self device time repeats that of the
kernels it launched); otherwise a ``row_limit`` may have hidden it, and no share is given.
Tables from PyTorch before 1.8 (``Self CPU total %`` … ``CUDA total %`` … ``Number of Calls``)
have no self device time: only host facts come from them. Rows are split on runs of two or
more spaces, which every version prints between cells. Rows pasted without their header line
(the paste starts inside the table) are read only above a ``Self CPU time total`` footer and
only when every row fits one of the two default layouts of PyTorch 1.8+ (six values, host only;
ten, with a device), cell by cell, and only where they can be the table's top rows, each
microsecond counted once (:func:`_starts_at_the_top`); else only the footer's totals are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._profiler_rows import (
    COUNTED_TWICE_PCT,
    MEMCPY,
    Row,
    counted_once,
    device_top_shown,
    device_total,
    host_copy_share,
    share,
    top_op,
)
from casefile_probes._software import NOT_PYTORCH
from casefile_probes._timeline import BUSY_SHARE

__all__ = ["PROBE", "looks_like_torch_profiler", "parse_torch_profiler"]

# Header cells, longest first at each position (``Self CPU %`` before ``Self CPU``); the
# device's name is a group, so ``Self XPU`` reads as ``Self CUDA`` does.
_COLUMN = re.compile(
    r"Self CPU total %|Self CPU total|Self CPU Mem|Self CPU %|Self CPU|CPU total %|CPU total"
    r"|CPU time avg|CPU Mem|# of Calls|Number of Calls|Node ID|Input Shapes|Source Location"
    r"|Overload Name|Total \w*FLOPs|Self (?P<dm>\w+) Mem|Self (?P<dp>\w+) %|Self (?P<ds>\w+)"
    r"|(?P<tp>\w+) total %|(?P<tt>\w+) total|(?P<ta>\w+) time avg|(?P<m>\w+) Mem|Name"
)
_HEADER = re.compile(r"^\s*Name\s+(?:Overload Name\s+)?Self CPU(?: total)? %")
_RULE = re.compile(r"^\s*[-=]{3,}(?:\s+[-=]{3,})*\s*$")
_CELL_SPLIT = re.compile(r" {2,}|\t+")
_TIME = re.compile(r"^(-?\d+(?:\.\d+)?)(ns|us|ms|s)$")
_PCT = re.compile(r"^(-?\d+(?:\.\d+)?)%$")
_SCALE_US = {"ns": 0.001, "us": 1.0, "ms": 1000.0, "s": 1_000_000.0}
_FOOTER = re.compile(
    r"^\s*Self (?P<dev>\w+) time total:\s*(?P<value>-?\d+(?:\.\d+)?(?:ns|us|ms|s))"
)
_OLD_DEVICE_FOOTER = re.compile(r"^\s*(?P<dev>\w+) time total:\s*-?\d")

_LAUNCH = re.compile(r"^(?:(?:cuda|cu|hip)\w*Launch\w*Kernel\w*|urEnqueueKernelLaunch\w*)$")
_SYNC = re.compile(
    r"^(?:(?:cuda|cu|hip)\w*Synchronize(?:_v\d+)?|aten::item|aten::_local_scalar_dense)$"
)
_NCCL = re.compile(r"nccl", re.IGNORECASE)


@dataclass(slots=True)
class _Table:
    columns: list[str]
    device: str | None = None
    rows: list[Row] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: whether its top row is known to be shown (rows pasted without their header: only where
    #: the column the top op is read from vouches for them, see :func:`_starts_at_the_top`)
    top_shown: bool = True


def _to_us(cell: str | None) -> float | None:
    match = _TIME.match(cell.strip()) if cell else None
    if match is None:
        return None
    return float(match.group(1)) * _SCALE_US[match.group(2)]


def _to_pct(cell: str | None) -> float | None:
    match = _PCT.match(cell.strip()) if cell else None
    return float(match.group(1)) if match else None


def _to_int(cell: str | None) -> int | None:
    text = cell.strip() if cell else ""
    return int(text) if text.isdigit() else None


def _columns(header: str) -> tuple[list[str], str | None]:
    """The header's columns as kinds (``self_cpu``, ``self_dev_pct``, ``calls`` …) and the
    device they name (``CUDA``, ``XPU``), None for a host-only table."""
    kinds: list[str] = []
    device: str | None = None
    for match in _COLUMN.finditer(header):
        text = match.group(0)
        fixed = {
            "Self CPU total %": "self_cpu_pct",
            "Self CPU %": "self_cpu_pct",
            "Self CPU total": "self_cpu",
            "Self CPU": "self_cpu",
            "# of Calls": "calls",
            "Number of Calls": "calls",
            "Name": "name",
            "Input Shapes": "text",
            "Source Location": "text",
        }
        if text in fixed:
            kinds.append(fixed[text])
        elif match.group("dp") or match.group("ds"):
            device = match.group("dp") or match.group("ds")
            kinds.append("self_dev_pct" if match.group("dp") else "self_dev")
        else:
            other = match.group("tp") or match.group("tt") or match.group("ta")
            if other and other != "CPU" and device is None:
                device = other
            total = match.group("tt") and match.group("tt") != "CPU"
            kinds.append("dev_total" if total else "other")
    return kinds, device


def _cells(line: str, width: int) -> list[str]:
    """A row's cells; a name holding two spaces in a row is put back together."""
    cells = _CELL_SPLIT.split(line.strip())
    if len(cells) > width:
        extra = len(cells) - width
        cells = ["  ".join(cells[: extra + 1]), *cells[extra + 1 :]]
    return cells


def _read_row(line: str, table: _Table) -> Row | None:
    kinds = table.columns
    cells = _cells(line, len(kinds))
    values = dict(zip(kinds, cells, strict=False))
    name = values.get("name", "").strip()
    self_cpu_pct = _to_pct(values.get("self_cpu_pct"))
    if not name or (self_cpu_pct is None and _to_us(values.get("self_cpu")) is None):
        return None
    return Row(
        name=name,
        self_cpu_us=_to_us(values.get("self_cpu")),
        self_cpu_pct=self_cpu_pct,
        self_dev_us=_to_us(values.get("self_dev")),
        self_dev_pct=_to_pct(values.get("self_dev_pct")),
        calls=_to_int(values.get("calls")),
        dev_total_us=_to_us(values.get("dev_total")),
    )


def _read_table(lines: list[str], start: int) -> _Table:
    kinds, device = _columns(lines[start])
    table = _Table(columns=kinds, device=device)
    last_cut = ""
    for line in lines[start + 1 :]:
        if _RULE.match(line):
            if table.rows:
                break
            continue
        if not line.strip():
            if table.rows:
                break
            continue
        if _FOOTER.match(line) or _OLD_DEVICE_FOOTER.match(line) or _HEADER.match(line):
            break
        row = _read_row(line, table)
        if row is None:
            # with_stack=True prints a row's further source lines alone under it
            if not ("text" in kinds and len(_cells(line, len(kinds))) == 1):
                table.problems.append(f"row not read: {line.strip()[:60]!r}")
            continue
        cells = len(_cells(line, len(kinds)))
        needed = max(i for i, kind in enumerate(kinds) if kind != "text") + 1
        last_cut = f"last row cut short ({cells} of {len(kinds)} values)" if cells < needed else ""
        table.rows.append(row)
    if last_cut:
        table.problems.append(last_cut)
    return table


# The two layouts ``table()`` prints by default since PyTorch 1.8 (no memory, shapes or stack
# columns), as kinds, for rows pasted without their header line: host only, and with a device.
_DEFAULT_LAYOUTS: dict[int, list[str]] = {
    7: ["name", "self_cpu_pct", "self_cpu", "other_pct", "other", "other", "calls"],
    11: [
        *("name", "self_cpu_pct", "self_cpu", "other_pct", "other", "other"),
        *("self_dev", "self_dev_pct", "other", "other", "calls"),
    ],
}


def _fits_layout(cells: list[str], kinds: list[str]) -> bool:
    """Every cell of a row is of the kind its column holds (a percentage, a time, a count)."""
    for cell, kind in zip(cells[1:], kinds[1:], strict=True):
        if kind.endswith("pct"):
            ok = _to_pct(cell) is not None
        elif kind == "calls":
            ok = _to_int(cell) is not None
        else:
            ok = _to_us(cell) is not None
        if not ok:
            return False
    return True


def _headerless_table(lines: list[str]) -> _Table | None:
    """Rows pasted without their header (the paste starts inside the table), read as the
    default layout their number of cells matches; None unless every row fits one layout."""
    found: list[tuple[int, str]] = []
    for line in lines:
        if _FOOTER.match(line):
            break
        if not line.strip() or _RULE.match(line):
            continue
        width = len(_CELL_SPLIT.split(line.strip()))
        found.append((width if width in _DEFAULT_LAYOUTS else 0, line))
    widths = {width for width, _ in found}
    if len(widths) != 1 or 0 in widths:
        return None
    kinds = _DEFAULT_LAYOUTS[widths.pop()]
    table = _Table(columns=kinds, device="CUDA" if "self_dev" in kinds else None)
    for _, line in found:
        cells = _cells(line, len(kinds))
        if len(cells) != len(kinds) or not _fits_layout(cells, kinds):
            return None
        row = _read_row(line, table)
        if row is None:
            return None
        table.rows.append(row)
    table.problems.append(
        f"table rows without their header line: read as the default {len(kinds) - 1}-column"
        " layout of PyTorch 1.8+"
    )
    vouching = _starts_at_the_top(table)
    if vouching:
        # the top op is read from device time where any row has some, over every row: only
        # the host's column, which counts every row, vouches for the top row of a host table
        table.top_shown = "host" in vouching and not any(row.self_dev_us for row in table.rows)
        return table
    return _Table(columns=[], problems=table.problems[1:])  # the totals only, and why


def _starts_at_the_top(table: _Table) -> frozenset[str]:
    """Which columns vouch that rows pasted without their header are the top of the table. It is
    sorted largest first (by host or by device time), so a paste that starts inside it has
    lost its largest rows, and its shares and top op would be read from what is left: the
    rows are taken only where, in the self CPU % or the self device % column, the time they
    leave unshown (100 % less the column's sum) is less than the largest shown row, so no row
    above them can be missing (none holding that column's time: the host's column does not
    see a kernel's row, which holds none of it).

    Each microsecond counts once (:func:`counted_once`, as a ``row_limit``'s cut is weighed):
    the device's column is summed over its kernel and copy rows only, since an operator's self
    device time repeats theirs. Summed over every row it passed 100 % with the top rows gone
    (018 without its four top rows: 95.23 %, of which its kernels and copy hold 47.12 %), and
    a column past :data:`COUNTED_TWICE_PCT` (GPU-side annotations such as ``ProfilerStep*``
    spanning the kernels under them) says nothing of what is unshown.

    What this vouches for is each share read by time against its footer's total, or as 0
    where the rows cover the whole (:func:`~casefile_probes._profiler_rows.covers_all`), not
    always the top row: the column that passes may not see the rows that are gone
    (the host's column holds no kernel's time; the device's, counted by kernels, holds no
    operator's own), so such a paste gives a ``profiler.top_op`` only where the host's column,
    which counts every row, vouches for a table without device time. Returns the columns that
    vouch (``host``, ``device``); none: only the footer's totals are read."""
    covered = []
    vouching = set()
    for side, device in (("host", False), ("device", True)):
        shown = [p for p in counted_once(table.rows, device=device) if p is not None]
        if not shown or sum(shown) > COUNTED_TWICE_PCT:
            continue
        if 100.0 - sum(shown) < max(shown):
            vouching.add(side)
        covered.append(sum(shown))
    if not vouching:
        table.problems.append(
            f"table rows without their header line hold {max(covered, default=0.0):.1f} % of"
            " the self time, and rows above them may be cut off: only the totals are read"
        )
    return frozenset(vouching)


def _footers(lines: list[str]) -> tuple[float | None, float | None, str | None]:
    """Self CPU and self device totals (us) from the footer, and an old-style device footer."""
    cpu = dev = None
    old = None
    for line in lines:
        footer = _FOOTER.match(line)
        if footer:
            value = _to_us(footer.group("value"))
            if footer.group("dev") == "CPU":
                cpu = cpu if cpu is not None else value
            elif dev is None:
                dev = value
        elif _OLD_DEVICE_FOOTER.match(line) and not line.lstrip().startswith("Self"):
            old = line.strip()
    return cpu, dev, old


def parse_torch_profiler(text: str) -> ParseResult:
    """Read a ``key_averages().table()`` printout (or just its footer) into host shares."""
    if not isinstance(text, str):
        return ParseResult.unparsed("not text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    headers = [i for i, line in enumerate(lines) if _HEADER.match(line)]
    cpu_us, dev_us, old_footer = _footers(lines[headers[0] :] if headers else lines)
    if not headers and cpu_us is None:
        return ParseResult.unparsed(
            "no profiler table ('Name  Self CPU %  Self CPU …') or 'Self CPU time total' line"
        )
    result = ParseResult()
    table = _read_table(lines, headers[0]) if headers else _Table(columns=[])
    if not headers:  # a paste that starts inside the table, above its footer
        table = _headerless_table(lines) or table
    result.problems.extend(table.problems)
    if len(headers) > 1:
        result.problems.append(
            f"{len(headers) - 1} more profiler table(s) in the paste: read the first"
        )
    rows = table.rows
    has_self_device = "self_dev" in table.columns or "self_dev_pct" in table.columns
    if headers and not has_self_device and table.device is not None:
        result.problems.append(
            f"table without self {table.device} time (PyTorch before 1.8): no device-time facts"
        )
    if old_footer and dev_us is None:
        result.problems.append(f"{old_footer!r} counts nested ops twice: not read")
    if headers and cpu_us is None:
        result.problems.append("no 'Self CPU time total' footer: shares read from the % columns")

    device_rows: list[Row] | None = rows
    if has_self_device and rows:
        device_rows, dev_us, note = device_total(rows, dev_us)
        if note:
            result.problems.append(note)
    result.add("profiler.cpu_time_total_s", _seconds(cpu_us), unit="s")
    result.add("profiler.cuda_time_total_s", _seconds(dev_us), unit="s")
    if cpu_us and dev_us is not None:
        result.add("profiler.gpu_over_cpu", round(dev_us / cpu_us, 4))
    if rows:
        _add_row_facts(
            result,
            device_rows or rows,
            cpu_us,
            dev_us if has_self_device else None,
            has_self_device and device_rows is not None,
        )
        # rows without their header may lack the top row, and so may a table cut short
        if table.top_shown and device_top_shown(table.rows):
            result.add("profiler.top_op", top_op(rows))
        elif table.top_shown:
            result.problems.append(
                "no top op: the table is not sorted by device time, and the device time its "
                "rows leave unshown is more than their largest row's"
            )
    if not result.facts:
        reason = "; ".join(result.problems) or "the table has no rows"
        return ParseResult.unparsed(f"profiler table without readable rows: {reason}")
    return result


def _seconds(us: float | None) -> float | None:
    return None if us is None else round(us / 1_000_000.0, 9)  # the footer prints to 1 ns


def _add_row_facts(
    result: ParseResult,
    rows: list[Row],
    cpu_us: float | None,
    dev_us: float | None,
    has_self_device: bool,
) -> None:
    def cpu_time(row: Row) -> float | None:
        return row.self_cpu_us

    def cpu_pct(row: Row) -> float | None:
        return row.self_cpu_pct

    def dev_time(row: Row) -> float | None:
        return row.self_dev_us

    def dev_pct(row: Row) -> float | None:
        return row.self_dev_pct

    def launch(name: str) -> bool:
        return bool(_LAUNCH.match(name))

    result.add("kernels.launch_share", share(rows, launch, cpu_time, cpu_pct, cpu_us, device=False))
    launches = [row.calls for row in rows if launch(row.name)]
    count = sum(c for c in launches if c is not None) if launches else None
    if launches and None in launches:
        count = None
        result.problems.append("a kernel-launch row without its number of calls")
    result.add("kernels.count", count)
    if count and dev_us is not None:
        result.add("kernels.mean_us", round(dev_us / count, 3), unit="us")
    result.add(
        "cpu.sync_share",
        share(rows, lambda n: bool(_SYNC.match(n)), cpu_time, cpu_pct, cpu_us, device=False),
    )
    if has_self_device:

        def memcpy(name: str) -> bool:
            return bool(MEMCPY.match(name))

        def nccl(name: str) -> bool:
            return bool(_NCCL.search(name)) and not name.lower().startswith("nccl:")

        result.add("gpu.memcpy_share", share(rows, memcpy, dev_time, dev_pct, dev_us, device=True))
        result.add("memcpy.host_share", host_copy_share(rows))
        result.add("gpu.nccl_share", share(rows, nccl, dev_time, dev_pct, dev_us, device=True))


def looks_like_torch_profiler(text: str) -> bool:
    """A profiler table's header or its ``Self CPU time total:`` footer is in the text."""
    try:
        if not isinstance(text, str) or "Self CPU" not in text:
            return False
        return any(_HEADER.match(line) or _FOOTER.match(line) for line in text.splitlines())
    except Exception:  # a guess must never break the caller
        return False


#: the facts it gives as fractions from 0 to 1 (``profiler.gpu_over_cpu`` passes 1)
_SHARES = (
    "kernels.launch_share",
    "cpu.sync_share",
    "gpu.memcpy_share",
    "memcpy.host_share",
    "gpu.nccl_share",
)

PROBE = Probe(
    name="torch-profiler",
    summary="PyTorch profiler table (key_averages().table()): launch, sync and copy shares",
    parse=parse_torch_profiler,
    argv=(),
    where=frozenset({"pasted", "local", "ssh"}),
    cost="moderate",
    facts=(
        "profiler.cpu_time_total_s",
        "profiler.cuda_time_total_s",
        "profiler.gpu_over_cpu",
        "kernels.count",
        "kernels.mean_us",
        *_SHARES,
        "profiler.top_op",
    ),
    stated_facts=(BUSY_SHARE,),
    fractions=(*_SHARES, BUSY_SHARE),
    needs_load=True,
    recognises=looks_like_torch_profiler,
    extra={"argv_note": "pasted: print(prof.key_averages().table(sort_by='self_cuda_time_total'))"},
    not_for=NOT_PYTORCH,
)
