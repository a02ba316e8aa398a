"""Hand-written expectations for the PCIe link, topology and NUMA samples of the breadth round
(``topo/issues`` 005-010, ``numa`` 007-009, ``lspci-fragment`` 007-011, ``lspci-acs`` 003-004,
``lspci-tree`` 004), and the misreads they showed, each pinned by a test that failed before its
fix. Small made-up cases are cut from those real samples (marked as such) where the sample
itself does not end at the spot the fix is about.
"""

from __future__ import annotations

from casefile_probes.lspci import parse_lspci
from casefile_probes.lspci_tree import parse_lspci_tree
from casefile_probes.numa import parse_numa
from casefile_probes.topo import parse_topo

from .hand import at, fixture

# --- nvidia-smi topo -m --------------------------------------------------------------------


def test_a_cpu_affinity_cut_by_the_paste_is_not_read_as_a_cpu_list() -> None:
    # Row GPU4 ends inside its CPU Affinity ("112-127,240-25"), its NUMA columns gone.
    result = parse_topo(fixture("topo/issues/007.txt"))
    assert at(result, "topo.cpu_affinity", "gpu4") is None
    assert at(result, "topo.numa_affinity", "gpu4") is None
    assert at(result, "topo.cpu_affinity", "gpu3") == "16-31,144-159"
    assert at(result, "topo.numa_affinity", "gpu0") == "3"
    assert at(result, "topo.link", "gpu4-nic6") == "PXB"
    assert any("'112-127,240-25' may be cut short" in p for p in result.problems)


def test_a_row_cut_after_nv1_gives_no_nvlink_count() -> None:
    # Made up from topo/issues/007: row GPU4 cut after the first three letters of "NV12".
    lines = fixture("topo/issues/007.txt").splitlines()
    lines[-1] = "GPU4    NV12    NV12    NV12    NV12     X      NV1"
    result = parse_topo("\n".join(lines))
    assert at(result, "topo.link", "gpu4-gpu5") is None
    assert at(result, "topo.nvlinks", "gpu4-gpu5") is None
    assert at(result, "topo.nvlinks", "gpu0-gpu4") == 12
    assert any("may be the stump of NV10" in p for p in result.problems)


def test_a_whole_nv1_cell_inside_a_row_is_still_read() -> None:
    # Made up: a two-GPU matrix with one bonded NVLink, whole rows.
    text = (
        "        GPU0    GPU1    CPU Affinity\n"
        "GPU0     X      NV1     0-7\n"
        "GPU1    NV1      X      0-7\n"
    )
    result = parse_topo(text)
    assert at(result, "topo.nvlinks", "gpu0-gpu1") == 1
    assert not result.problems


def test_a_lone_nic_named_mlx4_0_is_a_column() -> None:
    result = parse_topo(fixture("topo/issues/005.txt"))
    assert at(result, "topo.link", "gpu0-mlx4_0") == "PHB"
    assert at(result, "topo.link", "gpu4-mlx4_0") == "SYS"
    assert at(result, "topo.link", "gpu0-gpu1") == "PIX"
    assert at(result, "topo.p2p_possible", "gpu0-gpu1") is True
    assert at(result, "topo.p2p_possible", "gpu0-gpu2") is False
    assert at(result, "topo.cpu_affinity", "gpu4") == "10-19,30-39"


def test_a_tab_separated_matrix_reads_its_nic_rows() -> None:
    result = parse_topo(fixture("topo/issues/009.txt"))
    assert at(result, "topo.link", "gpu0-nic8") == "PIX"
    assert at(result, "topo.link", "nic1-nic2") == "NODE"
    assert at(result, "topo.link", "nic0-nic5") == "SYS"
    assert at(result, "topo.numa_affinity", "gpu7") == "1"
    assert at(result, "topo.gpu_numa_id", "gpu7") is None  # "N/A"
    assert not result.problems


def test_all_sys_gpus_have_no_p2p_path() -> None:
    result = parse_topo(fixture("topo/issues/006.txt"))
    pairs = result.values("topo.p2p_possible")
    assert pairs and set(pairs.values()) == {False}
    assert at(result, "topo.link", "gpu5-nic5") == "PIX"
    assert at(result, "topo.cpu_affinity", "gpu5") == "56-111,168-223"


# --- numactl -H ------------------------------------------------------------------------------


def test_numactl_cpu_compress_lists_are_read() -> None:
    result = parse_numa(fixture("numa/008.txt"))
    assert at(result, "numa.cpus", "node0") == "0-15"
    assert at(result, "numa.cpu_count", "node1") == 16
    assert at(result, "numa.distance", "node0-node1") == 32
    assert not result.problems


def test_a_cpu_compress_count_that_disagrees_is_not_read() -> None:
    # Made up from numa/008: node 0's count edited to disagree with its range.
    text = fixture("numa/008.txt").replace("0-15 (16)", "0-15 (12)")
    result = parse_numa(text)
    assert at(result, "numa.cpus", "node0") is None
    assert at(result, "numa.cpus", "node1") == "16-31"
    assert any("numactl counts 12" in p for p in result.problems)


def test_numastat_after_numactl_adds_nothing() -> None:
    result = parse_numa(fixture("numa/007.txt"))
    assert at(result, "numa.cpus", "node1") == "32-63"
    assert at(result, "numa.memory.total", "node0") == 773271
    assert {fact.name for fact in result.facts} == {
        "numa.nodes",
        "numa.cpus",
        "numa.cpu_count",
        "numa.memory.total",
        "numa.memory.free",
        "numa.distance",
        "numa.cpu_nodes_per_socket",  # derived from numactl's own lines, not numastat's
    }
    assert at(result, "numa.cpu_nodes_per_socket", "host") == 1.0  # 2x EPYC, 32 apart


# --- lspci -----------------------------------------------------------------------------------


def test_a_loops_labelled_device_lines_name_its_link_records() -> None:
    result = parse_lspci(fixture("lspci-fragment/007.txt"))
    for gpu in ("0000:01:00.0", "0000:02:00.0"):
        assert at(result, "pci.vendor", gpu) == "nvidia"
        assert at(result, "pcie.link.width.current", gpu) == 8
        assert at(result, "pcie.link.width.max", gpu) == 16
        assert at(result, "pcie.link.width.downgraded", gpu) is True
        assert at(result, "pcie.link.speed.downgraded", gpu) is False
    assert not result.values("pcie.link.width.current").keys() - {"0000:01:00.0", "0000:02:00.0"}
    assert any("named by the address printed before each" in p for p in result.problems)


def test_bare_addresses_printed_by_a_loop_name_the_records() -> None:
    # Made up in the shape of an "echo $d; lspci -s $d -vv | grep Lnk" loop.
    text = (
        "31:00.0\n"
        "                LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <64us\n"
        "                LnkSta: Speed 2.5GT/s (downgraded), Width x8 (downgraded)\n"
        "34:00.0\n"
        "                LnkCap: Port #2, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <64us\n"
        "                LnkSta: Speed 16GT/s, Width x8 (downgraded)\n"
    )
    result = parse_lspci(text)
    assert at(result, "pcie.link.gen.current", "0000:31:00.0") == 1
    assert at(result, "pcie.link.speed.downgraded", "0000:34:00.0") is False
    assert at(result, "pcie.link.width.downgraded", "0000:34:00.0") is True
    assert not any(fact.subject.startswith("unknown") for fact in result.facts)


def test_an_lspci_command_line_is_not_a_device_label() -> None:
    result = parse_lspci(fixture("lspci-fragment/002.txt"))
    assert at(result, "pcie.link.speed.current", "0000:2f:00.0") == 32.0
    assert "taken from the lspci -s" in result.problems[0]


def test_acsctl_greps_with_redirect_and_a_cut_line() -> None:
    result = parse_lspci(fixture("lspci-fragment/008.txt"))
    redirect = result.values("pci.acs.redirect")
    assert [s for s, v in redirect.items() if v] == [
        "unknown1",
        "unknown9",
        "unknown10",
        "unknown11",
        "unknown12",
    ]
    assert at(result, "pci.acs.enabled", "unknown2") is True
    cut = parse_lspci(fixture("lspci-fragment/009.txt"))
    assert at(cut, "pci.acs.enabled", "unknown14") is False
    assert at(cut, "pci.acs.enabled", "unknown15") is None
    assert at(cut, "pci.acs.redirect", "unknown15") is None


def test_a_domain_other_than_zero_is_kept() -> None:
    result = parse_lspci(fixture("lspci-acs/003.txt"))
    assert at(result, "pci.iommu_group", "000f:01:00.0") == 20
    assert at(result, "pci.vendor", "000f:01:00.0") == "nvidia"
    assert any("no LnkSta line" in p for p in result.problems)


def test_a_switch_tree_without_names_gives_parents_only() -> None:
    result = parse_lspci_tree(fixture("lspci-tree/004.txt"))
    assert at(result, "pci.parent", "0000:63:00.0") == "0000:62:00.0"
    assert at(result, "pci.parent", "0000:61:00.0") == "0000:60:01.1"
    assert at(result, "pci.devices") == 66
    assert not result.values("pci.path")
