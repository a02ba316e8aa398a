"""When a PyTorch profiler table's rows cover the whole device time, so that a kind of row it
lacks (no ``Memcpy HtoD``, no NCCL kernel) is absent rather than hidden by a ``row_limit``.

Its ``Self CUDA %`` column counts the device's time twice: an operator (``aten::copy_``,
``aten::mm``) holds as its self CUDA time that of the kernels it launched, and the kernels'
own rows hold it again. Summed over every row it passed 99 % on tables a ``row_limit`` had cut,
and the table was taken as whole. The tables here are the published samples of
``tests/golden/torch-profiler`` (sources in its ``SOURCES``), and the cut ones are made from
them by dropping rows as ``table(row_limit=...)`` drops them, never by editing a sample.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from casefile_probes._profiler_rows import Row, covers_all
from casefile_probes.torch_profiler import parse_torch_profiler

from .corpus import check_result, read_sample

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "torch-profiler"
_HEADER = re.compile(r"^\s*Name\s+Self CPU %")
_RULE = re.compile(r"^\s*-{3,}(?:\s+-{3,})*\s*$")
_CELLS = re.compile(r" {2,}")


def _sample(name: str) -> str:
    return read_sample(GOLDEN / name)


def _facts(text: str) -> dict[str, object]:
    result = parse_torch_profiler(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}


def _body(text: str) -> tuple[list[str], int, int]:
    """The sample's lines and where its rows start and end (between the rule under the header
    and the closing rule)."""
    lines = text.split("\n")
    header = next(i for i, line in enumerate(lines) if _HEADER.match(line))
    start = header + 2
    end = next(i for i in range(start, len(lines)) if _RULE.match(lines[i]))
    return lines, start, end


def _cells(line: str) -> list[str]:
    return _CELLS.split(line.strip())


def _keep(text: str, keep: Callable[[int, list[str]], bool]) -> str:
    """The sample with only the rows ``keep`` (given a row's place and its cells) takes; the
    header, the rules and the footer as they are."""
    lines, start, end = _body(text)
    rows = [line for i, line in enumerate(lines[start:end]) if keep(i, _cells(line))]
    return "\n".join([*lines[:start], *rows, *lines[end:]])


def _dev_pct(cells: list[str]) -> float:
    """A row's Self CUDA % (the 8th cell of the default ten-value layout)."""
    return float(cells[7].rstrip("%"))


def _column_sums(text: str) -> tuple[float, float]:
    """The Self CUDA % column summed over every row, and over the operators' rows only (those
    with host time of their own)."""
    lines, start, end = _body(text)
    rows = [_cells(line) for line in lines[start:end]]
    every = sum(_dev_pct(cells) for cells in rows)
    operators = sum(_dev_pct(cells) for cells in rows if cells[2] != "0.000us")
    return round(every, 2), round(operators, 2)


@pytest.mark.parametrize(
    ("sample", "every", "operators"),
    [("014.txt", 1193.37, 82.45), ("017.txt", 182.03, 91.69), ("018.txt", 190.36, 96.68)],
)
def test_the_self_cuda_column_counts_time_twice(
    sample: str, every: float, operators: float
) -> None:
    """The premise, on the samples: the column passes 100 % over every row of tables whose
    operators' rows alone hold most of the device time (014's GPU-side annotations, such as
    ``ProfilerStep*`` at 416.90 %, add their spans on top)."""
    assert _column_sums(_sample(sample)) == (every, operators)


def test_a_row_limit_that_hides_the_host_copies_gives_no_host_copy_share() -> None:
    """018 (aiter flash attention on ROCm) as ``sort_by="self_cuda_time_total", row_limit=6``
    prints it: the six rows with device time. Its column still sums to 190.36 %, but its
    kernel and copy rows hold 93.68 % of the footer's 5.912 ms: the other 6.32 % (and the
    0.99 % of ``aten::copy_``'s time that its ``Memcpy DtoD`` row does not hold) may be an
    upload, so the split between host and device copies is not known, not "none to the host"."""
    cut = _keep(_sample("018.txt"), lambda _, cells: _dev_pct(cells) > 0)
    assert _column_sums(cut)[0] == 190.36
    facts = _facts(cut)
    assert facts["gpu.memcpy_share"] == 0.0243  # the DtoD row shown, against the footer
    assert "memcpy.host_share" not in facts
    assert "gpu.nccl_share" not in facts


def test_the_published_018_is_itself_cut_by_its_row_limit() -> None:
    """018 was printed with ``row_limit=10`` and shows ten rows: the same 93.68 %."""
    facts = _facts(_sample("018.txt"))
    assert "memcpy.host_share" not in facts and "gpu.nccl_share" not in facts


@pytest.mark.parametrize(("sample", "limit"), [("017.txt", 7), ("018.txt", 9)])
def test_a_row_limit_above_the_copies_gives_no_copy_share(sample: str, limit: int) -> None:
    """017 (an LLM pipeline on a T4) with ``row_limit=7`` loses its ``Memcpy HtoD`` row, 22.2 %
    of the device time in the whole table; 018 with ``row_limit=9`` its ``Memcpy DtoD`` row.
    The rows left sum past 100 % (159.83 %, 187.93 %), and were read as "no copies at all"."""
    cut = _keep(_sample(sample), lambda place, _: place < limit)
    assert _column_sums(cut)[0] > 100.0
    facts = _facts(cut)
    assert "gpu.memcpy_share" not in facts and "memcpy.host_share" not in facts
    assert "gpu.nccl_share" not in facts
    whole = _facts(_sample(sample))["gpu.memcpy_share"]
    assert isinstance(whole, float) and whole > 0  # the whole table has some


def test_the_complete_table_still_gives_its_shares() -> None:
    """015 (RMS norm on ROCm) is whole: its kernel and copy rows sum to 100.00 % and the
    footer's 5.474 ms, so a kind of row it lacks is absent: no upload, no NCCL kernel."""
    facts = _facts(_sample("015.txt"))
    assert facts["memcpy.host_share"] == 0.0
    assert facts["gpu.memcpy_share"] == 0.0799 and facts["gpu.nccl_share"] == 0.0
    # its host rows (hipLaunchKernel, hipMemcpyAsync, hipDeviceSynchronize) hold no device time
    kernels_only = _keep(_sample("015.txt"), lambda _, cells: cells[2] == "0.000us")
    assert _facts(kernels_only)["memcpy.host_share"] == 0.0
    # and without the bottom kernel row, as row_limit=8 prints it, 93.69 % is not whole
    cut = _keep(_sample("015.txt"), lambda place, _: place < 8)
    assert "memcpy.host_share" not in _facts(cut) and "gpu.nccl_share" not in _facts(cut)


def test_a_shown_host_copy_needs_no_whole_table() -> None:
    """017 cut below its ``Memcpy HtoD`` row (row_limit=8) still has its upload to weigh."""
    cut = _keep(_sample("017.txt"), lambda place, _: place < 8)
    assert _facts(cut)["memcpy.host_share"] == 1.0


def test_gpu_side_annotations_are_no_coverage() -> None:
    """014 (a Lightning run) has GPU-side annotation rows without host time, ``ProfilerStep*``
    at 416.90 % among them: they span kernels rather than add to them, so its rows without
    host time sum to 1110.92 % and say nothing of the kernels a ``row_limit`` cut (its
    operators hold 82.45 %, its only kernel row, the upload, 57.47 %)."""
    facts = _facts(_sample("014.txt"))
    assert "gpu.nccl_share" not in facts
    assert facts["memcpy.host_share"] == 1.0 and facts["gpu.memcpy_share"] == 0.5747


def test_operators_alone_show_no_kind_of_device_row() -> None:
    """003 (torch.square) lists operators only, their self CUDA times summing to 100 %, and no
    kernel row, not even aten::pow's: a copy would not have had a ``Memcpy`` row either, so
    lacking one is no sign of none. Its host column is whole and its host shares stand."""
    facts = _facts(_sample("003.txt"))
    assert "gpu.memcpy_share" not in facts and "gpu.nccl_share" not in facts
    assert facts["cpu.sync_share"] == 0.918 and facts["kernels.launch_share"] == 0.0108


def _rows(*cells: tuple[str, float | None, float]) -> list[Row]:
    return [Row(name=n, self_cpu_us=cpu, self_dev_pct=dev) for n, cpu, dev in cells]


def test_covers_all_counts_each_device_microsecond_once() -> None:
    """On paper: an operator and the kernel it launched hold the same 60 %, a copy and the
    ``aten::copy_`` that made it the same 40 %."""
    whole = _rows(
        ("aten::mm", 10.0, 60.0),
        ("volta_sgemm_128x64_nn", 0.0, 60.0),
        ("aten::copy_", 5.0, 40.0),
        ("Memcpy DtoD (Device -> Device)", 0.0, 40.0),
    )
    assert covers_all(whole)
    assert not covers_all(whole[:3])  # the copy's row cut: 160 % over every row, 60 % its own
    assert not covers_all([whole[0], whole[2]])  # operators alone


def test_rows_without_host_time_given_are_summed_whole_up_to_100() -> None:
    """Where no host time says which rows are operators, every row is summed, and a sum past
    100 % can only mean time counted twice: not known to be whole."""
    assert covers_all(_rows(("k1", None, 70.0), ("k2", None, 30.0)))
    assert not covers_all(_rows(("aten::mm", None, 60.0), ("k1", None, 60.0), ("k2", None, 40.0)))
