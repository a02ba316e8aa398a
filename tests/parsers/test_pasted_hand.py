"""Hand-written cases for reading pasted NCCL logs, nccl-tests tables and copy matrices.

Each case is one shape seen in public bug reports, reduced to the lines that matter, and each
failed before the change that made it pass (issue 11, items 1, 2 and 6).
"""

from __future__ import annotations

import time

from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.nccl import parse_nccl
from casefile_probes.nccl_debug import log_lines, log_start, parse_nccl_debug
from casefile_probes.nvbandwidth import parse_nvbandwidth
from casefile_probes.p2p import parse_p2p

HEADER = (
    "#                                                              out-of-place"
    "                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
    "            (us)  (GB/s)  (GB/s)\n"
)
ROW = "     1048576        262144     float     sum      -1    27.76   37.78   66.11       0"
ROW += "    27.49   38.15   66.76       0\n"


# --- NCCL_DEBUG=INFO logs -------------------------------------------------------------------


def test_each_transport_spelling_gets_its_class() -> None:
    text = "\n".join(
        [
            "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read",
            "a:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read",
            "a:1:2 [0] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/direct pointer",
            "a:1:2 [0] NCCL INFO Channel 00 : 3[3] -> 4[4] via SHM/direct/direct",
            "a:1:2 [0] NCCL INFO Ring 00 : 4[b0] -> 5[80] via direct shared memory",
            "a:1:2 [0] NCCL INFO Channel 00/0 : 5[5] -> 6[0] [send] via NET/IB/1/GDRDMA",
            "a:1:2 [0] NCCL INFO Channel 00/0 : 6[0] -> 7[1] [receive] via NET/IB/0",
            "a:1:2 [0] NCCL INFO Ring 00 : 7 -> 0 [send] via NET/Socket/0",
        ]
    )
    result = parse_nccl_debug(text)
    assert result.values("nccl.transport") == {
        "rank0-rank1": "P2P/IPC",
        "rank1-rank2": "P2P/CUMEM",
        "rank2-rank3": "P2P/direct",
        "rank3-rank4": "SHM",
        "rank4-rank5": "SHM",
        "rank5-rank6": "NET/IB",
        "rank6-rank7": "NET/IB",
        "rank7-rank0": "NET/Socket",
    }
    assert result.values("nccl.gdrdma") == {
        "rank5-rank6": True,
        "rank6-rank7": False,
        "rank7-rank0": False,
    }
    assert result.values("nccl.transport.detail")["rank5-rank6"] == "NET/IB/GDRDMA"
    assert result.values("nccl.transports") == {
        "host": "NET/IB,NET/Socket,P2P/CUMEM,P2P/IPC,P2P/direct,SHM"
    }


def test_settings_from_the_environment_and_warnings() -> None:
    text = "\n".join(
        [
            "n1:5:5 [1] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC   ",
            "n1:5:6 [1] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
            "n1:5:6 [1] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_1",
            "n1:5:5 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'",
            "n1:5:5 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'",
            "NCCL version 2.18.3+cuda12.2",
        ]
    )
    result = parse_nccl_debug(text)
    assert result.values("nccl.env.NCCL_P2P_LEVEL") == {"host": "LOC"}
    assert result.values("nccl.env.NCCL_IB_DISABLE") == {"host": "1"}
    assert result.values("nccl.env.NCCL_IB_HCA") == {"host": "mlx5_0,mlx5_1"}
    assert result.values("nccl.version") == {"host": "2.18.3"}
    assert result.values("nccl.warnings") == {"host": 2}
    assert result.problems == ["NCCL warning: Cuda failure 'invalid argument'"]


def test_topology_rings_trees_and_ranks() -> None:
    text = "\n".join(
        [
            "h:1:2 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1c000 "
            "commId 0x6 - Init START",
            "h:1:2 [0] NCCL INFO comm 0x5b rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 "
            "MNNVL 0",
            "h:1:2 [0] NCCL INFO Channel 00/02 : 0 1",
            "h:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1",
            "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40.0/40.0, type NVL/PIX, "
            "sameChannels 1",
            "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
            "h:1:2 [0] NCCL INFO Setting affinity for GPU 0 to 0-63,128-191",
        ]
    )
    result = parse_nccl_debug(text)
    assert result.values("nccl.bus_id") == {"rank0": "0000:1c:00.0"}
    assert result.values("nccl.nnodes") == {"host": 1}
    assert result.values("nccl.ring") == {"channel0": "0 1"}
    assert result.values("nccl.channels") == {"host": 2}
    assert result.values("nccl.tree") == {"rank0": "1/-1/-1->0->-1"}
    assert result.values("nccl.graph.type") == {"pattern4": "NVL/PIX"}
    assert result.values("nccl.gdr") == {"mlx5_0": False}
    assert result.values("nccl.cpu_affinity") == {"gpu0": "0-63,128-191"}


def test_log_lines_inside_other_loggers_and_with_odd_host_names() -> None:
    text = "\n".join(
        [
            "2025-11-12 20:42:20,261 - INFO - g340:4450:4887 [5] NCCL INFO Channel 31/1 : "
            "5[5] -> 0[0] via P2P/IPC",
            "<cluster_name>:919:1150 [0] NCCL INFO Channel 01/0 : 8[0] -> 15[7] via P2P/IPC/read",
            "pod-id:num:num [3] NCCL INFO NVLS multicast support is not available on dev 3",
            "> > > (WorkerDict pid=3) d15:3:4 [0] NCCL INFO Setting affinity for GPU 0 to ff "
            "[repeated 16x across cluster]",
        ]
    )
    result = parse_nccl_debug(text)
    assert set(result.values("nccl.transport")) == {"rank5-rank0", "rank8-rank15"}
    assert result.values("nccl.nvls") == {"gpu3": False}
    assert result.values("nccl.cpu_affinity") == {"gpu0": "ff"}
    assert result.values("nccl.log.lines") == {"host": 4}


def test_a_host_name_glued_to_a_table_row_is_the_host_seen_elsewhere() -> None:
    lines = [
        "mew0:1:2 [0] NCCL INFO Using network IB",
        "     8388608       2097152     float     sum      -1mew0:1:3 [1] NCCL INFO Connected",
    ]
    assert {line.host for line in log_lines(lines).lines} == {"mew0"}
    assert log_start(lines[1]) == lines[1].index("-1mew0")


def test_a_value_cut_by_the_end_of_the_paste_is_not_read() -> None:
    text = (
        "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
        "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2"
    )
    result = parse_nccl_debug(text)
    assert result.values("nccl.transport") == {"rank0-rank1": "P2P/IPC"}
    assert result.problems == [
        "1 NCCL log value(s) cut short and not read (the paste ends mid-line?)"
    ]


def test_no_log_lines_is_unparsed_with_a_reason() -> None:
    result = parse_nccl_debug("# nThread 1 nGpus 1\nTest NCCL failure common.cu:1 'x'\n")
    assert not result.parsed
    assert "NCCL_DEBUG=INFO" in result.problems[0]


# --- nccl-tests tables ----------------------------------------------------------------------


def test_cut_before_the_first_row_keeps_banner_ranks_and_log() -> None:
    text = (
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#\n# Using devices\n"
        "#  Rank  0 Group  0 Pid 7 on node1 device  0 [0000:01:00] NVIDIA A100\n"
        "#  Rank  1 Group  0 Pid 7 on node1 device  1 [0000:02:00] NVIDIA A100\n"
        "node1:7:7 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n"
        "node1:7:9 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n" + HEADER
    )
    result = parse_nccl(text)
    assert result.parsed
    assert result.values("nccl.ranks") == {"host": 2}
    assert result.values("nccl.min_bytes") == {"host": 8}
    assert result.values("nccl.env.NCCL_P2P_DISABLE") == {"host": "1"}
    assert result.values("nccl.transport") == {"rank0-rank1": "SHM"}
    assert result.problems == [
        "nccl-tests output without a results table (truncated before the first row?)"
    ]


def test_a_row_cut_short_is_read_as_far_as_it_goes() -> None:
    cut = "     2097152        524288     float     sum      -1    40.66   51.58   90.27       0"
    result = parse_nccl(HEADER + ROW + cut + "    40.3\n")
    assert result.values("nccl.busbw") == {"size=1048576": 66.11, "size=2097152": 90.27}
    assert result.values("nccl.time")["size=2097152"] == 40.66
    # the last value may be cut ("40.3" of "40.36"): not read
    assert "size=2097152" not in result.values("nccl.busbw.inplace")
    assert "rows cut short, read as far as they go: sizes 2097152 (10 of 13 values)" in (
        result.problems
    )


def test_old_rows_without_redop_and_root_pasted_without_their_header() -> None:
    text = (
        "       65536          8192   float    16.57    1.98    1.98  0e+00    13.83    2.37"
        "    2.37  0e+00\n"
        "      131072         16384   float    23.07    2.84    2.84  0e+00    18.39    3.56"
        "    3.56  0e+00\n"
        "# Avg bus bandwidth    : 6.6972 \n"
    )
    result = parse_nccl(text)
    assert result.values("nccl.busbw") == {"size=65536": 1.98, "size=131072": 2.84}
    assert result.values("nccl.busbw.inplace") == {"size=65536": 2.37, "size=131072": 3.56}
    assert result.problems == []


def test_banner_and_rank_lines_whose_hash_markdown_ate() -> None:
    text = (
        "mpirun -np 2 all_reduce_perf -b 32 -f 2 -e 8G\n"
        " nThread 1 nGpus 1 minBytes 32 maxBytes 8589934592 step: 2(factor) warmup iters: 5\n"
        "   Rank  0 Pid 11 on hostA device  0 [0x00] NVIDIA A100-SXM4-40GB\n"
        "   Rank  1 Pid 12 on hostA device  1 [0x00] NVIDIA A100-SXM4-40GB\n"
    )
    result = parse_nccl(text)
    assert result.values("nccl.ranks") == {"host": 2}
    assert result.values("nccl.gpus") == {"host": 2}
    assert result.values("nccl.max_bytes") == {"host": 8589934592}


def test_gpus_that_old_nccl_tests_print_with_the_same_bus_are_told_apart_by_device() -> None:
    text = (
        "#   Rank  0 Pid  11 on hostA device  0 [0x00] Tesla V100-SXM2-16GB\n"
        "#   Rank  1 Pid  11 on hostA device  1 [0x00] Tesla V100-SXM2-16GB\n"
        "#   Rank  2 Pid  12 on hostB device  0 [0x00] Tesla V100-SXM2-16GB\n"
    )
    result = parse_nccl(text + HEADER)
    assert result.values("nccl.gpus") == {"host": 3}
    assert result.values("nccl.hosts") == {"host": 2}


def test_a_banner_printed_by_every_rank_counts_each_rank_once() -> None:
    banner = "#  Rank  0 Group  0 Pid 9 on h device  0 [0x00] GPU\n"
    result = parse_nccl(banner + banner + HEADER)
    assert result.values("nccl.ranks") == {"host": 1}


def test_a_failed_run_keeps_the_nccl_log_it_printed_before_failing() -> None:
    banner = "# nThread 1 nGpus 4 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5\n"
    failure = "h: Test NCCL failure common.cu:1005 'unhandled cuda error'\n"
    log = "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
    result = parse_nccl(banner + log + failure)
    assert result.parsed and result.values("nccl.transport") == {"rank0-rank1": "SHM"}
    assert result.problems[0] == (
        "nccl-tests failed before any result: Test NCCL failure common.cu:1005 "
        "'unhandled cuda error'"
    )
    # without a log the error is the whole answer, as before
    assert not parse_nccl(banner + failure).parsed


# --- p2pBandwidthLatencyTest ---------------------------------------------------------------

P2P = (
    "Device: 0, A, pciBusID: 1, pciDeviceID: 0, pciDomainID:0\n"
    "Device: 1, A, pciBusID: 2, pciDeviceID: 0, pciDomainID:0\n"
    "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
    "   D\\D     0      1      2\n"
)


def test_p2p_short_row_is_read_as_far_as_it_goes() -> None:
    text = P2P + "     0 911.08  20.10  22.16\n     1  20.39 920.20\n     2  22.18  22.37 920.74\n"
    result = parse_p2p(text)
    values = result.values("p2p.unidir_bw.disabled")
    assert values["gpu1-gpu0"] == 20.39 and "gpu1-gpu2" not in values
    assert "p2p.unidir_bw.disabled row 1: 2 of 3 values (cut short?)" in result.problems[0]


def test_p2p_row_at_the_end_of_the_paste_drops_its_possibly_cut_value() -> None:
    result = parse_p2p(P2P + "     0 911.08  20.10  22.16\n     2  22.18  2")
    # "2" may be the start of "22.37": only the values before it are read
    assert result.values("p2p.unidir_bw.disabled") == {
        "gpu0-gpu1": 20.1,
        "gpu0-gpu2": 22.16,
        "gpu2-gpu0": 22.18,
    }


def test_p2p_long_row_keeps_one_value_per_column() -> None:
    text = P2P + "     0 911.08  20.10  22.16  99.99\n"
    result = parse_p2p(text)
    assert result.values("p2p.unidir_bw.disabled") == {"gpu0-gpu1": 20.1, "gpu0-gpu2": 22.16}
    assert "row 0: 4 values for 3 columns, extra ignored" in result.problems[-2]


def test_p2p_gpu_count_from_the_header_when_the_device_list_is_cut() -> None:
    result = parse_p2p(P2P + "     0 911.08  20.10  22.16\n")
    assert result.values("p2p.gpus") == {"host": 3}
    assert result.problems[-1] == (
        "the matrices have 3 GPUs but only 2 'Device:' lines (device list cut short?)"
    )


# --- nvbandwidth ------------------------------------------------------------------------------

NVB = (
    "nvbandwidth Version: v0.8\n\nDevice 0: NVIDIA A100 (00000000:34:00)\n\n"
    "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
    "           0         1         2\n"
    " 0       N/A     26.34     26.35\n"
    " 1     26.34       N/A\n"
    " 2     26.34     26.35       N/A\n\n"
    "SUM device_to_device_memcpy_read_ce 131.72\n"
)


def test_nvbandwidth_matrix_without_its_running_line_is_named_by_its_sum() -> None:
    result = parse_nvbandwidth(NVB)
    values = result.values("nvbandwidth.device_to_device_memcpy_read_ce")
    assert values == {
        "gpu0-gpu1": 26.34,
        "gpu0-gpu2": 26.35,
        "gpu1-gpu0": 26.34,
        "gpu2-gpu0": 26.34,
        "gpu2-gpu1": 26.35,
    }
    assert result.values("nvbandwidth.gpus") == {"host": 3}
    assert result.values("pci.bus_id") == {"gpu0": "0000:34:00.0"}
    assert result.problems == ["nvbandwidth (unnamed test) row 1: 2 of 3 values (cut short?)"]


def test_nvbandwidth_waived_and_failed_tests_are_stated() -> None:
    text = "nvbandwidth Version: v0.2\n\nWaiving device_to_device_memcpy_write_ce.\n"
    result = parse_nvbandwidth(text)
    assert result.values("nvbandwidth.device_to_device_memcpy_write_ce.waived") == {"host": True}
    assert result.problems[0].startswith("nvbandwidth waived device_to_device_memcpy_write_ce")
    failed = parse_nvbandwidth("Running x_ce.\nASSERT in expression e == 0 in f() : a.cpp:1\n")
    assert not failed.parsed and failed.problems[0].startswith("nvbandwidth error: ASSERT")


def test_nvbandwidth_quoted_running_lines() -> None:
    text = (
        "> Running host_to_device_memcpy_sm.\n"
        "memcpy SM CPU(row) -> GPU(column) bandwidth (GB/s)\n"
        "0         1\n0     35.19     35.25\n"
    )
    assert parse_nvbandwidth(text).values("nvbandwidth.host_to_device_memcpy_sm") == {
        "gpu0": 35.19,
        "gpu1": 35.25,
    }


def test_bandwidth_test_output_is_not_nvbandwidth() -> None:
    text = "[CUDA Bandwidth Test] - Starting...\n Device 0: Tesla T4\n Quick Mode\n"
    assert not parse_nvbandwidth(text).parsed


def test_cuda_bandwidth_probe_reads_a_short_nvbandwidth_row_too() -> None:
    text = (
        "Running host_to_device_bidirectional_memcpy_ce.\n"
        "memcpy CE CPU(row) <-> GPU(column) bandwidth (GB/s)\n"
        "          0         1         2\n"
        "0     11.24     14.42     16."
    )
    result = parse_bandwidth(text)
    assert result.values("nvbandwidth.host_to_device_bidirectional_memcpy_ce") == {
        "gpu0": 11.24,
        "gpu1": 14.42,
    }


# --- linear time on long lines of the shapes these parsers match -----------------------------

LONG = 200_000
BOUND_S = 5.0
PREFIX = "a:1:2 [0] NCCL INFO "
LONG_LINES = {
    # a long gap inside a message that the connection, setting and Ray patterns read
    "via-gap": PREFIX + "Channel 00 : 0 -> 1 via x" + " " * LONG + "y",
    "env-gap": PREFIX + "NCCL_X set by environment to " + " " * LONG + "y",
    "repeat-gap": PREFIX + "x" + " " * LONG + "[repeated 1x",
    "channel-digits": PREFIX + "8 coll channels," + "1" * LONG,
    "log-prefixes": PREFIX * (LONG // len(PREFIX)),
    "source-token": "a:1:2 [0] " + "a." * (LONG // 2) + "c:1 NCCL WARN x",
    # an nvbandwidth title made of many axis pairs took 42 s at this size
    "matrix-title": "Running x.\nmemcpy " + "CPU(row) -> GPU(column) " * (LONG // 24) + "x",
    "matrix-title-parens": "Running x.\nmemcpy " + "CPU(row) -> GPU(column) (" * (LONG // 25),
    # a device name with a long run of blanks took minutes (a lazy name before optional parts)
    "device-blanks": "Device 0: a" + " " * LONG + "b",
    "device-parens": "Device 0: a" + " (" * (LONG // 2) + "b",
    "p2p-device-blanks": "Device: 0, a" + " " * LONG + "b",
}


def test_long_lines_of_log_and_matrix_shapes_parse_in_linear_time() -> None:
    for name, text in LONG_LINES.items():
        for parse in (parse_nccl_debug, parse_nccl, parse_nvbandwidth, parse_bandwidth, parse_p2p):
            started = time.perf_counter()
            parse(text)
            elapsed = time.perf_counter() - started
            assert elapsed < BOUND_S, f"{parse.__name__} took {elapsed:.1f}s on {name}"
