"""Misreads found in the breadth round over real pasted profiler outputs, each pinned by the
sample that showed it (the goldens hold the whole samples; these say what was wrong).

- nsys: a report pasted to a row boundary, its ``Time (%)`` adding up to well under 100, was
  read as whole, so a kind of call it does not show got a share of 0 (QMCPACK/miniqmc#265).
- torch profiler: the rows of a table pasted without its header line, above its ``Self CPU
  time total`` footer, were left unread, dropping a 77% synchronize share (uccl#684).
- py-spy: a dump pasted from inside a thread's frames counted only the threads below the cut
  as the dump's threads (LMCache#4759).
"""

from __future__ import annotations

from pathlib import Path

from casefile_probes.nsys_stats import parse_nsys_stats
from casefile_probes.py_spy import parse_py_spy
from casefile_probes.torch_profiler import looks_like_torch_profiler, parse_torch_profiler

from .corpus import read_sample

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _facts(result: object) -> dict[str, object]:
    return {fact.name: fact.value for fact in getattr(result, "facts", [])}


# https://github.com/QMCPACK/miniqmc/issues/265 (comment 2021-05-18), the CUDA API table of
# `nsys nvprof` as the search tool's excerpt holds it: two rows, 94.1% of the API time.
MINIQMC_API = (
    "Generating CUDA API Statistics...\n"
    "CUDA API Statistics (nanoseconds)\n"
    "\n"
    "Time(%)      Total Time       Calls         Average         Minimum         Maximum  Name"
    "                                                                            \n"
    "-------  --------------  ----------  --------------  --------------  --------------  "
    "--------------------------------------------------------------------------------\n"
    "   69.4       180806031           1     180806031.0       180806031       180806031  "
    "cuCtxCreate_v2                                                                  \n"
    "   24.7        64331526           1      64331526.0        64331526        64331526  "
    "cuCtxDestroy_v2"
)


def test_nsys_rows_short_of_their_time_column_are_a_cut_table() -> None:
    result = parse_nsys_stats(MINIQMC_API)
    facts = _facts(result)
    # was: kernels.launch_share 0.0 and cpu.sync_share 0.0, from 94.1% of the API time
    assert "kernels.launch_share" not in facts
    assert "cpu.sync_share" not in facts
    assert any("cut short" in problem for problem in result.problems)


def test_nsys_cut_table_still_shares_the_rows_it_shows() -> None:
    text = MINIQMC_API.replace("cuCtxDestroy_v2", "cudaLaunchKernel")
    facts = _facts(parse_nsys_stats(text))
    assert facts["kernels.launch_share"] == round(64331526 / (180806031 / 0.694), 4)
    assert "cpu.sync_share" not in facts


def test_nsys_whole_table_still_gives_zero_for_a_call_it_lacks() -> None:
    text = MINIQMC_API.replace("   69.4  ", "   75.3  ")  # 75.3 + 24.7: the whole report
    facts = _facts(parse_nsys_stats(text))
    assert facts["kernels.launch_share"] == 0.0


def test_torch_profiler_rows_without_header_above_the_footer_are_read() -> None:
    result = parse_torch_profiler(read_sample(GOLDEN / "torch-profiler" / "013.txt"))
    facts = _facts(result)
    # was: only profiler.cpu_time_total_s; the cudaDeviceSynchronize row went unread
    assert facts["cpu.sync_share"] == round((150_485 + 35.851) / 195_526, 4)
    assert facts["profiler.top_op"] == "cudaDeviceSynchronize"
    assert "kernels.launch_share" not in facts  # 77% shown: a launch row may be above the cut
    assert any("without their header" in problem for problem in result.problems)


def test_torch_profiler_headerless_device_rows_read_as_the_ten_value_layout() -> None:
    text = (
        "                                       cudaLaunchKernel        40.00%       4.000ms"
        "        40.00%       4.000ms       4.000us       0.000us         0.00%       0.000us"
        "       0.000us          1000  \n"
        "                                       my_small_kernel         0.00%       0.000us"
        "         0.00%       0.000us       0.000us       2.000ms       100.00%       2.000ms"
        "       2.000us          1000  \n"
        "Self CPU time total: 10.000ms\n"
        "Self CUDA time total: 2.000ms\n"
    )
    facts = _facts(parse_torch_profiler(text))
    assert facts["kernels.launch_share"] == 0.4
    assert facts["kernels.count"] == 1000
    assert facts["kernels.mean_us"] == 2.0
    # its kernel vouches for the device's time, but an operator cut above it could hold more
    # device time of its own than any kernel shown: no top op from rows without their header
    assert "profiler.top_op" not in facts


def test_torch_profiler_headerless_rows_of_no_known_layout_stay_unread() -> None:
    text = "  some log line  with  gaps\nSelf CPU time total: 1.000ms\n"
    result = parse_torch_profiler(text)
    assert _facts(result) == {"profiler.cpu_time_total_s": 0.001}
    assert looks_like_torch_profiler(text)


def test_py_spy_dump_cut_inside_a_thread_gives_no_thread_count() -> None:
    result = parse_py_spy(read_sample(GOLDEN / "py-spy" / "009.txt"))
    facts = _facts(result)
    # was: pyspy.threads 5, the threads below the cut only
    assert "pyspy.threads" not in facts
    assert facts["pyspy.top_function"] == "select (selectors.py:415)"
    assert any("starts inside a thread" in problem for problem in result.problems)


def test_py_spy_dump_from_its_first_thread_still_counts_threads() -> None:
    facts = _facts(parse_py_spy(read_sample(GOLDEN / "py-spy" / "011.txt")))
    assert facts["pyspy.threads"] == 6


def test_torch_profiler_headerless_rows_cut_below_the_top_give_only_the_totals() -> None:
    """The table is sorted largest first: rows holding 18 % of the time, none larger than
    what is unshown, may have lost the rows above them (a synchronize at 70 %), so neither
    shares nor the top op are read from them."""
    text = (
        "                aten::copy_         9.10%      17.790ms        12.00%      23.460ms"
        "       1.173ms            20\n"
        "           cudaLaunchKernel         8.00%      15.642ms         8.00%      15.642ms"
        "       7.821us          2000\n"
        "                 aten::item         1.00%       1.955ms         1.00%       1.955ms"
        "       9.775us           200\n"
        "Self CPU time total: 195.526ms\n"
    )
    result = parse_torch_profiler(text)
    assert _facts(result) == {"profiler.cpu_time_total_s": 0.195526}
    assert any("rows above them may be cut off" in problem for problem in result.problems)


def test_nsys_a_whole_table_with_a_tail_of_rows_under_a_tenth_of_a_percent_is_whole() -> None:
    """Time (%) prints one decimal: 250 rows of 0.0 % hold 10 % of the time, so the column
    adds up to 90 while every row is there; coverage comes from the total times."""
    header = (
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  "
        "StdDev (ns)  Name\n"
        " --------  ---------------  ---------  --------  --------  --------  --------  "
        "-----------  ----\n"
    )
    rows = [
        f"     {pct:.1f}        {pct * 1_000_000:.0f}       1000   {pct * 1000:.1f}   "
        f"{pct * 1000:.1f}     1000     2000        100.0  kern{pct:.0f}"
        for pct in (31.0, 30.0, 29.0)
    ]
    rows += [
        f"      0.0           40000         10    4000.0    4000.0      3000      5000"
        f"         10.0  tiny{k}"
        for k in range(250)
    ]
    text = "** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n\n" + header + "\n".join(rows) + "\n"
    facts = _facts(parse_nsys_stats(text))
    assert facts["kernels.count"] == 5500
    assert facts["kernels.short_share"] == 0.4545
