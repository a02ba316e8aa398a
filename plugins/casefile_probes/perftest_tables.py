"""perftest's results tables: their columns, their rows, and which unit a table is really in.

A table's header names its columns (``#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]
MsgRate[Mpps]``, with ``#sl`` per service level where a run prints one, four per-port columns under
``--report-per-port``, ``CPU_Util[%]`` under ``--cpu_util``; a latency test's ``t_min``,
``t_max``, ``t_typical``, ``t_avg``, ``t_stdev`` and percentiles, or a duration run's
``t_avg`` and ``tps average``), so each cell is read by its column's name, never by where it
stands.

The unit a bandwidth column names is not always the unit of its figures: the server side
prints the figures the client measured, in the client's unit, under a header in its own (a
client run with ``--report_gbits`` against a server without it prints Gb/s under
``MB/sec``). perftest's own identity tells them apart: bandwidth is message rate times size,
``Gb/s = Mpps × bytes × 8 / 1000``, whatever the layout. A table whose figures fit neither
unit gives no bandwidth at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.fabric import gbps_factor

__all__ = ["Table", "column_names", "settle_unit", "to_gbps"]


def to_gbps(unit: str) -> float:
    """Gb/s in one unit of a bandwidth column perftest prints (``MB/sec``, ``MiB/sec``: 2^20
    bytes; ``Gb/sec``: 10^9 bits), by the one table of such factors."""
    factor = gbps_factor(unit)
    assert factor is not None, unit  # the header pattern admits only these three
    return factor


#: how far printed bandwidth and message rate × size may disagree (the message rate's six
#: decimals, the bandwidth's two) before a table is taken to be in the other unit
_AGREE = 0.05
#: the smallest message rate the check trusts: six decimals keep it within 5 % from 1e-5 Mpps
#: (an 8 MB message at 0.7 Gb/s)
_LEAST_RATE = 1e-5
_COLUMN = re.compile(
    r"#bytes|#sl|#iterations|BW peak|BW average|BW Port[12]|MsgRate Port[12]|MsgRate"
    r"|CPU_Util|t_min|t_max|t_typical|t_avg|t_stdev|99\.9% percentile|99% percentile"
    r"|tps average"
)
#: the longest cell read: a size or a figure, not a run of digits that would overflow
_LONGEST_CELL = 24


def column_names(header: str) -> list[str]:
    """The columns a results header names, in order."""
    return _COLUMN.findall(header)


@dataclass
class Table:
    """One results table: its columns, its rows (size, then each column's figure by name),
    and what the banner above it said."""

    kind: str
    unit: str
    columns: list[str]
    #: printed under ``Local results:`` or ``Remote results:`` (``--report-both``): one
    #: direction of a bidirectional run, not their sum
    one_way: bool = False
    #: from the banner above it, else the command line (None until one says)
    bidirectional: bool | None = False
    dual_port: bool | None = False
    rows: list[tuple[int, dict[str, float]]] = field(default_factory=list)
    cut: int = 0

    def add_row(self, cells: list[str]) -> None:
        """Read one row's cells. A row with fewer cells than columns (cut short), a cell too
        long to be a figure, or a size that is no whole number is counted as cut, not read."""
        if len(cells) < len(self.columns) or any(len(c) > _LONGEST_CELL for c in cells):
            self.cut += 1
            return
        if not cells[0].isdigit():
            self.cut += 1
            return
        figures = {
            name: _float(cell) for name, cell in zip(self.columns[1:], cells[1:], strict=False)
        }
        self.rows.append((int(cells[0]), figures))


def settle_unit(table: Table) -> str | None:
    """The unit ``table``'s bandwidth figures are in: the header's where message rate × size
    agrees with it, the other where that agrees instead, None where neither does. A table
    with no message rate to check keeps its header's."""
    check = [
        (size, figures["BW average"], figures["MsgRate"])
        for size, figures in table.rows
        if size > 0
        and figures.get("MsgRate", 0) >= _LEAST_RATE
        and figures.get("BW average", 0) > 0
    ]
    if not check:
        return table.unit
    size, average, rate = max(check, key=lambda row: row[0] * row[2])
    implied = rate * size * 8 / 1000
    if not implied > 0:
        return table.unit
    other = "Gb/sec" if table.unit != "Gb/sec" else "MB/sec"
    for unit in (table.unit, other):
        if abs(average * to_gbps(unit) / implied - 1) <= _AGREE:
            return unit
    return None


def _float(cell: str) -> float:
    try:
        return float(cell)
    except ValueError:
        return float("nan")
