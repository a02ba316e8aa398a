"""Whether rows of a PyTorch profiler table pasted without their header line (the paste starts
inside the table) are its top rows: only then are they read as the table, so that no share or
top op comes from a fragment whose largest rows are gone.

The check weighs the time the rows leave unshown against the largest row shown, in the self CPU
% or the self CUDA % column. The device's column counts time twice: an operator's self CUDA time
(``aten::copy_``, ``aiter::wrapper_fmha_…``) is that of the kernels it launched, whose own rows
hold it again. Summed over every row it passed 100 % with the top rows cut off, and the
fragment was read as the table. The pastes here are the published samples of
``tests/golden/torch-profiler`` (sources in its ``SOURCES``) with their header, the rules above
the rows and some top rows dropped, never edited.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from casefile_probes.torch_profiler import parse_torch_profiler

from .corpus import check_result, read_sample

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "torch-profiler"
_HEADER = re.compile(r"^\s*Name\s+Self CPU %")
_RULE = re.compile(r"^\s*-{3,}(?:\s+-{3,})*\s*$")
_CELLS = re.compile(r" {2,}")
#: what a paste judged not to start at the top still gives: its footer's totals
TOTALS = {"profiler.cpu_time_total_s", "profiler.cuda_time_total_s", "profiler.gpu_over_cpu"}
CUT_OFF = "rows above them may be cut off"


def _headerless(name: str, drop: int) -> str:
    """The sample from its ``drop``-th row on: the lines above the rows (a title, the rules,
    the header) and the ``drop`` rows at the top gone; the closing rule and footer kept."""
    lines = read_sample(GOLDEN / name).split("\n")
    header = next(i for i, line in enumerate(lines) if _HEADER.match(line))
    start = header + 2
    end = next(i for i in range(start, len(lines)) if _RULE.match(lines[i]))
    return "\n".join([*lines[start + drop : end], *lines[end:]])


def _read(text: str) -> tuple[dict[str, object], list[str]]:
    result = parse_torch_profiler(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}, result.problems


def _device_pct_sums(text: str) -> tuple[float, float]:
    """The Self CUDA % column (the 8th cell of the default layout) summed over every row, and
    over the kernel and copy rows only (those with no host time: Self CPU 0.000us)."""
    lines = [line for line in text.split("\n") if not _RULE.match(line)]
    rows = [cells for cells in map(_CELLS.split, map(str.strip, lines)) if len(cells) == 11]
    every = sum(float(cells[7].rstrip("%")) for cells in rows)
    own = sum(float(cells[7].rstrip("%")) for cells in rows if cells[2] == "0.000us")
    return round(every, 2), round(own, 2)


@pytest.mark.parametrize(("drop", "every", "own"), [(4, 95.23, 47.12), (5, 95.23, 47.12)])
def test_a_paste_without_its_top_kernels_is_not_the_table(
    drop: int, every: float, own: float
) -> None:
    """018 (aiter flash attention on ROCm) without its top four rows has lost the backward
    kernel, 46.56 % of the device time and its largest row. Its Self CUDA % column still sums
    to 95.23 %, leaving 4.77 % unshown, less than the 44.69 % of the forward wrapper: it was
    read as the table, top op ``aiter::wrapper_fmha_v3_varlen_fwd``. Its kernel and copy rows
    hold 47.12 %, leaving 52.88 % unshown, more than the largest of them (44.69 %), and its
    host column 2.92 %: rows above may be missing, so only the footer's totals are read."""
    text = _headerless("018.txt", drop)
    assert _device_pct_sums(text) == (every, own)
    facts, problems = _read(text)
    assert set(facts) == TOTALS
    assert any(CUT_OFF in problem and "47.1 %" in problem for problem in problems)


def test_a_paste_below_its_gpu_annotations_is_read_by_its_kernels() -> None:
    """014 (a Lightning run) without its ``ProfilerStep*`` row: its GPU-side annotations
    (``[pl][module]…`` 358.18 %, ``run_training_epoch`` 245.92 %) span the kernels under them,
    so its rows without host time sum to 694.02 %; its host column sums to 1.89 % (a
    ``run_training_epoch`` row holds -45.41 %). It was read as the table, with an annotation
    for its top op. The annotations are no device activity (``row_kinds``): its one copy row
    holds 57.47 %, more than the 42.53 % unshown, so no activity row can be above it, and it
    gives the whole table's device shares; no top op, as the host column does not vouch."""
    text = _headerless("014.txt", 1)
    assert _device_pct_sums(text) == (776.47, 694.02)
    facts, problems = _read(text)
    whole, _ = _read(read_sample(GOLDEN / "014.txt"))
    assert not any(CUT_OFF in problem for problem in problems)
    assert facts["gpu.memcpy_share"] == whole["gpu.memcpy_share"] == 0.5747
    assert "profiler.top_op" not in facts


def test_a_paste_below_its_copy_row_is_not_the_table() -> None:
    """014 from below its ``Memcpy HtoD`` row: what is left holds operators and a GPU-side
    annotation, no device activity, and 0.26 % of the host's time: only the totals are read."""
    facts, problems = _read(_headerless("014.txt", 16))
    assert set(facts) == TOTALS
    assert any(CUT_OFF in problem for problem in problems)


@pytest.mark.parametrize("drop", [0, 1, 2, 3])
def test_operators_cut_above_their_kernel_leave_the_table_readable(drop: int) -> None:
    """018 without up to three top rows, operators whose device time the backward kernel's
    row (46.56 %) still holds: its kernel and copy rows hold 93.68 %, and the 6.32 % unshown
    is less than that kernel, so no row with more device time can be above the paste. The
    device-time facts are those of the whole table read with its header."""
    facts, problems = _read(_headerless("018.txt", drop))
    whole, _ = _read(read_sample(GOLDEN / "018.txt"))
    assert not any(CUT_OFF in problem for problem in problems)
    assert facts["gpu.memcpy_share"] == whole["gpu.memcpy_share"] == 0.0243
    assert "memcpy.host_share" not in facts  # row_limit=10 cut it as it cut the whole table


@pytest.mark.parametrize(("sample", "drop"), [("015.txt", 6), ("017.txt", 3), ("018.txt", 3)])
def test_rows_without_their_header_give_no_top_op(sample: str, drop: int) -> None:
    """The column that vouches for a headerless paste may not see the rows it lost: 015
    without its six top kernel rows is vouched for by its host column (kernels hold no host
    time), 017 without its three top operators by its kernels (an operator's own device time
    is not theirs). The top op read from what is left named a kernel where the whole table's
    is another kernel (015) or an operator (017: ``aten::mm``), so none is given."""
    facts, problems = _read(_headerless(sample, drop))
    whole, _ = _read(read_sample(GOLDEN / sample))
    assert not any(CUT_OFF in problem for problem in problems)
    assert "profiler.top_op" in whole and "profiler.top_op" not in facts


@pytest.mark.parametrize("drop", [0, 3])
def test_a_whole_device_sorted_paste_is_read_by_its_kernels(drop: int) -> None:
    """017 (row_limit=10, sorted by CUDA total) holds 49.92 % of the host's time at most, so
    only its device column can vouch for it: its kernel and copy rows hold 90.34 %, and the
    9.66 % unshown is less than its gemv kernel (68.14 %), with or without the operators above
    that kernel's row."""
    facts, problems = _read(_headerless("017.txt", drop))
    assert not any(CUT_OFF in problem for problem in problems)
    assert facts["gpu.memcpy_share"] == 0.222 and facts["memcpy.host_share"] == 1.0
