"""Hand-written expectations: values typed out from the raw samples, and small made-up cases.

The golden files pin everything a parser says; these tests pin the few values that rules
depend on, written by a person reading the sample, so that a regenerated golden file that
got them wrong cannot pass unnoticed.
"""

from __future__ import annotations

import pytest
from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.lspci import PROBE as LSPCI
from casefile_probes.lspci import gen_from_speed, parse_lspci
from casefile_probes.lspci_records import normalise_address
from casefile_probes.nccl import PROBE as NCCL
from casefile_probes.nccl import parse_nccl
from casefile_probes.p2p import parse_p2p

from casefile.domain.facts import ParseResult

from .corpus import CORPUS

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")


def sample(name: str) -> str:
    return (CORPUS / name).read_text(encoding="utf-8", errors="replace")


def at(result: ParseResult, name: str, subject: str) -> object:
    return result.values(name).get(subject)


# --- lspci -------------------------------------------------------------------------------


@needs_corpus
def test_lspci_002_both_4090s_trained_at_gen1_x8() -> None:
    result = parse_lspci(sample("lspci/002.txt"))
    assert result.parsed and result.problems == []
    for gpu, cap_speed, cap_gen in (("0000:01:00.0", 8.0, 3), ("0000:03:00.0", 16.0, 4)):
        assert at(result, "pcie.link.speed.current", gpu) == 2.5
        assert at(result, "pcie.link.width.current", gpu) == 8
        assert at(result, "pcie.link.gen.current", gpu) == 1
        assert at(result, "pcie.link.speed.max", gpu) == cap_speed
        assert at(result, "pcie.link.gen.max", gpu) == cap_gen
        assert at(result, "pcie.link.width.max", gpu) == 16
        assert at(result, "pcie.link.downgraded", gpu) is True
        assert at(result, "pcie.link.width.downgraded", gpu) is True
        assert at(result, "pci.vendor", gpu) == "nvidia"
        assert at(result, "pci.kernel_driver", gpu) == "nvidia"
    assert result.values("pci.iommu_group") == {"0000:01:00.0": 15, "0000:03:00.0": 17}
    assert at(result, "pci.device", "0000:01:00.0") == "NVIDIA Corporation AD102 [GeForce RTX 4090]"


@needs_corpus
def test_lspci_001_p100s_healthy_and_bridges_downgraded() -> None:
    result = parse_lspci(sample("lspci/001.txt"))
    for gpu in ("0000:04:00.0", "0000:82:00.0"):
        assert at(result, "pcie.link.speed.current", gpu) == 8.0
        assert at(result, "pcie.link.speed.max", gpu) == 8.0
        assert at(result, "pcie.link.width.current", gpu) == 16
        assert at(result, "pcie.link.width.max", gpu) == 16
        assert at(result, "pcie.link.gen.current", gpu) == 3
        assert at(result, "pcie.link.downgraded", gpu) is False
        assert at(result, "pci.class", gpu) == "3D controller"
    assert set(result.values("pci.vendor")) == {"0000:04:00.0", "0000:82:00.0"}
    # "Speed unknown (downgraded), Width x0 (downgraded)": no speed, a width of 0
    assert at(result, "pcie.link.speed.current", "0000:00:00.0") is None
    assert at(result, "pcie.link.width.current", "0000:00:00.0") == 0
    assert at(result, "pcie.link.downgraded", "0000:00:00.0") is True
    # "Speed 5GT/s (ok), Width x1 (downgraded)" on the Broadcom NIC
    assert at(result, "pcie.link.speed.downgraded", "0000:01:00.0") is False
    assert at(result, "pcie.link.width.downgraded", "0000:01:00.0") is True
    assert at(result, "pcie.link.downgraded", "0000:01:00.0") is True
    assert result.problems == []


@needs_corpus
def test_lspci_006_old_pciutils_without_ok_markers() -> None:
    result = parse_lspci(sample("lspci/006.txt"))
    gpu = "0000:af:00.0"
    assert at(result, "pcie.link.speed.current", gpu) == 8.0
    assert at(result, "pcie.link.width.current", gpu) == 16
    assert at(result, "pcie.link.speed.max", gpu) == 8.0
    assert at(result, "pcie.link.width.max", gpu) == 16
    assert at(result, "pcie.link.downgraded", gpu) is False
    assert at(result, "pci.numa_node", gpu) == 2


@needs_corpus
def test_lspci_without_link_lines_still_names_devices() -> None:
    denied = parse_lspci(sample("lspci/004.txt"))
    assert denied.parsed
    assert at(denied, "pci.device", "0000:01:00.0") == "NVIDIA Corporation AD102 [GeForce RTX 4090]"
    assert denied.problems[0].startswith("capabilities not readable without root")
    assert "pcie.link.width.current" not in {f.name for f in denied.facts}

    single_v = parse_lspci(sample("lspci/003.txt"))
    assert single_v.parsed and "lspci -v shows none" in single_v.problems[0]
    assert len(single_v.values("pci.device")) == 8

    listing = parse_lspci(sample("lspci/005.txt"))
    assert listing.parsed and "plain lspci listing" in listing.problems[0]
    assert at(listing, "pci.device", "0000:cf:00.0") == "NVIDIA Corporation GH100 [H100 NVSwitch]"
    assert at(listing, "pci.class", "0000:cf:00.0") == "Bridge"
    assert len(listing.values("pci.vendor")) == 12

    fragment = parse_lspci(sample("lspci/007.txt"))
    assert at(fragment, "pci.device", "0000:da:00.0") == "NVIDIA Corporation GA100 [A100 SXM4 40GB]"
    assert "truncated paste" in fragment.problems[0]


LNKCAP2_ONLY = """\
0000:41:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe] (rev a1)
\tCapabilities: [78] Express (v2) Endpoint, MSI 00
\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)
\t\tLnkCap2: Supported Link Speeds: 2.5-32GT/s, Crosslink- Retimer+ 2Retimers+ DRS-
\t\tLnkCtl2: Target Link Speed: 2.5GT/s, EnterCompliance- SpeedDis-
\t\tLnkSta2: Current De-emphasis Level: -6dB, EqualizationComplete+
"""


def test_lspci_lnkcap2_lines_are_not_lnkcap() -> None:
    result = parse_lspci(LNKCAP2_ONLY)
    gpu = "0000:41:00.0"
    assert at(result, "pcie.link.speed.max", gpu) == 32.0
    assert at(result, "pcie.link.gen.max", gpu) == 5
    assert at(result, "pcie.link.speed.current", gpu) == 32.0
    assert at(result, "pcie.link.downgraded", gpu) is False
    assert result.problems == []


def test_lspci_below_max_without_marker_is_downgraded() -> None:
    text = (
        "$ sudo lspci -vv -s 65:00.0\r\n"
        "65:00.0 VGA compatible controller: NVIDIA Corporation Device 2684 (rev a1)\r\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1\r\n"
        "\t\tLnkSta:\tSpeed 16GT/s, Width x4, TrErr- Train- SlotClk+\r\n"
    )
    result = parse_lspci(text)
    assert at(result, "pcie.link.width.current", "0000:65:00.0") == 4
    assert at(result, "pcie.link.width.downgraded", "0000:65:00.0") is True
    assert at(result, "pcie.link.speed.downgraded", "0000:65:00.0") is False
    assert at(result, "pcie.link.downgraded", "0000:65:00.0") is True


def test_lspci_helpers() -> None:
    assert [gen_from_speed(s) for s in (2.5, 5.0, 8.0, 16.0, 32.0, 64.0)] == [1, 2, 3, 4, 5, 6]
    assert gen_from_speed(None) is None and gen_from_speed(7.0) is None
    assert normalise_address(None, "01", "00", "0") == "0000:01:00.0"
    assert normalise_address("00000009", "01", "00", "0") == "0009:01:00.0"
    assert normalise_address("ABCD", "0A", "1F", "7") == "abcd:0a:1f.7"
    # the whole bus, so that the bridges between the GPUs (and their ACS) are read too
    assert LSPCI.argv == ("lspci", "-vvv")


def test_lspci_error_text_is_unparsed_with_it() -> None:
    result = parse_lspci(
        "pcilib: Cannot open /proc/bus/pci\nlspci: Cannot find any working access method.\n"
    )
    assert not result.parsed and "pcilib: Cannot open /proc/bus/pci" in result.problems[0]


# --- nccl-tests ----------------------------------------------------------------------------


@needs_corpus
def test_nccl_avg_bus_bandwidth() -> None:
    assert parse_nccl(sample("nccl/001.txt")).values("nccl.avg_busbw") == {"host": 70.742}
    fast = parse_nccl(sample("nccl/006.txt"))
    slow = parse_nccl(sample("nccl/007.txt"))
    assert fast.values("nccl.avg_busbw") == {"host": 178.078}
    assert slow.values("nccl.avg_busbw") == {"host": 28.2632}
    assert fast.values("nccl.version") == {"host": "2.27.7"}
    assert fast.values("nccl.test") == {"host": "all_reduce_perf"}
    assert fast.values("nccl.ranks") == {"host": 2}


@needs_corpus
def test_nccl_rows_through_interleaved_info_logs() -> None:
    result = parse_nccl(sample("nccl/006.txt"))
    assert len(result.values("nccl.busbw")) == 11  # 8 MiB to 8 GiB, factor 2
    assert at(result, "nccl.busbw", "size=8388608") == 100.66
    assert at(result, "nccl.busbw.inplace", "size=8388608") == 103.59
    assert at(result, "nccl.time", "size=8589934592") == 39658.0
    assert at(result, "nccl.busbw", "size=8589934592") == 216.60
    assert result.values("nccl.max_busbw") == {"host": 216.60}


@needs_corpus
def test_nccl_001_sixteen_ranks_on_two_hosts() -> None:
    result = parse_nccl(sample("nccl/001.txt"))
    assert at(result, "nccl.busbw", "size=8589934592") == 338.82
    assert at(result, "nccl.algbw", "size=8589934592") == 180.71
    assert at(result, "nccl.busbw.inplace", "size=8589934592") == 337.35
    assert result.values("nccl.ranks") == {"host": 16}
    assert result.values("nccl.hosts") == {"host": 2}
    assert result.values("nccl.gpus") == {"host": 16}


@needs_corpus
def test_nccl_sendrecv_and_failures() -> None:
    sendrecv = parse_nccl(sample("nccl/002.txt"))
    assert sendrecv.values("nccl.test") == {"host": "sendrecv_perf"}
    assert sendrecv.values("nccl.busbw") == {
        "size=134217728": 110.81,
        "size=268435456": 188.60,
        "size=536870912": 192.75,
    }
    assert "nccl.avg_busbw" not in {f.name for f in sendrecv.facts}
    failed = parse_nccl(sample("nccl/004.txt"))
    assert not failed.parsed and "unhandled CUDA error" in failed.problems[0]
    rccl = parse_nccl(sample("nccl/003.txt"))
    assert not rccl.parsed and "internal error" in rccl.problems[0]


RCCL_TABLE = """\
# nThreads: 1 nGpus: 2 nRanks: 1 minBytes: 1024 maxBytes: 4096 step: 2(factor) warmupIters: 5
#
# Using devices
#   Rank  0 Pid  1234 on  mi-box device  0 [0000:63:00.0] AMD Instinct MI210
#   Rank  1 Pid  1234 on  mi-box device  1 [0000:43:00.0] AMD Instinct MI210
#
#                                                       out-of-place                       in-place
#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong
#  (B)  (elements)  (us)  (GB/s)  (GB/s)  (us)  (GB/s)  (GB/s)
  1024  256  float  sum  -1  20.10  0.05  0.05  0  19.90  0.05  0.05  0
  2048  512  float  sum  -1  20.50  0.10  0.10  0  20.40  0.10  0.10  0
  4096  1024  float  sum  -1  21.00  0.20  0.20  3  20.90  0.20  0.20  0
# Errors with asterisks indicate errors that have exceeded the maximum threshold.
# Avg bus bandwidth    : 0.116667
"""


def test_nccl_rccl_tests_table_and_validation_errors() -> None:
    result = parse_nccl(RCCL_TABLE)
    assert result.parsed
    assert result.values("nccl.busbw")["size=4096"] == 0.20
    assert result.values("nccl.avg_busbw") == {"host": 0.116667}
    assert result.values("nccl.gpus") == {"host": 2}
    assert "validation errors (#wrong > 0) at sizes 4096" in result.problems


OLD_NCCL = """\
$ ./build/all_reduce_perf -b 8 -e 64 -f 2 -g 2
#  size  count  type  redop  time  algbw  busbw  error  time  algbw  busbw  error
  8  2  float  sum  12.34  0.00  0.00  0e+00  12.00  0.00  0.00  0e+00
  64  16  float  sum  12.50  0.01  0.01  0e+00  12.40  0.01  0.01  0e+00
 Out of bounds values : 0 OK
 Avg bus bandwidth    : 0.005
"""


def test_nccl_old_layout_without_root_column() -> None:
    result = parse_nccl(OLD_NCCL)
    assert result.values("nccl.busbw") == {"size=8": 0.0, "size=64": 0.01}
    assert result.values("nccl.test") == {"host": "all_reduce_perf"}


def test_nccl_probe_declares_a_moderate_self_loading_run() -> None:
    """A benchmark tool's own run of a minute or two: moderate, as the P2P test is (the cost
    scale is ``CostClass``'s)."""
    assert NCCL.cost == "moderate" and NCCL.needs_load is False
    assert NCCL.argv[0] == "all_reduce_perf"


# --- p2pBandwidthLatencyTest ----------------------------------------------------------------


@needs_corpus
def test_p2p_002_matrices() -> None:
    result = parse_p2p(sample("p2p/002.txt"))
    assert at(result, "p2p.enabled", "gpu0-gpu1") is True
    assert at(result, "p2p.enabled", "gpu0-gpu2") is False
    assert at(result, "p2p.unidir_bw.disabled", "gpu0-gpu1") == 21.51
    assert at(result, "p2p.unidir_bw.enabled", "gpu0-gpu1") == 275.07
    assert at(result, "p2p.unidir_bw.enabled", "gpu3-gpu2") == 274.11
    assert at(result, "p2p.bidir_bw.enabled", "gpu2-gpu3") == 517.45
    assert at(result, "p2p.bidir_bw.disabled", "gpu3-gpu0") == 26.85
    assert at(result, "p2p.latency.gpu.disabled", "gpu0-gpu1") == 21.89
    assert at(result, "p2p.latency.gpu.enabled", "gpu0-gpu1") == 2.25
    assert at(result, "p2p.latency.cpu.enabled", "gpu3-gpu2") == 1.68
    assert at(result, "p2p.unidir_bw.enabled", "gpu0-gpu0") is None  # diagonal skipped
    assert result.values("p2p.unidir_bw.enabled.max") == {"host": 275.51}
    assert result.values("p2p.unidir_bw.enabled.min") == {"host": 21.46}
    assert at(result, "name", "gpu2") == "NVIDIA A100 80GB PCIe"


@needs_corpus
def test_p2p_007_nvlink_and_pcie_mix() -> None:
    result = parse_p2p(sample("p2p/007.txt"))
    assert at(result, "p2p.enabled", "gpu0-gpu3") is True  # connectivity matrix only
    assert at(result, "p2p.enabled", "gpu0-gpu4") is False
    assert at(result, "p2p.bidir_bw.enabled", "gpu0-gpu3") == 96.91
    assert at(result, "p2p.bidir_bw.enabled", "gpu0-gpu1") == 48.50
    assert at(result, "p2p.bidir_bw.enabled", "gpu0-gpu4") == 11.59
    assert at(result, "p2p.bidir_bw.disabled", "gpu7-gpu6") == 8.16
    assert result.problems == []


@needs_corpus
def test_p2p_read_variants_and_partial_outputs() -> None:
    reads = parse_p2p(sample("p2p/003.txt"))
    assert at(reads, "p2p.enabled", "gpu0-gpu1") is False
    assert "p2p.unidir_bw.enabled.reads" in {f.name for f in reads.facts}
    assert "p2p.latency.gpu.enabled.reads" in {f.name for f in reads.facts}
    cut = parse_p2p(sample("p2p/005.txt"))
    assert cut.parsed and len(cut.values("p2p.enabled")) == 13
    assert "no bandwidth or latency matrix values" in cut.problems[0]
    assert at(cut, "name", "gpu0") == "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"


# --- bandwidthTest and nvbandwidth -----------------------------------------------------------


@needs_corpus
def test_bandwidth_002_t4_in_a_cloud_vm() -> None:
    result = parse_bandwidth(sample("bandwidth/002.txt"))
    assert result.values("bandwidth.h2d") == {"gpu0": 9.7, "size=32000000": 9.7}
    assert at(result, "bandwidth.d2h", "gpu0") == 11.1
    assert at(result, "bandwidth.d2d", "gpu0") == 239.6
    assert at(result, "bandwidth.memory", "gpu0") == "pinned"
    assert at(result, "name", "gpu0") == "Tesla T4"


@needs_corpus
def test_bandwidth_008_pinned_and_pageable_runs() -> None:
    result = parse_bandwidth(sample("bandwidth/008.txt"))
    assert at(result, "bandwidth.h2d", "gpu0") == 17.3
    assert at(result, "bandwidth.d2h", "gpu0") == 24.6
    assert at(result, "bandwidth.h2d.pageable", "gpu0") == 3.3
    assert at(result, "bandwidth.d2h.pageable", "gpu0") == 8.5
    assert at(result, "bandwidth.memory", "gpu0") == "pinned+pageable"
    assert "bandwidth.d2d" not in {f.name for f in result.facts}


@needs_corpus
def test_bandwidth_007_vim_listchars_are_read_as_tabs() -> None:
    result = parse_bandwidth(sample("bandwidth/007.txt"))
    assert at(result, "bandwidth.h2d", "gpu0") == 25.7
    assert at(result, "bandwidth.d2h", "gpu0") == 25.8


@needs_corpus
def test_nvbandwidth_matrices_and_sums() -> None:
    one = parse_bandwidth(sample("bandwidth/001.txt"))
    assert one.values("nvbandwidth.host_to_device_memcpy_ce") == {"gpu0": 359.05}
    assert one.values("nvbandwidth.device_to_host_memcpy_ce.sum") == {"host": 377.15}
    eight = parse_bandwidth(sample("bandwidth/005.txt"))
    pairs = eight.values("nvbandwidth.device_to_device_memcpy_write_ce")
    assert len(pairs) == 56 and pairs["gpu6-gpu0"] == 274.89 and "gpu0-gpu0" not in pairs
    early = parse_bandwidth(sample("bandwidth/006.txt"))
    assert early.values("nvbandwidth.host_to_device_bidirectional_memcpy_ce") == {
        "gpu0": 12.33,
        "gpu1": 0.34,
    }


OLD_BANDWIDTH = """\
[CUDA Bandwidth Test] - Starting...
Running on...

 Device 0: GeForce GTX 1080 Ti
 Range Mode

 Host to Device Bandwidth, 1 Device(s)
 PINNED Memory Transfers
   Transfer Size (Bytes)\tBandwidth(MB/s)
   1024\t\t\t500.0
   1048576\t\t\t11500.0

Result = PASS
"""


def test_bandwidth_old_mb_per_s_is_converted_to_gb_per_s() -> None:
    result = parse_bandwidth(OLD_BANDWIDTH)
    # bandwidthTest's MB is 2^20 bytes: 11500 MB/s = 11500 * 1048576 / 1e9 GB/s
    assert at(result, "bandwidth.h2d", "gpu0") == round(11500 * 1048576 / 1e9, 4)
    assert at(result, "bandwidth.h2d", "size=1024") == round(500 * 1048576 / 1e9, 4)
    assert {f.unit for f in result.facts if f.name == "bandwidth.h2d"} == {"GB/s"}


def test_bandwidth_errors_are_unparsed_with_the_message() -> None:
    text = (
        "[CUDA Bandwidth Test] - Starting...\n"
        "Running on...\n\n"
        "cudaGetDeviceProperties returned 100\n"
        "-> no CUDA-capable device is detected\n"
        "CUDA error at bandwidthTest.cu:256 code=100(cudaErrorNoDevice)\n"
    )
    result = parse_bandwidth(text)
    assert not result.parsed and "no CUDA-capable device" in result.problems[0]
