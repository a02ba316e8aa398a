"""Golden results for the perftest parser over real outputs (``ib_write_bw`` and its kin), its
``recognises`` guess (every sample with a results table, no other tool's output), the readings
a rule needs (Gb/s whatever unit was printed, one port in one direction), perftest's own
failures in its words, and fuzzing: a mutated or random paste never makes it raise, and a long
line costs time linear in its length.

Every ``.txt`` has its source address in ``tests/golden/perftest/SOURCES`` and a hand-checked
``.json`` beside it; see ``tests/parsers/perftest_tools.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.perftest import PROBE as PERFTEST
from casefile_probes.perftest import parse_perftest, recognise_perftest
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.domain.facts import ParseResult
from casefile.plugins import Registry

from .corpus import (
    Parser,
    assert_matches_golden,
    check_linear_in_line_length,
    check_probe_declarations,
    check_recognises_no_other,
    check_result,
    check_sources_and_goldens,
    golden_cases,
    read_sample,
    read_samples,
)
from .fuzzing import fuzz_mutated
from .perftest_tools import PERFTEST_TOOLS

CASES = golden_cases(PERFTEST_TOOLS)
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "perftest"
RULE = "-" * 87


def host(text: str) -> dict[str, object]:
    return {f.name: f.value for f in parse_perftest(text).facts if f.subject == "host"}


def sample(stem: str) -> str:
    return read_sample(GOLDEN / f"{stem}.txt")


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_perftest_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, PERFTEST_TOOLS[folder])


def test_every_perftest_fixture_has_a_source_and_a_golden() -> None:
    check_sources_and_goldens("perftest", least=12, url_prefix="https://")


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_a_sample_with_a_results_header_is_recognised_and_one_without_is_not(
    folder: str, path: Path
) -> None:
    text = read_sample(path)
    has_table = "#bytes" in text and "#iterations" in text
    assert recognise_perftest(text) is has_table
    quoted = "> " + text.replace("\n", "\n> ")  # recognised exactly where it parses
    assert recognise_perftest(quoted) is parse_perftest(quoted).parsed


def test_recognises_no_other_tools_output() -> None:
    check_recognises_no_other("perftest", recognise_perftest, least=100)


def test_the_probe_declares_its_recogniser_and_every_fact_it_gives() -> None:
    check_probe_declarations(PERFTEST, recognise_perftest)


def test_the_probe_is_registered_and_pasted_only() -> None:
    assert Registry.discover().all_probes()["perftest"].parse is PERFTEST.parse
    # a run needs a server started on the other node first: casefile never runs it
    assert PERFTEST.where == frozenset({"pasted"}) and PERFTEST.cost == "moderate"


def test_megabytes_are_perftests_binary_ones_converted_to_gigabits() -> None:
    """015: ``38.95`` under ``BW average[MB/sec]`` is 38.95 × 2^20 bytes a second, as its
    message rate says (2.5525 Mpps of 16 bytes)."""
    facts = {(f.name, f.subject): f.value for f in parse_perftest(sample("015")).facts}
    assert facts[("perftest.bw.average", "size=16")] == 0.327
    implied = 2.5525 * 16 * 8 / 1000  # Mpps × bytes × 8 / 1000: Gb/s
    assert facts[("perftest.bw.average", "size=16")] == pytest.approx(implied, abs=1e-3)


def test_the_server_sides_figures_are_read_in_the_unit_they_are_in() -> None:
    """001: a server without ``--report_gbits`` prints the client's Gb/s figures under its own
    ``MB/sec`` header (0.18 Mpps of 64 KiB is 96 Gb/s, not 96 MB/s); and a duration run's peak,
    printed as 0.00, is no reading."""
    result = parse_perftest(sample("001"))
    facts = {(f.name, f.subject): f.value for f in result.facts}
    assert facts[("perftest.bw.large", "host")] == 96.25
    assert ("perftest.bw.peak", "size=65536") not in facts
    assert any("under a MB/sec header" in problem for problem in result.problems)


def test_figures_that_fit_neither_unit_give_no_bandwidth() -> None:
    result = parse_perftest(table("RDMA_Write BW Test", " 65536  5000  50.00  50.00  0.70\n"))
    assert "perftest.bw.large" not in {f.name for f in result.facts}
    assert any("disagree" in problem for problem in result.problems)


def test_host_memory_and_gpu_memory_runs_of_one_setup_are_told_apart() -> None:
    """004 and 005: one H200 node's NIC from host memory at 381 Gb/s, from GPU memory
    (``--use_cuda``, DMA-BUF) at 141: the GPU's path to its NIC, not the link."""
    host_run, gpu_run = host(sample("004")), host(sample("005"))
    assert host_run["perftest.gpu_memory"] is False and gpu_run["perftest.gpu_memory"] is True
    assert host_run["perftest.bw.port"] == 381.41 and gpu_run["perftest.bw.port"] == 140.95
    # a settings line that spaces its two pairs with blanks (not a tab) is read
    assert gpu_run["perftest.device"] == "mlx5_3" and gpu_run["perftest.qps"] == 1


def test_a_run_that_failed_part_way_keeps_its_rows_and_says_so() -> None:
    result = parse_perftest(sample("004"))
    assert result.parsed
    assert "perftest said: Completion with error at client" in result.problems


@pytest.mark.parametrize(
    ("stem", "said"),
    [
        ("007", "Couldn't allocate MR"),
        ("009", "Couldn't connect to 192.168.125.211:18515"),
        ("010", "Failed to modify QP 59 to RTR"),
    ],
)
def test_a_run_that_failed_is_unparsed_in_perftests_words(stem: str, said: str) -> None:
    result = parse_perftest(sample(stem))
    assert not result.parsed and result.problems == [f"perftest reported an error: {said}"]


def test_small_messages_measure_no_link() -> None:
    """003 (8-byte messages) and 015 (a sweep cut at 16 bytes) give rows, but no large-message
    bandwidth for a rule to read."""
    for stem in ("003", "015"):
        assert "perftest.bw.large" not in host(sample(stem))


def test_a_row_cut_short_is_left_out_and_said() -> None:
    """013: a latency row cut mid-line after its typical figure."""
    result = parse_perftest(sample("013"))
    assert "1 result row(s) cut short, left out" in result.problems
    assert not [f for f in result.facts if f.name.startswith("perftest.lat.")]


def table(title: str, rows: str, *, dual: str = "OFF", unit: str = "Gb/sec") -> str:
    return (
        f"{RULE}\n                    {title}\n"
        f" Dual-port       : {dual}\t\tDevice         : mlx5_0\n"
        " Number of qps   : 4\t\tTransport type : IB\n"
        " Link type       : IB\n"
        f"{RULE}\n"
        f" #bytes     #iterations    BW peak[{unit}]    BW average[{unit}]   MsgRate[Mpps]\n"
        f"{rows}{RULE}\n"
    )


@pytest.mark.parametrize(
    ("title", "dual", "port"),
    [
        ("RDMA_Write BW Test", "OFF", 180.0),
        ("RDMA_Write Bidirectional BW Test", "OFF", 90.0),  # both directions summed
        ("Send BW Test", "ON", 90.0),  # both ports summed
        ("RDMA_Write Bidirectional Post List BW Test", "ON", 45.0),
    ],
)
def test_the_port_reading_is_one_port_one_way(title: str, dual: str, port: float) -> None:
    facts = host(table(title, " 65536      5000   181.00   180.00   0.34\n", dual=dual))
    assert facts["perftest.bw.large"] == 180.0 and facts["perftest.bw.port"] == port
    assert facts["perftest.qps"] == 4


def test_the_newest_releases_mebibytes_read_as_the_older_megabytes() -> None:
    facts = host(
        table("RDMA_Read BW Test", " 65536  1000  11000.00  10000.00  0.16\n", unit="MiB/sec")
    )
    assert facts["perftest.bw.large"] == pytest.approx(83.886, abs=1e-3)


def test_several_runs_in_one_paste_give_the_slowest() -> None:
    """A loop over a node's NICs pasted together: one NIC at a quarter of the others."""
    fast = table("RDMA_Write BW Test", " 65536  5000  392.00  390.00  0.74\n")
    slow = table("RDMA_Write BW Test", " 65536  5000  99.00  98.00  0.19\n")
    result = parse_perftest(fast + slow + fast)
    facts = {(f.subject, f.name): f.value for f in result.facts}
    assert facts[("host", "perftest.bw.large")] == 98.0 and facts[("host", "perftest.runs")] == 3
    assert facts[("size=65536 (run 2)", "perftest.bw.average")] == 98.0


def test_a_latency_table_is_read_per_message_size() -> None:
    header = (
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
        "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
    )
    row = (
        " 2       1000          1.02           3.40         1.07     \t       1.08     \t0.05"
        "\t\t1.20 \t\t3.40\n"
    )
    warning = "Conflicting CPU frequency values detected: 1 != 2. CPU Frequency is not max.\n"
    text = f"{RULE}\n                    Send Latency Test\n{RULE}\n{header}{warning}{row}{RULE}\n"
    facts = {(f.name, f.subject): f.value for f in parse_perftest(text).facts}
    assert facts[("perftest.lat.typical", "size=2")] == 1.07
    assert facts[("perftest.lat.p99", "size=2")] == 1.2
    assert facts[("perftest.kind", "host")] == "lat"


def test_gpu_memory_is_read_from_the_command_line_too() -> None:
    rows = " 65536  5000  92.00  91.00  0.17\n"
    assert host(
        "$ ib_write_bw -d mlx5_0 --use_cuda=0 10.0.0.2\n" + table("RDMA_Write BW Test", rows)
    )["perftest.gpu_memory"]
    assert not host("$ ib_write_bw -d mlx5_0 10.0.0.2\n" + table("RDMA_Write BW Test", rows))[
        "perftest.gpu_memory"
    ]
    assert "perftest.gpu_memory" not in host(table("RDMA_Write BW Test", rows))  # unsaid


def rate(gbps: float, size: int = 65536) -> str:
    """A row's message rate (Mpps) for ``gbps`` at ``size``, as perftest computes it."""
    return f"{gbps * 1000 / (size * 8):.6f}"


def test_report_both_tables_are_one_direction_each() -> None:
    """``-b --report-both``: the summed table, then each side's own, none halved again."""
    text = (
        table("RDMA_Write Bidirectional BW Test", f" 65536  5000  391.00  390.00  {rate(390)}\n")
        + " Local results: \n"
        + f"{RULE}\n #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
        + f"MsgRate[Mpps]\n 65536  5000  196.00  195.00  {rate(195)}\n{RULE}\n"
        + " Remote results: \n"
        + f"{RULE}\n #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
        + f"MsgRate[Mpps]\n 65536  5000  196.00  195.00  {rate(195)}\n{RULE}\n"
    )
    assert host(text)["perftest.bw.port"] == 195.0


def test_each_run_is_halved_by_its_own_banner() -> None:
    one_way = table("RDMA_Write BW Test", f" 65536  5000  391.00  390.00  {rate(390)}\n")
    both = table("RDMA_Write Bidirectional BW Test", f" 65536  5000  781.00  780.00  {rate(780)}\n")
    assert host(one_way + both)["perftest.bw.port"] == 390.0
    assert host(both + one_way)["perftest.bw.port"] == 390.0


def test_per_port_columns_give_the_slower_port() -> None:
    header = (
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]   "
        "BW Port1[Gb/sec]   MsgRate Port1[Mpps]   BW Port2[Gb/sec]   MsgRate Port2[Mpps]"
    )
    row = f" 65536  5000  301.00  300.00  {rate(300)}  200.00  {rate(200)}  100.00  {rate(100)}"
    text = table("RDMA_Write BW Test", "", dual="ON").replace(
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n",
        f"{header}\n{row}\n",
    )
    assert host(text)["perftest.bw.port"] == 100.0


def test_counter_lines_under_each_row_keep_the_table_going() -> None:
    rows = "".join(
        f" {size}  5000  {gbps:.2f}  {gbps:.2f}  {rate(gbps, size)}\n\tport_xmit_data=123\n"
        for size, gbps in ((2, 0.1), (65536, 190.0), (131072, 195.0))
    )
    facts = host(table("RDMA_Write BW Test", rows))
    assert facts["perftest.bw.large"] == 195.0


def test_a_size_sampled_again_and_again_counts_at_its_mean() -> None:
    """``--run_infinitely`` prints one size every few seconds: a dip is not hidden behind
    the best sample, and each sample keeps its own subject."""
    rows = "".join(f" 65536  5000  {g:.2f}  {g:.2f}  {rate(g)}\n" for g in (390.0, 120.0, 390.0))
    result = parse_perftest(table("RDMA_Write BW Test", rows))
    facts = {(f.name, f.subject): f.value for f in result.facts}
    assert facts[("perftest.bw.large", "host")] == 300.0
    assert facts[("perftest.bw.average", "size=65536 (sample 2)")] == 120.0


def test_a_size_too_long_to_be_one_is_a_cut_row_not_a_crash() -> None:
    header = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
    result = parse_perftest(header + " " + "9" * 400 + " 5000 1.0 1.0 0.1\n")
    assert result.parsed and "1 result row(s) cut short, left out" in result.problems


LATENCY_HEADER = (
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
)


def test_latency_columns_are_read_by_name() -> None:
    duration = (
        f"{RULE}\n                    Send Latency Test\n{RULE}\n"
        " #bytes        #iterations       t_avg[usec]    tps average    CPU_Util[%]\n"
        " 2             328000            1.52           328000.00\t    12.50\n"
    )
    facts = {(f.name, f.subject): f.value for f in parse_perftest(duration).facts}
    assert facts[("perftest.lat.avg", "size=2")] == 1.52
    assert ("perftest.lat.max", "size=2") not in facts


def test_a_header_printed_twice_heads_one_table() -> None:
    row = (
        " 2       1000          1.02           3.40         1.07     1.08     0.05   1.20   3.40\n"
    )
    text = f"{RULE}\n                    Send Latency Test\n{LATENCY_HEADER}{LATENCY_HEADER}{row}"
    result = parse_perftest(text)
    assert not result.problems
    assert {f.value for f in result.facts if f.name == "perftest.runs"} == {1}


def test_cycles_are_no_microseconds() -> None:
    row = " 2       1000          1020           3400         1070     1080     50   1200   3400\n"
    text = (
        f"$ ib_write_lat -a -C 10.0.0.2\n{RULE}\n  RDMA_Write Latency Test\n{LATENCY_HEADER}{row}"
    )
    result = parse_perftest(text)
    assert not [f for f in result.facts if f.name.startswith("perftest.lat.")]
    assert "latency in CPU cycles (-C), not read as microseconds" in result.problems


def test_a_large_message_at_a_low_rate_still_settles_the_unit() -> None:
    """A server's one row of a client's 8 MB figures in Gb/s, under ``MB/sec``: its message
    rate, 0.000348 Mpps, still tells the unit."""
    text = table("RDMA_Write BW Test", " 8388608  5000  23.40  23.38  0.000348\n", unit="MB/sec")
    assert host(text)["perftest.bw.large"] == 23.38


def test_a_bidirectional_run_known_by_its_command_is_halved() -> None:
    rows = f" 65536  5000  190.00  189.00  {rate(189)}\n"
    header = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
    facts = host(f"$ ib_write_bw -b -d mlx5_0 --report_gbits 10.0.0.2\n{RULE}\n{header}{rows}")
    assert facts["perftest.bidirectional"] is True and facts["perftest.bw.port"] == 94.5


@pytest.mark.parametrize(
    "line",
    [
        "Using ROCm Device with ID: 0, Name: AMD Instinct MI300X, PCI Bus ID: 0x1b",
        " Use ROCm memory : ON",
        "initializing MUSA",
        "initializing MLU",
    ],
)
def test_other_accelerators_memory_is_gpu_memory(line: str) -> None:
    rows = f" 65536  5000  92.00  91.00  {rate(91)}\n"
    assert host(f"{line}\n" + table("RDMA_Write BW Test", rows))["perftest.gpu_memory"] is True


def test_a_size_of_zero_is_no_crash() -> None:
    header = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
    assert parse_perftest(header + " 0 1000 1.00 1.00 1.000000\n").parsed


def test_report_both_counts_one_run_with_its_summed_figure() -> None:
    one_way = (
        f"{RULE}\n #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
        f"MsgRate[Mpps]\n 65536  5000  95.00  94.50  {rate(94.5)}\n{RULE}\n"
    )
    text = (
        table("RDMA_Write Bidirectional BW Test", f" 65536  5000  190.00  189.00  {rate(189)}\n")
        + f" Local results: \n{one_way} Remote results: \n{one_way}"
    )
    facts = host(text)
    assert facts["perftest.runs"] == 1 and facts["perftest.bw.large"] == 189.0
    assert facts["perftest.bw.port"] == 94.5


def test_mutated_outputs_never_raise() -> None:
    def check(text: str) -> None:
        check_result(parse_perftest(text))
        assert isinstance(recognise_perftest(text), bool)

    fuzz_mutated(read_samples("perftest"), check)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_random_text_never_raises(text: str) -> None:
    check_result(parse_perftest(text))
    assert isinstance(recognise_perftest(text), bool)


#: repeated units that reach deep into the patterns and end so that nothing matches there
SHAPES = {
    "row": (" 1", " x"),
    "row-floats": (" 1.5", " x"),
    "settings": (" Dual-port  : ON  ", "x"),
    "blanks": (" ", "x"),
    "counters": ("a=1", "x"),
    "banner": ("RDMA_Write ", "x"),
    "header": (" #bytes #iterations BW peak[MB/sec]", "x"),
    "error": ("Couldn't ", ""),
}
LINE = 400_000


#: a results header, so that a long line under it is read as a row
HEADER = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"


def parse_under_a_header(text: str) -> ParseResult:
    return parse_perftest(HEADER + text)


def parse_after_a_setting(text: str) -> ParseResult:
    """The long line goes on from a setting under a banner, where settings are split."""
    return parse_perftest(f"{RULE}\n RDMA_Write BW Test\n Device : mlx5_0{text}")


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize(
    "parse",
    [parse_perftest, parse_under_a_header, parse_after_a_setting],
    ids=["bare", "row", "setting"],
)
def test_a_long_line_costs_time_linear_in_its_length(shape: str, parse: Parser) -> None:
    unit, end = SHAPES[shape]
    check_linear_in_line_length(parse, unit, end, LINE, f"perftest ({shape})")
