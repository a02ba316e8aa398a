"""Rows of a PyTorch profiler table and the shares read from them: which rows are memory
operations, which of those cross between host and device, and when a kind of row the table does
not show is absent rather than hidden by a ``row_limit`` (:mod:`casefile_probes.torch_profiler`
reads the table; this module weighs its rows)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise

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
    #: the device time of the row and all it called (``CUDA total``): what a table sorted by
    #: the device's total is sorted by
    dev_total_us: float | None = None


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
    GPU-side annotations (``ProfilerStep*``, which spans the kernels under it) are left out
    (:func:`row_kinds`). Either way a sum past :data:`COUNTED_TWICE_PCT` counts time twice and
    cannot say what is missing."""
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
    its own activity only (:func:`row_kinds`), since an operator's repeats its kernels' and an
    annotation's spans them, and of every row where some row's host time is not given.
    Whatever weighs how much of the table a paste shows (:func:`covers_all`, and whether rows
    pasted without their header are its top, in :mod:`casefile_probes.torch_profiler`) sums
    these, so both count alike."""
    if not device:
        return [row.self_cpu_pct for row in rows]
    kinds = row_kinds(rows)
    if None in kinds:
        return [
            row.self_dev_pct for row, kind in zip(rows, kinds, strict=True) if kind != ANNOTATION
        ]
    return [row.self_dev_pct for row, kind in zip(rows, kinds, strict=True) if kind == ACTIVITY]


#: what a row is (:func:`row_kinds`)
ACTIVITY, OPERATOR, ANNOTATION = "activity", "operator", "annotation"
#: names that ``record_function`` gives, never a kernel: the profiler's step, the ``## … ##``
#: ranges of the Hugging Face and DeepSpeed examples, NCCL's ``nccl:all_reduce`` and Lightning's
#: ``[pl][profile]…``/``[pl][module]…``
ANNOTATION_NAME = re.compile(r"^(?:ProfilerStep(?:#\d+|\*)$|## |nccl:|\[pl\]\[)")


def row_kinds(rows: list[Row]) -> list[str | None]:
    """What each row is, the one place that says so: the device's own activity (a kernel, a
    copy, a memset: the table gives it no host time), an operator (it has host time), a
    GPU-side annotation, or None where its host time is not given (:func:`_on_device`).

    A ``record_function`` range is listed twice since PyTorch 2.0: once on the host, and once
    on the device with no host time and the span of the kernels it wrapped as its self device
    time, which are also in their own rows. So a row without host time is an annotation, not
    activity, where another row of the same name has host time (``LookupConv2d``,
    ``model_inference``), where its name is one only ``record_function`` gives
    (:data:`ANNOTATION_NAME`), or where its self device % passes :data:`COUNTED_TWICE_PCT`
    (``ProfilerStep*`` at 416.90 %: no one activity can outlast all of them together)."""
    hosted = {row.name for row in rows if _on_device(row) is False}
    kinds: list[str | None] = []
    for row in rows:
        on_device = _on_device(row)
        if on_device is not False and (
            ANNOTATION_NAME.match(row.name)
            or (on_device and row.name in hosted)
            or (on_device and (row.self_dev_pct or 0.0) > COUNTED_TWICE_PCT)
        ):
            kinds.append(ANNOTATION)
        elif on_device is None:
            kinds.append(None)
        else:
            kinds.append(ACTIVITY if on_device else OPERATOR)
    return kinds


def _on_device(row: Row) -> bool | None:
    """Whether a row has no host time at all (a kernel, a copy, a memset, or a GPU-side
    annotation, :func:`row_kinds` tells which) rather than being an operator; None where its
    host time is not given, or is given only as a % that rounds a small operator's time to
    0.00 %."""
    if row.self_cpu_us is not None:
        return row.self_cpu_us == 0
    if row.self_cpu_pct:
        return False
    return None


def device_total(
    rows: list[Row], total_us: float | None
) -> tuple[list[Row] | None, float | None, str | None]:
    """The rows, with their self device % against the device's own time, and that time (us):
    the footer's, less the GPU-side annotations' where it counts them; and a problem line.

    Before pytorch/pytorch#130730 (PyTorch 2.4 and older) the footer's self device total and
    the % column added the annotations' spans (:func:`row_kinds`) to the kernels' time, so a
    table with them overstated its device time (LCNN-pytorch's README: 38.076 ms, of which
    25.350 ms is ``LookupConv2d`` and ``Conv2d`` annotations). Which kind a table is shows in
    its % column: a total that holds the annotations has every no-host-time row inside it,
    and those rows sum to 100 % at most; a total without them puts an annotation spanning the
    kernels at about 100 % by itself, above the kernels' own rows (``ProfilerStep*`` 416.90 %).
    Where they sum to no more than :data:`COUNTED_TWICE_PCT` the total is taken to hold them,
    and their time and % are taken off it (a row_limit that cut most kernels under a small
    annotation could pass too; the error is then at most that annotation's share). Where a
    value needed for this is not printed, the device's time cannot be told: no rows (None)
    and no total are returned, and no device-time share is to be read."""
    kinds = row_kinds(rows)
    marks = [row for row, kind in zip(rows, kinds, strict=True) if kind == ANNOTATION]
    own = [row for row, kind in zip(rows, kinds, strict=True) if kind == ACTIVITY]
    if not marks:
        return rows, total_us, None
    pcts = [row.self_dev_pct for row in marks + own]
    if None in pcts:
        return None, None, "GPU-side annotation rows without a self device %: no device time read"
    if sum(p for p in pcts if p is not None) > COUNTED_TWICE_PCT:
        return rows, total_us, None  # PyTorch 2.5+: the footer counts the kernels alone
    spans = [row.self_dev_us for row in marks]
    base = 100.0 - sum(row.self_dev_pct or 0.0 for row in marks)
    if base <= 0:
        return None, None, "GPU-side annotations hold the whole device total: no device time read"
    if total_us is not None and None in spans:
        return None, None, "GPU-side annotation rows without a self device time: none read"
    scaled = [
        row
        if row.self_dev_pct is None
        else replace(row, self_dev_pct=row.self_dev_pct * 100 / base)
        for row in rows
    ]
    names = ", ".join(sorted({row.name for row in marks}))
    if total_us is None:
        return scaled, None, f"the % column counts GPU-side annotations ({names}): left out"
    kept = total_us - sum(t for t in spans if t is not None)
    return (
        scaled,
        kept,
        f"the device total counts GPU-side annotations ({names}):"
        f" read as {kept / 1000:.3f}ms, without their {(total_us - kept) / 1000:.3f}ms",
    )


def top_op(rows: list[Row]) -> str | None:
    """The row name (summed over input shapes) with the most device self time, else host; a
    GPU-side annotation (:func:`row_kinds`) spans the kernels under it and is no op."""
    kinds = row_kinds(rows)
    for attr in ("self_dev_us", "self_cpu_us"):
        totals: dict[str, float] = {}
        for row, kind in zip(rows, kinds, strict=True):
            value = getattr(row, attr)
            if value is not None and kind != ANNOTATION:
                totals[row.name] = totals.get(row.name, 0.0) + value
        if totals and max(totals.values()) > 0:
            return max(totals, key=lambda name: totals[name])
    return None


#: rows of device time in descending order that show a table sorted by it
SORTED_ROWS = 3


def device_top_shown(rows: list[Row]) -> bool:
    """Whether the row with the most device time is among those shown, where any row has some
    (the top op is read from that column): the table is sorted by it, largest first (three
    rows or more of device time in that order, so that chance is not taken for a sort); or it
    is sorted by the device's total and its top row's own time is at least the last row's
    total; or the device time the shown rows leave unshown (counted once) is less than their
    largest. A table sorted by host time lists operators first and the kernels, which hold no
    host time, further down: cut after a few rows (a ``row_limit``, with its footer, or a
    paste that stops), the top op read from it was whichever operator came first (an
    ``aten::matmul`` at 9.65 % of device time, with 68 % of it unshown)."""
    device = [row.self_dev_us for row in rows]
    if not any(device):
        return True
    times = [us for us in device if us]  # a row of host time alone sorts anywhere
    if len(times) >= SORTED_ROWS and all(a >= b for a, b in pairwise(times)):
        return True
    totals = [row.dev_total_us for row in rows]
    if None not in totals and all(a >= b for a, b in pairwise(totals)):  # type: ignore[operator]
        # sorted by the device's total: no row below the last shown has more device time of
        # its own than that row's total, so a top row at least as long is the top
        return max(times) >= (totals[-1] or 0.0)
    shown = [pct for pct in counted_once(rows, device=True) if pct is not None]
    if not shown:  # no kernel rows: each operator's self device time is its kernels', once
        shown = [row.self_dev_pct for row in rows if row.self_dev_pct is not None]
    return bool(shown) and 100.0 - sum(shown) < max(shown)
