"""Hand-written cases for the torch-profiler and nsys-stats parsers (py-spy's are in
``test_py_spy_hand.py``): each share computed from a small table whose answer can be checked on
paper, and each rule of thumb the module docstrings state (what counts, what is left out, when
a share is 0 and when it is not given)."""

from __future__ import annotations

import time

import pytest
from casefile_probes.nsys_stats import looks_like_nsys_stats, parse_nsys_stats
from casefile_probes.py_spy import parse_py_spy
from casefile_probes.torch_profiler import parse_torch_profiler

from casefile.domain.facts import ParseResult

from .corpus import check_result

_COLUMNS = (
    "Self CPU %",
    "Self CPU",
    "CPU total %",
    "CPU total",
    "CPU time avg",
    "Self {d}",
    "Self {d} %",
    "{d} total",
    "{d} time avg",
    "# of Calls",
)


def _table(rows: list[tuple[str, ...]], footer: tuple[str, ...] = (), device: str = "CUDA") -> str:
    """A table laid out as ``key_averages().table()`` lays it out: a right-aligned name column,
    12-wide right-aligned cells, two spaces between, dashed rules around the header."""
    header = ["Name", *(c.format(d=device) for c in _COLUMNS)]
    rule = "  ".join(["-" * 40] + ["-" * 12] * (len(header) - 1))

    def line(cells: tuple[str, ...] | list[str]) -> str:
        return "  ".join([f"{cells[0]:>40}", *(f"{c:>12}" for c in cells[1:])])

    body = [rule, line(header), rule, *(line(r) for r in rows), rule, *footer]
    return "\n".join(body) + "\n"


def _row(
    name: str, self_cpu: str, cpu_pct: str, self_dev: str, dev_pct: str, calls: str
) -> tuple[str, ...]:
    return (
        name,
        cpu_pct,
        self_cpu,
        cpu_pct,
        self_cpu,
        self_cpu,
        self_dev,
        dev_pct,
        self_dev,
        self_dev,
        calls,
    )


ROWS = [
    _row("aten::mm", "100.000us", "10.00%", "600.000us", "60.00%", "10"),
    _row("cudaLaunchKernel", "300.000us", "30.00%", "0.000us", "0.00%", "40"),
    _row("cudaStreamSynchronize", "500.000us", "50.00%", "0.000us", "0.00%", "2"),
    _row("aten::item", "100.000us", "10.00%", "0.000us", "0.00%", "2"),
    _row("Memcpy DtoH (Device -> Pageable)", "0.000us", "0.00%", "100.000us", "10.00%", "2"),
    _row("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "0.000us", "0.00%", "200.000us", "20.00%", "4"),
    _row("nccl:all_reduce", "0.000us", "0.00%", "200.000us", "20.00%", "4"),
    _row("Memset (Device)", "0.000us", "0.00%", "100.000us", "10.00%", "1"),
]
FOOTER = ("Self CPU time total: 1.000ms", "Self CUDA time total: 1.000ms")
#: the row of the kernel an ``aten::mm`` launched: no host time, the operator's device time
GEMM = "volta_sgemm_128x64_nn"


def _values(result: ParseResult) -> dict[str, object]:
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}


def test_torch_shares_against_the_footer() -> None:
    """With the kernel of ``aten::mm`` shown, the rows without host time sum to 120 %: the
    footer (PyTorch 2.5+) holds the kernels and copies alone, not the ``nccl:all_reduce``
    annotation, and is read as it is (without that row the table could be one of PyTorch 2.4
    or older, whose footer holds the annotation: ``test_torch_profiler_annotations``)."""
    gemm = _row(GEMM, "0.000us", "0.00%", "600.000us", "60.00%", "10")
    facts = _values(parse_torch_profiler(_table([*ROWS, gemm], FOOTER)))
    assert facts["kernels.launch_share"] == 0.3
    assert facts["cpu.sync_share"] == 0.6  # cudaStreamSynchronize and aten::item
    assert facts["kernels.count"] == 40
    assert facts["kernels.mean_us"] == 25.0  # 1 ms of device time over 40 launches
    assert facts["gpu.memcpy_share"] == 0.2  # Memcpy and Memset rows
    assert facts["memcpy.host_share"] == 0.5  # the DtoH copy of those, not the memset
    assert facts["gpu.nccl_share"] == 0.2  # the kernel, not the nccl:all_reduce annotation
    assert facts["profiler.cpu_time_total_s"] == 0.001
    assert facts["profiler.gpu_over_cpu"] == 1.0
    assert facts["profiler.top_op"] == "aten::mm"


@pytest.mark.parametrize(
    ("names", "host_share"),
    [
        (("Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pinned)"), 1.0),
        (("Memcpy HtoD (Pinned -> Device)", "Memcpy DtoD (Device -> Device)"), 0.25),
        (("Memcpy DtoD (Device -> Device)", "Memset (Device)"), 0.0),
        (("Memcpy PtoP (Device -> Device)", "Memset (Unknown)"), 0.0),
    ],
)
def test_torch_host_copies_against_copies_on_the_device(
    names: tuple[str, str], host_share: float
) -> None:
    """A device-to-device copy or a memset moves nothing over the link: the share of the
    memory rows' device time in copies between host and device, 100 µs against 300 µs. The
    operator's 600 µs is its kernel's, which has its own row, as the profiler prints it."""
    rows = [
        _row("aten::mm", "100.000us", "50.00%", "600.000us", "60.00%", "10"),
        _row(GEMM, "0.000us", "0.00%", "600.000us", "60.00%", "10"),
        _row(names[0], "0.000us", "0.00%", "100.000us", "10.00%", "2"),
        _row(names[1], "0.000us", "0.00%", "300.000us", "30.00%", "2"),
    ]
    facts = _values(parse_torch_profiler(_table(rows, FOOTER)))
    assert facts["gpu.memcpy_share"] == 0.4
    assert facts["memcpy.host_share"] == host_share


@pytest.mark.parametrize(
    ("names", "host_share"),
    [
        # an Intel XPU names its copies H2D, D2H, M2D and D2M
        (("Memcpy M2D (MEMORY(Unknown) -> DEVICE)", "Memcpy D2D"), 0.25),
        (("Memcpy H2D", "Memset (Device)"), 0.25),
        # a copy into a CUDA array from the host crosses the link too
        (("Memcpy HtoA (Pageable -> Array)", "Memcpy DtoD (Device -> Device)"), 0.25),
        # a memory row whose direction is not known: no share, not "on the device"
        (("Memcpy HtoD (Pageable -> Device)", "Memcpy XtoY (Unknown)"), None),
    ],
)
def test_torch_copy_directions_as_each_device_names_them(
    names: tuple[str, str], host_share: float | None
) -> None:
    rows = [
        _row("aten::mm", "100.000us", "50.00%", "600.000us", "60.00%", "10"),
        _row(names[0], "0.000us", "0.00%", "100.000us", "10.00%", "2"),
        _row(names[1], "0.000us", "0.00%", "300.000us", "30.00%", "2"),
    ]
    facts = _values(parse_torch_profiler(_table(rows, FOOTER)))
    assert facts.get("memcpy.host_share") == host_share


def test_torch_host_copies_hidden_by_a_row_limit_are_not_taken_for_none() -> None:
    """Rows without host time (kernels, copies) covering 70 % of the device time, a device
    copy among them: an upload may be in the rows a ``row_limit`` left out, so no split is
    given rather than "all on the device". The operator's 60 % is its kernel's again, and
    counts once."""
    rows = [
        _row("aten::mm", "100.000us", "50.00%", "600.000us", "60.00%", "10"),
        _row(GEMM, "0.000us", "0.00%", "600.000us", "60.00%", "10"),
        _row("Memcpy DtoD (Device -> Device)", "0.000us", "0.00%", "100.000us", "10.00%", "2"),
    ]
    facts = _values(parse_torch_profiler(_table(rows, FOOTER)))
    assert facts["gpu.memcpy_share"] == 0.1 and "memcpy.host_share" not in facts
    whole = [*rows, _row("elementwise_kernel", "0.000us", "0.00%", "300.000us", "30.00%", "1")]
    assert _values(parse_torch_profiler(_table(whole, FOOTER)))["memcpy.host_share"] == 0.0


def test_torch_without_memory_rows_gives_no_host_copy_share() -> None:
    facts = _values(parse_torch_profiler(_table(ROWS[:4], FOOTER)))
    assert "memcpy.host_share" not in facts


def test_torch_without_footer_reads_the_percent_columns() -> None:
    rows = [_row("cudaLaunchKernel", "3.000ms", "37.50%", "0.000us", "0.00%", "9")]
    result = parse_torch_profiler(_table(rows))
    facts = _values(result)
    assert facts["kernels.launch_share"] == 0.375
    assert "profiler.cpu_time_total_s" not in facts and "kernels.mean_us" not in facts
    assert any("Self CPU time total" in problem for problem in result.problems)


def test_torch_absent_rows_are_zero_only_when_the_table_is_whole() -> None:
    whole = [
        _row("aten::mm", "1.000ms", "100.00%", "1.000ms", "100.00%", "1"),
        _row(GEMM, "0.000us", "0.00%", "1.000ms", "100.00%", "1"),
    ]
    facts = _values(parse_torch_profiler(_table(whole, FOOTER)))
    assert facts["cpu.sync_share"] == 0.0 and facts["gpu.nccl_share"] == 0.0
    assert facts["kernels.launch_share"] == 0.0
    part = [_row("aten::mm", "500.000us", "50.00%", "500.000us", "50.00%", "1")]
    facts = _values(parse_torch_profiler(_table(part, FOOTER)))
    assert "cpu.sync_share" not in facts and "gpu.nccl_share" not in facts  # row_limit?


def test_torch_any_device_and_launch_call() -> None:
    rows = [
        _row("hipLaunchKernel", "250.000us", "25.00%", "0.000us", "0.00%", "5"),
        _row("cudaGraphLaunch", "250.000us", "25.00%", "0.000us", "0.00%", "5"),
        _row("aten::addmm", "500.000us", "50.00%", "2.000ms", "100.00%", "5"),
    ]
    footer = ("Self CPU time total: 1.000ms", "Self XPU time total: 2.000ms")
    facts = _values(parse_torch_profiler(_table(rows, footer, device="XPU")))
    assert facts["profiler.cuda_time_total_s"] == 0.002
    assert facts["kernels.launch_share"] == 0.25  # a graph replay is not a kernel launch
    assert facts["kernels.mean_us"] == 400.0


def test_torch_footer_alone() -> None:
    facts = _values(
        parse_torch_profiler("Self CPU time total: 2.314ms\nSelf CUDA time total: 23.104us\n")
    )
    assert facts == {
        "profiler.cpu_time_total_s": 0.002314,
        "profiler.cuda_time_total_s": 2.3104e-05,
        "profiler.gpu_over_cpu": 0.01,
    }


def test_torch_old_table_gives_host_facts_only() -> None:
    text = (
        "Name              Self CPU total %  Self CPU total   CPU total %      CPU total        "
        "CPU time avg     CUDA total %     CUDA total       CUDA time avg    Number of Calls\n"
        "aten::item        60.00%            6.000ms          60.00%           6.000ms          "
        "1.000ms          10.00%           1.000ms          1.000ms          6\n"
        "aten::mm          40.00%            4.000ms          40.00%           4.000ms          "
        "4.000ms          90.00%           9.000ms          9.000ms          1\n"
        "Self CPU time total: 10.000ms\nCUDA time total: 10.000ms\n"
    )
    result = parse_torch_profiler(text)
    facts = _values(result)
    assert facts["cpu.sync_share"] == 0.6 and facts["profiler.top_op"] == "aten::item"
    assert "gpu.memcpy_share" not in facts and "profiler.cuda_time_total_s" not in facts
    assert any("before 1.8" in problem for problem in result.problems)
    assert any("counts nested ops twice" in problem for problem in result.problems)


def test_torch_top_op_sums_rows_of_one_name() -> None:
    rows = [
        _row("aten::addmm", "1.000us", "0.10%", "300.000us", "30.00%", "1"),
        _row("aten::addmm", "1.000us", "0.10%", "300.000us", "30.00%", "1"),
        _row("aten::bmm", "1.000us", "0.10%", "400.000us", "40.00%", "1"),
    ]
    assert _values(parse_torch_profiler(_table(rows)))["profiler.top_op"] == "aten::addmm"


def test_torch_not_a_table() -> None:
    for text in ("", "Self CPU\n", "nvidia-smi\n+-----+\n"):
        result = parse_torch_profiler(text)
        check_result(result)
        assert not result.parsed
    assert not parse_torch_profiler(None).parsed  # type: ignore[arg-type]


API = """\
 ** CUDA API Summary (cuda_api_sum):

 Time (%)  Total Time (ns)  Num Calls   Avg (ns)   StdDev (ns)  Name
 --------  ---------------  ---------  ---------  -----------  ----
     50.0          500,000        100    5,000.0          0.0  cudaLaunchKernel_v7000
     20.0          200,000         10   20,000.0          0.0  cuLaunchKernelEx
     20.0          200,000          2  100,000.0          0.0  cudaStreamSynchronize_v3020
     10.0          100,000          1  100,000.0          0.0  cudaGraphLaunch_v10000
"""

KERN_CSV = """\
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
75.0,750000,5,150000.0,150000.0,150000,150000,0.0,"ncclDevKernel_AllReduce(ncclDevComm *, int)"
25.0,250000,15,16666.7,16666.0,16000,17000,0.0,"void add<float, 2>(float *, int)"
"""

MEM = """\
 Time (%)  Total Time (ns)  Count   Avg (ns)  StdDev (ns)           Operation
 --------  ---------------  -----  ---------  -----------  ------------------
    100.0        1,000,000      4  250,000.0          0.0  [CUDA memcpy HtoD]
"""


def test_nsys_api_shares() -> None:
    facts = _values(parse_nsys_stats(API))
    assert facts == {"kernels.launch_share": 0.7, "cpu.sync_share": 0.2}


def test_nsys_kernels_from_csv_with_quoted_names_and_the_memory_share() -> None:
    facts = _values(parse_nsys_stats(KERN_CSV + "\n" + MEM))
    assert facts["kernels.count"] == 20
    assert facts["kernels.mean_us"] == 50.0
    assert facts["kernels.short_share"] == 0.75  # 15 of 20 instances average under 20 µs
    assert facts["gpu.nccl_share"] == 0.75
    assert facts["gpu.memcpy_share"] == 0.5
    assert "gpu.memcpy_share" not in _values(parse_nsys_stats(KERN_CSV))


KERNELS_ONLY = """\
 ** CUDA GPU Summary (Kernels/MemOps) (cuda_gpu_sum):

 Time (%)  Total Time (ns)  Instances   Avg (ns)     Med (ns)    Min (ns)   Max (ns)   \
StdDev (ns)   Category                 Operation
 --------  ---------------  ---------  -----------  -----------  ---------  ---------  \
-----------  -----------  ------------------------------------
     60.0        600000          1  600000.0  600000.0  600000  600000          0.0  \
CUDA_KERNEL  add(int, float *, float *)
"""


def test_nsys_combined_report_cut_before_its_memory_rows_gives_no_memory_share() -> None:
    """Kernels holding 60 % of a cuda_gpu_sum table, the rest cut: the memory operations may be
    in the 40 % not shown, so no share, rather than none."""
    cut = parse_nsys_stats(KERNELS_ONLY + " ...\n")
    assert "gpu.memcpy_share" not in _values(cut)
    whole = KERNELS_ONLY.replace("     60.0        600000", "    100.0        600000")
    assert _values(parse_nsys_stats(whole))["gpu.memcpy_share"] == 0.0


def test_nsys_time_unit_from_the_header() -> None:
    text = KERN_CSV.replace("Total Time (ns)", "Total Time (us)").replace("Avg (ns)", "Avg (us)")
    facts = _values(parse_nsys_stats(text))
    assert facts["kernels.mean_us"] == 50_000.0  # the same numbers read as microseconds
    assert facts["kernels.short_share"] == 0.0


def test_nsys_cut_table_keeps_its_shares_and_drops_its_counts() -> None:
    cut_api = API.rsplit("\n", 2)[0] + "\n     10.0          100,0"
    result = parse_nsys_stats(cut_api)
    assert _values(result) == {"kernels.launch_share": 0.7, "cpu.sync_share": 0.2}
    assert any("cut short" in problem for problem in result.problems)
    cut_kern = KERN_CSV.rsplit("\n", 2)[0] + "\n...\n"
    result = parse_nsys_stats(cut_kern)
    facts = _values(result)
    assert facts == {"gpu.nccl_share": 0.75}  # against the 75.0 % row's implied total
    assert any("kernels.count" in problem for problem in result.problems)


def test_nsys_os_runtime_and_nvtx_tables_are_not_read() -> None:
    osrt = API.replace(" ** CUDA API Summary (cuda_api_sum):", "").replace(
        "cudaLaunchKernel_v7000", "poll"
    )
    osrt = osrt.replace("cuLaunchKernelEx", "ioctl").replace("cudaStreamSynchronize_v3020", "read")
    osrt = osrt.replace("cudaGraphLaunch_v10000", "sem_wait")
    result = parse_nsys_stats(osrt)
    check_result(result)
    assert not result.parsed
    nvtx = (
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  "
        "StdDev (ns)   Style   Range\n"
        "    100.0            1,000          1   1,000.0   1,000.0     1,000     1,000  "
        "0.0  PushPop  step\n"
    )
    result = parse_nsys_stats(nvtx)
    assert not result.parsed and "no cuda_api_sum" in result.problems[0]


GPU_SUM = """\
 ** CUDA GPU Summary (Kernels/MemOps) (cuda_gpu_sum):

 Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Category     Operation
 --------  ---------------  ---------  --------  --------  --------  --------  -----------  -----------  ---------
     60.0          600,000         40  15,000.0  15,000.0    15,000    15,000          0.0  CUDA_KERNEL  void add<float>(float *, int)
     20.0          200,000          1 200,000.0 200,000.0   200,000   200,000          0.0  CUDA_KERNEL  ncclDevKernel_AllReduce(ncclDevComm *)
     20.0          200,000          4  50,000.0  50,000.0    50,000    50,000          0.0  MEMORY_OPER  [CUDA memcpy Host-to-Device]
"""  # noqa: E501


def test_nsys_gpu_sum_is_read_as_a_kernel_and_a_memory_table() -> None:
    """cuda_gpu_sum (what nsys_easy prints) puts kernels and memory operations in one table,
    each row's category before its name; its time is of both together."""
    facts = _values(parse_nsys_stats(GPU_SUM))
    assert facts["kernels.count"] == 41
    assert facts["kernels.mean_us"] == round(800.0 / 41, 3)
    assert facts["kernels.short_share"] == round(40 / 41, 4)
    assert facts["gpu.nccl_share"] == 0.25  # of the kernels' 800 µs, not of the whole
    assert facts["gpu.memcpy_share"] == 0.2
    assert looks_like_nsys_stats(GPU_SUM)


def test_nsys_gpu_sum_cut_short_keeps_the_memory_share_only() -> None:
    lines = GPU_SUM.splitlines()
    cut = "\n".join([*lines[:5], lines[6], "     20.0"]) + "\n"  # the NCCL row cut
    result = parse_nsys_stats(cut)
    # the cut row may be of either kind: the parts' own totals are unknown, the whole is not
    assert _values(result) == {"gpu.memcpy_share": 0.2}
    assert "cuda_gpu_sum table cut short: shares taken against its Time (%) column" in (
        result.problems
    )


def test_nsys_the_memory_report_alone_says_how_much_copying_goes_through_the_host() -> None:
    """Copies between host and device against copies on the device: GPU data staged through
    host memory shows from the memory report alone (it once gave no fact, and a message
    saying no memory report was found while naming the one it found)."""
    assert _values(parse_nsys_stats(MEM)) == {
        "memcpy.host_share": 1.0,
        "memcpy.count": 4,
        "memcpy.mean_us": 250.0,
    }
    on_device = MEM.replace("HtoD]", "DtoD]") + (
        "      0.0              100      1      100.0          0.0  [CUDA memcpy DtoH]\n"
    )
    facts = _values(parse_nsys_stats(on_device))
    assert facts["memcpy.host_share"] == round(100 / 1_000_100, 4)
    assert facts["memcpy.count"] == 5
    # in cuda_gpu_sum, of the memory rows' own time (not the kernels'): all four host copies
    gpu_sum = _values(parse_nsys_stats(GPU_SUM))
    assert (gpu_sum["memcpy.host_share"], gpu_sum["memcpy.count"]) == (1.0, 4)
    assert gpu_sum["memcpy.mean_us"] == 50.0
    # a memset is memory time but no copy: in the share's whole, not among the copies
    with_memset = MEM + (
        "      0.0              100      9       11.1          0.0  [CUDA memset]\n"
    )
    facts = _values(parse_nsys_stats(with_memset))
    assert (facts["memcpy.count"], facts["memcpy.mean_us"]) == (4, 250.0)
    assert facts["memcpy.host_share"] == round(1_000_000 / 1_000_100, 4)
    # a cut memory report keeps its share (against Time (%)) and drops the count and mean
    cut = _values(parse_nsys_stats(MEM.rstrip("\n") + "\n      0.0\n"))
    assert cut == {"memcpy.host_share": 1.0}


def test_nsys_a_row_cut_after_its_first_value_marks_the_table_cut() -> None:
    result = parse_nsys_stats(API.rsplit("\n", 2)[0] + "\n     10.0\n")
    assert _values(result) == {"kernels.launch_share": 0.7, "cpu.sync_share": 0.2}
    assert any("cut short" in problem for problem in result.problems)


_LONG = 200_000


@pytest.mark.parametrize(
    "text",
    [
        # a py-spy top row and a dumped frame with a long run of blanks inside: a lazy cell
        # before `\s*$` (or `.+?\s+\(`) was retried at every blank, minutes at this size
        "  %Own   %Total  OwnTime  TotalTime  Function\n 1.00% 1.00% 1.0s 1.0s x"
        + " " * _LONG
        + "y\n",
        "Thread 1 (idle)\n x" + " " * _LONG + "y\n",
        "Thread 1 (idle)\n " + "a (" * _LONG + "\n",
        "Name    Self CPU %      Self CPU\n" + "x   " * _LONG + "\n",
        " Time (%)  Total Time (ns)  Num Calls  Name\n" + "1," * _LONG + " 2 3 x\n",
    ],
    ids=["top-row", "dump-frame", "dump-parens", "torch-row", "nsys-row"],
)
def test_long_lines_of_their_own_shapes_are_linear(text: str) -> None:
    for parse in (parse_torch_profiler, parse_nsys_stats, parse_py_spy):
        started = time.perf_counter()
        check_result(parse(text))
        assert time.perf_counter() - started < 5.0, parse.__name__
