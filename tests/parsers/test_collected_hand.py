"""Hand-written expectations for the collected samples other than lspci's (those are in
``test_collected_lspci``): values typed out from the samples, and small made-up cases (marked as
such) for what no public sample shows.

The golden files pin everything a parser says; these pin what rules and people read: what the
IOMMU does, where the CPUs are, the GPU's clock and temperature sections, and the series beside
each averaged metric.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest
from casefile_probes.dmon import parse_dmon
from casefile_probes.iommu_dmesg import parse_iommu_dmesg
from casefile_probes.kernel_cmdline import parse_cmdline
from casefile_probes.lspci import parse_lspci
from casefile_probes.numa import compact_cpus, parse_numa
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.series import MAX_POINTS, Series, decode, encode, slope
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table

from casefile.probes.api import Probe

from .hand import at, corpus, fixture, needs_corpus

# --- /proc/cmdline and dmesg ----------------------------------------------------------------


def test_cmdline_iommu_passthrough() -> None:
    result = parse_cmdline(fixture("cmdline/001.txt"))
    assert at(result, "kernel.iommu") == "pt"
    assert at(result, "kernel.iommu.passthrough") is True
    assert at(result, "kernel.pci.noacs") is None
    assert result.problems == []


def test_cmdline_noacs_and_flags() -> None:  # made up
    text = (
        "BOOT_IMAGE=/boot/vmlinuz root=UUID=1 ro pci=realloc,noacs amd_iommu=off "
        "iommu.strict=0 iommu.passthrough=maybe quiet\n"
    )
    result = parse_cmdline(text)
    assert at(result, "kernel.pci") == "realloc,noacs"
    assert at(result, "kernel.pci.noacs") is True
    assert at(result, "kernel.amd_iommu") == "off"
    assert at(result, "kernel.iommu.strict") is False
    assert at(result, "kernel.iommu.passthrough") is None
    assert at(result, "kernel.parameters") == 8
    assert result.problems == ["iommu.passthrough='maybe' is neither on nor off"]


def test_cmdline_refuses_prose() -> None:
    assert not parse_cmdline("this is not a kernel command line at all\n").parsed
    assert not parse_cmdline("").parsed


def test_wrapped_dmesg_command_line_is_joined_and_the_last_value_wins() -> None:
    result = parse_iommu_dmesg(fixture("iommu-dmesg/004.txt"))
    assert at(result, "kernel.intel_iommu") == "on"
    assert at(result, "kernel.iommu") == "pt"
    assert at(result, "kernel.iommu.passthrough") is True  # =1, =0, then =1 again


def test_dmesg_intel_units_and_passthrough_domain() -> None:
    result = parse_iommu_dmesg(fixture("iommu-dmesg/002.txt"))
    assert at(result, "iommu.enabled") is True
    assert at(result, "iommu.vendor") == "intel"
    assert at(result, "iommu.units") == 7
    assert at(result, "iommu.faults") is None
    single = parse_iommu_dmesg(fixture("iommu-dmesg/003.txt"))
    assert at(single, "iommu.default_domain") == "passthrough"
    assert at(single, "iommu.passthrough") is True
    # the kernel prints its default domain type on every boot: it says nothing of whether an
    # IOMMU is on
    assert at(single, "iommu.enabled") is None


def test_dmesg_amd_faults_and_translated_domain() -> None:  # made up
    text = "\n".join(
        [
            "[    1.10] pci 0000:00:00.2: AMD-Vi: Found IOMMU cap 0x40",
            "[    1.20] iommu: Default domain type: Translated",
            "[    1.21] iommu: DMA domain TLB invalidation policy: lazy mode",
            "[    1.30] pci 0000:41:00.0: Adding to iommu group 12",
            "[    1.31] pci 0000:41:00.1: Adding to iommu group 12",
            "[   90.00] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e "
            "address=0xf0000000 flags=0x0020]",
            "[   90.01] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e "
            "address=0xf0001000 flags=0x0020]",
        ]
    )
    result = parse_iommu_dmesg(text)
    assert at(result, "iommu.vendor") == "amd"
    assert at(result, "iommu.units") == 1
    assert at(result, "iommu.passthrough") is False
    assert at(result, "iommu.tlb_policy") == "lazy"
    assert at(result, "iommu.groups") == 1
    assert at(result, "iommu.faults") == 2
    assert not parse_iommu_dmesg("[    0.0] Linux version 6.8.0\n").parsed


def test_a_translated_domain_type_without_an_iommu_is_no_translation() -> None:  # made up
    """The kernel prints "Default domain type: Translated" with the IOMMU off too: read as
    translation only where the log shows an IOMMU on."""
    domain = "[    1.20] iommu: Default domain type: Translated"
    off = parse_iommu_dmesg(f"[    0.50] DMAR: IOMMU disabled\n{domain}\n")
    assert at(off, "iommu.enabled") is False
    assert at(off, "iommu.passthrough") is None
    alone = parse_iommu_dmesg(f"{domain}\n")
    assert at(alone, "iommu.enabled") is None
    assert at(alone, "iommu.passthrough") is None
    on = parse_iommu_dmesg(f"[    0.50] DMAR: IOMMU enabled\n{domain}\n")
    assert at(on, "iommu.passthrough") is False


# --- numactl and lscpu ---------------------------------------------------------------------


def test_numactl_nodes_memory_and_distances() -> None:
    result = parse_numa(fixture("numa/001.txt"))
    assert at(result, "numa.nodes") == 4
    assert at(result, "numa.cpus", "node1") == "6-11,30-35"
    assert at(result, "numa.cpu_count", "node3") == 12
    assert at(result, "numa.memory.total", "node2") == 64472
    assert at(result, "numa.memory.total", "node0") == 0
    assert at(result, "numa.distance", "node0-node3") == 12
    assert "node1-node0" not in result.values("numa.distance")
    assert result.problems == []


def test_lscpu_cpu_less_nodes() -> None:
    result = parse_numa(fixture("numa/002.txt"))
    assert at(result, "numa.nodes") == 9
    assert at(result, "numa.cpu_count", "node0") == 72
    assert at(result, "numa.cpu_count", "node8") == 0
    assert at(result, "numa.cpus", "node8") is None
    cut = parse_numa(fixture("numa/003.txt"))
    assert (
        at(cut, "cpu.sockets") == 2 and at(cut, "cpu.model") == "Intel(R) Xeon(R) Platinum 8462Y+"
    )
    assert "no node count" in cut.problems[0]


def test_numa_made_up_edges() -> None:
    asymmetric = (
        "available: 2 nodes (0-1)\nnode distances:\nnode   0   1\n  0:  10  21\n  1:  20  10\n"
    )
    result = parse_numa(asymmetric)
    assert at(result, "numa.distance", "node0-node1") == 21
    assert result.problems == ["distances differ by direction for node0-node1"]
    ranges = parse_numa(
        "NUMA node(s): 2\nNUMA node0 CPU(s): 0-27,56-83\nNUMA node1 CPU(s): 28-55,84\n"
    )
    assert at(ranges, "numa.cpu_count", "node0") == 56
    assert at(ranges, "numa.cpus", "node1") == "28-55,84"
    assert compact_cpus([5, 0, 1, 2, 2]) == "0-2,5"
    huge = parse_numa("NUMA node(s): 1\nNUMA node0 CPU(s): " + ",".join(["0-1048576"] * 2000))
    assert at(huge, "numa.cpu_count", "node0") == 1048577


# --- nvidia-smi -q sections and table fragments ---------------------------------------------


@needs_corpus
def test_q_temperature_thresholds() -> None:
    result = parse_smi_q(corpus("smi-q/005.txt"))
    assert at(result, "temperature.gpu", "gpu0") == 85
    assert at(result, "temperature.gpu.slowdown", "gpu0") == 91
    assert at(result, "temperature.gpu.shutdown", "gpu0") == 94
    assert at(result, "temperature.gpu.max_operating", "gpu0") == 89
    assert at(result, "temperature.gpu.target", "gpu0") is None


def test_q_counters_and_a_host_section_before_the_gpu() -> None:
    """580-era drivers print "vGPU Driver Capability" with a nested key before the first GPU:
    that is not a header-less fragment, and the GPU below it is gpu0 (it was gpu1)."""
    result = parse_smi_q(fixture("smi-q-sections/002.txt"))
    assert at(result, "clocks_event_reasons_counters.sw_power_cap", "gpu0") == 1202176
    assert at(result, "clocks_event_reasons.sw_power_cap", "gpu0") is False
    assert at(result, "pstate", "gpu0") == "P8"
    assert "gpu1" not in {fact.subject for fact in result.facts}
    assert result.problems == []


def test_q_clock_sections() -> None:
    result = parse_smi_q(fixture("smi-q-sections/004.txt"))
    assert at(result, "clocks.max.sm", "gpu0") == 1911
    assert at(result, "clocks.applications.gr", "gpu0") is None  # N/A
    assert at(result, "power.limit", "gpu0") == 250.0


def test_table_row_cut_after_the_bus_id_is_still_a_gpu() -> None:
    result = parse_smi_table(fixture("smi-table-fragment/001.txt"))
    assert at(result, "pci.bus_id", "gpu3") == "0007:01:00.0"
    assert at(result, "persistence_mode", "gpu3") == "Enabled"
    assert at(result, "ecc.errors.uncorrected.volatile.total", "gpu3") is None
    assert at(result, "temperature.gpu", "gpu1") == 26


# --- time series ----------------------------------------------------------------------------


@needs_corpus
def test_dmon_series_with_printed_times() -> None:
    result = parse_dmon(corpus("dmon/003.txt"))
    series = decode(str(at(result, "clocks.sm.series", "gpu0")))
    assert series is not None and series.clock == "measured"
    assert series.start == "20240104 13:54:35"
    assert series.times == (0.0, 1.0, 2.0, 3.0, 4.0, 5.0)
    assert at(result, "clocks.sm", "gpu0") == 1695.0  # the mean, as before
    assert at(result, "clocks.sm.series.slope", "gpu0") == 0.0


@needs_corpus
def test_query_loop_series_with_timestamps() -> None:
    result = parse_query_gpu(corpus("query-csv/002.txt"))
    series = decode(str(at(result, "utilization.gpu.series", "gpu0")))
    assert series is not None and series.start == "2026/02/25 10:04:37.416"
    assert series.times[:2] == (0.0, 1.007)
    assert len(series.values) == at(result, "query.samples", "gpu0")
    assert at(result, "utilization.gpu.series.max", "gpu0") == max(series.values)
    assert "name.series" not in {fact.name for fact in result.facts}  # text has no series


def test_dmon_trend_rising_temperature_falling_clock() -> None:  # made up
    rows = [f"    0   {300 - i}    {60 + 2 * i}     -   {1980 - 15 * i}" for i in range(6)]
    text = (
        "$ nvidia-smi dmon -s pc -d 2\n"
        "# gpu   pwr  gtemp  mtemp   pclk\n"
        "# Idx     W      C      C    MHz\n"
    )
    result = parse_dmon(text + "\n".join(rows) + "\n")
    assert at(result, "temperature.gpu.series.slope", "gpu0") == 1.0  # 2 C every 2 s
    assert at(result, "clocks.sm.series.slope", "gpu0") == -7.5
    assert at(result, "temperature.gpu.series.first", "gpu0") == 60
    assert at(result, "temperature.gpu.series.last", "gpu0") == 70
    assert at(result, "temperature.gpu", "gpu0") == 65.0
    series = decode(str(at(result, "temperature.gpu.series", "gpu0")))
    assert series is not None and series.clock == "interval" and series.times[-1] == 10.0
    assert "temperature.memory.series" not in {fact.name for fact in result.facts}


def test_dmon_time_column_across_midnight() -> None:  # made up
    text = "#Time      gpu   sm\n#HH:MM:SS  Idx    %\n 23:59:59    0   10\n 00:00:00    0   20\n"
    series = decode(str(at(parse_dmon(text), "utilization.gpu.series", "gpu0")))
    assert series is not None and series.times == (0.0, 1.0)


def test_query_loop_without_timestamps_uses_the_interval() -> None:  # made up
    text = (
        "$ nvidia-smi --query-gpu=index,temperature.gpu --format=csv,noheader -l 5\n"
        "0, 40\n1, 50\n0, 45\n1, 50\n"
    )
    result = parse_query_gpu(text)
    series = decode(str(at(result, "temperature.gpu.series", "gpu0")))
    assert series is not None and series.clock == "interval" and series.times == (0.0, 5.0)
    assert at(result, "temperature.gpu.series.slope", "gpu0") == 1.0
    assert at(result, "temperature.gpu.series.slope", "gpu1") == 0.0
    no_interval = parse_query_gpu(text.replace(" -l 5", ""))
    assert "temperature.gpu.series" not in {fact.name for fact in no_interval.facts}


def test_series_encoding_is_small_and_deterministic() -> None:
    long = Series(
        times=tuple(float(i) for i in range(1000)), values=tuple(float(i % 7) for i in range(1000))
    )
    text = encode(long)
    assert text == encode(long)
    back = decode(text)
    assert back is not None and len(back.values) == MAX_POINTS
    assert back.times[0] == 0.0 and back.times[-1] == 999.0
    assert '"n":1000' in text and " " not in text
    assert decode('{"clock":"measured","t":[0],"v":[true]}') is None
    assert decode("[1, 2]") is None and decode("nope") is None
    assert slope((0.0, 0.0), (1.0, 2.0)) is None


# --- registration --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "program"),
    [
        ("lspci-tree", "lspci"),
        ("kernel-cmdline", "cat"),
        ("iommu-dmesg", "dmesg"),
        ("numactl", "numactl"),
        ("lscpu", "lscpu"),
        ("nvidia-smi-q-perf", "nvidia-smi"),
    ],
)
def test_new_probes_are_registered(name: str, program: str) -> None:
    found = {ep.name: ep for ep in entry_points(group="casefile.probes")}
    probe = found[name].load()
    assert isinstance(probe, Probe) and probe.name == name
    assert probe.argv[0] == program and probe.facts
    assert not probe.safe_parse("").parsed


def test_tool_errors_are_unparsed_with_the_tools_words() -> None:
    denied = parse_iommu_dmesg("dmesg: read kernel buffer failed: Operation not permitted\n")
    assert not denied.parsed and "read kernel buffer failed" in denied.problems[0]
    no_numa = parse_numa("No NUMA available on this system\n")
    assert not no_numa.parsed and "No NUMA available" in no_numa.problems[0]
    lspci_error = parse_lspci("pcilib: Cannot open /proc/bus/pci\n")
    assert not lspci_error.parsed and "lspci printed an error" in lspci_error.problems[0]


def test_table_second_line_cut_after_the_memory_cell() -> None:  # made up
    text = (
        "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |       Off |\n"
        "|  0%   30C    P8             29W /  450W |    1583MiB /  24564MiB |\n"
    )
    result = parse_smi_table(text)
    assert at(result, "memory.used", "gpu0") == 1583
    assert at(result, "power.limit", "gpu0") == 450
    assert at(result, "utilization.gpu", "gpu0") is None
    assert at(result, "compute_mode", "gpu0") is None
