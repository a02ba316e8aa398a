"""Rows of a PyTorch profiler table and the shares read from them: which rows are memory
operations, which of those cross between host and device, and when a kind of row the table does
not show is absent rather than hidden by a ``row_limit`` (:mod:`casefile_probes.torch_profiler`
reads the table; this module weighs its rows)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MEMCPY = re.compile(r"^(?:Memcpy|Memset)(?:\s|$)", re.IGNORECASE)
#: a copy between host and device memory, as CUDA names it ("Memcpy HtoD (Pageable -> Device)",
#: "Memcpy DtoH (Device -> Pinned)", "Memcpy HtoA") and as an XPU does ("Memcpy H2D", "Memcpy
#: M2D (MEMORY(Unknown) -> DEVICE)")
HOST_COPY = re.compile(r"^Memcpy\s+(?:HtoD|DtoH|HtoA|AtoH|H2D|D2H|M2D|D2M)\b", re.IGNORECASE)
#: a memory operation that stays on the device: a copy between its buffers or to another GPU,
#: a memset
DEVICE_OPERATION = re.compile(
    r"^(?:Memcpy\s+(?:DtoD|PtoP|DtoA|AtoD|AtoA|D2D|P2P)\b|Memset(?:\s|$))", re.IGNORECASE
)

# A share is 0 for a kind of row the table lacks only when the rows shown cover this much.
COMPLETE_PCT = 99.0
# ... and no more than this: a column summing past 100 % (beyond the rounding of its cells)
# counts some time twice, so how much of the whole it covers cannot be told.
COUNTED_TWICE_PCT = 101.0


@dataclass(slots=True)
class Row:
    name: str
    self_cpu_us: float | None = None
    self_cpu_pct: float | None = None
    self_dev_us: float | None = None
    self_dev_pct: float | None = None
    calls: int | None = None


def share(
    rows: list[Row],
    pick: Callable[[str], bool],
    time_of: Callable[[Row], float | None],
    pct_of: Callable[[Row], float | None],
    total_us: float | None,
    *,
    device: bool,
) -> float | None:
    """Share of a total in the rows ``pick`` selects: by time against the footer's total, else
    by the percentage column; 0 for none only when the rows shown cover the whole total
    (:func:`covers_all`, of the device's time where ``device``, else of the host's)."""
    chosen = [row for row in rows if pick(row.name)]
    times = [time_of(row) for row in chosen]
    pcts = [pct_of(row) for row in chosen]
    found: float | None = None
    if chosen and total_us and all(t is not None for t in times):
        found = sum(t for t in times if t is not None) / total_us
    elif chosen and all(p is not None for p in pcts):
        found = sum(p for p in pcts if p is not None) / 100.0
    elif not chosen and covers_all(rows, device=device):
        found = 0.0
    if found is None:
        return None
    return round(min(max(found, 0.0), 1.0), 4)


def host_copy_share(rows: list[Row]) -> float | None:
    """Share of the memory operations' device time in copies between host and device (by
    time, else by the % column): a memory-operation share made of copies on the device (a
    tensor made contiguous, a cache moved) is no transfer over the link. None where a memory
    row's direction is not known, and where no host copy is shown but the rows shown do not
    cover the whole device time (a ``row_limit`` may have hidden one)."""
    operations = [row for row in rows if MEMCPY.match(row.name)]
    if any(not (HOST_COPY.match(r.name) or DEVICE_OPERATION.match(r.name)) for r in operations):
        return None
    if not any(HOST_COPY.match(row.name) for row in operations) and not covers_all(rows):
        return None
    for times in (
        [row.self_dev_us for row in operations],
        [row.self_dev_pct for row in operations],
    ):
        known = [t for t in times if t is not None]
        if operations and len(known) == len(times) and sum(known) > 0:
            pairs = zip(operations, known, strict=True)
            host = sum(t for row, t in pairs if HOST_COPY.match(row.name))
            return round(min(max(host / sum(known), 0.0), 1.0), 4)
    return None


def covers_all(rows: list[Row], *, device: bool = True) -> bool:
    """Whether the rows shown account for (nearly) all of the device's self time (of the
    host's, where not ``device``), by their % column: only then is a kind of row they lack
    absent, not hidden by a ``row_limit``.

    Each microsecond must be counted once. Self CPU time is a row's own, so the host's column
    sums to 100 % over the whole table. The device's does not: an operator's self device time
    (``aten::copy_``, ``aten::mm``) is that of the kernels and copies it launched, and their
    own rows (``Memcpy HtoD …``, ``volta_sgemm…``) hold it again, so a whole table sums to
    about 200 % and one cut by a ``row_limit`` can still pass 100 %. So only the rows of the
    device's own activity are summed (:func:`counted_once`); a table of operators alone (its
    kernels cut below it, or a profiler that timed operators and listed no kernel) covers
    none of it, since the kinds of row asked about are kernels and copies. Where some row's
    host time is not given, operators cannot be told from kernels and every row is summed.
    Either way a sum past :data:`COUNTED_TWICE_PCT` counts time twice (a GPU-side annotation
    such as ``ProfilerStep*`` spans the kernels under it) and cannot say what is missing."""
    counted = counted_once(rows, device=device)
    known = [p for p in counted if p is not None]
    return (
        bool(known)
        and len(known) == len(counted)
        and COMPLETE_PCT <= sum(known) <= COUNTED_TWICE_PCT
    )


def counted_once(rows: list[Row], *, device: bool) -> list[float | None]:
    """The cells of a % column (the device's where ``device``, else the host's) that hold each
    microsecond once: every row's self CPU %; on the device, the self device % of the rows of
    its own activity only (:func:`_on_device`), since an operator's repeats its kernels', and
    of every row where some row's host time is not given. Whatever weighs how much of the
    table a paste shows (:func:`covers_all`, and whether rows pasted without their header are
    its top, in :mod:`casefile_probes.torch_profiler`) sums these, so both count alike."""
    if not device:
        return [row.self_cpu_pct for row in rows]
    kinds = [_on_device(row) for row in rows]
    own = [row for row, kind in zip(rows, kinds, strict=True) if kind]
    return [row.self_dev_pct for row in (rows if None in kinds else own)]


def _on_device(row: Row) -> bool | None:
    """Whether a row is the device's own activity (a kernel, a copy, a memset: the table gives
    it no host time at all) rather than an operator; None where its host time is not given,
    or is given only as a % that rounds a small operator's time to 0.00 %."""
    if row.self_cpu_us is not None:
        return row.self_cpu_us == 0
    if row.self_cpu_pct:
        return False
    return None


def top_op(rows: list[Row]) -> str | None:
    """The row name (summed over input shapes) with the most device self time, else host."""
    for attr in ("self_dev_us", "self_cpu_us"):
        totals: dict[str, float] = {}
        for row in rows:
            value = getattr(row, attr)
            if value is not None:
                totals[row.name] = totals.get(row.name, 0.0) + value
        if totals and max(totals.values()) > 0:
            return max(totals, key=lambda name: totals[name])
    return None
