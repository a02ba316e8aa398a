"""p2pBandwidthLatencyTest, bandwidthTest, IOMMU, NUMA and lspci shapes from public pastes that
the parsers refused or misread.

Each test names the real sample (``tests/golden/…``) that showed the shape and checks what is
read from it; a reduced text pins the edge of the change.
"""

from __future__ import annotations

from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.iommu_dmesg import parse_iommu_dmesg
from casefile_probes.lspci import parse_lspci
from casefile_probes.numa import parse_numa
from casefile_probes.p2p import parse_p2p

from .corpus import GOLDEN


def _read(key: str) -> str:
    return (GOLDEN / f"{key}.txt").read_text(encoding="utf-8")


def test_p2p_matrices_pasted_with_editor_line_numbers_are_read() -> None:
    """cuda-samples#230 numbers every line ('  3      0   2.61  14.95 …'): it was refused."""
    result = parse_p2p(_read("p2p/issues/007"))
    assert result.parsed
    assert result.values("p2p.latency.gpu.disabled")["gpu0-gpu2"] == 19.61
    assert result.values("p2p.latency.cpu.enabled")["gpu3-gpu1"] == 1.91
    assert result.values("p2p.gpus") == {"host": 4}


def test_numbered_lines_read_as_the_plain_ones_and_rows_keep_their_indices() -> None:
    """vim's '  1 ' and cat -n's '     1<TAB>' numbers come off; a matrix's own row indices,
    numbers at the start of lines too, stay."""
    text = (
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n"
        "   D\\D     0      1\n"
        "     0 770.52  11.03\n"
        "     1  11.02 773.20\n"
    )
    plain = parse_p2p(text).values("p2p.unidir_bw.enabled")
    assert plain == {"gpu0-gpu1": 11.03, "gpu1-gpu0": 11.02}
    lines = text.splitlines()
    vim = "".join(f"{n:3d} {line}\n" for n, line in enumerate(lines, 1))
    cat = "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, 7))
    assert parse_p2p(vim).values("p2p.unidir_bw.enabled") == plain
    assert parse_p2p(cat).values("p2p.unidir_bw.enabled") == plain


def test_a_second_bandwidth_test_run_whose_banner_lost_its_bracket_is_the_same_gpu() -> None:
    """gearshifft#82: two numactl-bound runs on one P100; the second run's banner reads
    'CUDA Bandwidth Test] - Starting...' and its values were put on 'host'."""
    result = parse_bandwidth(_read("bandwidth/issues/001"))
    gpu0 = [f.value for f in result.facts if f.name == "bandwidth.h2d" and f.subject == "gpu0"]
    assert gpu0 == [12.7409, 3.9672]
    assert not [f for f in result.facts if f.subject == "host"]


def test_old_amd_iommu_lazy_flushing_line_gives_the_tlb_policy() -> None:
    """AMDSEV#62 (kernel before 5.13): 'AMD-Vi: Lazy IO/TLB flushing enabled'."""
    assert parse_iommu_dmesg(_read("iommu-dmesg/005")).values("iommu.tlb_policy") == {
        "host": "lazy"
    }
    strict = parse_iommu_dmesg("[    1.1] AMD-Vi: IO/TLB flush on unmap enabled\n")
    assert strict.values("iommu.tlb_policy") == {"host": "strict"}


def test_a_numactl_paste_cut_on_a_cpu_line_does_not_count_that_node_short() -> None:
    """sonar#358 ends on 'node 3 cpus: 48 49 50 51 52 53': node3 was said to have 6 CPUs."""
    result = parse_numa(_read("numa/006"))
    assert "node3" not in result.values("numa.cpu_count")
    assert result.values("numa.cpu_count")["node2"] == 16
    assert any("node3's CPU list" in problem for problem in result.problems)
    # a grep of the CPU lines alone ends on one too, and is whole
    grep = parse_numa("node 0 cpus: 0 1 2 3\nnode 1 cpus: 4 5 6 7\n")
    assert grep.values("numa.cpu_count") == {"node0": 4, "node1": 4}


def test_a_kernel_command_line_cut_by_the_paste_gives_way_to_the_whole_one() -> None:
    """nix-amd-ai#49 ends inside 'Kernel command line:' (… 'vdso32=0 iommu.passthrough=1'):
    it was read as the command line, 16 parameters and no iommu=pt."""
    result = parse_iommu_dmesg(_read("iommu-dmesg/004"))
    assert result.values("kernel.parameters") == {"host": 35}
    assert result.values("kernel.iommu") == {"host": "pt"}
    assert any("cut by the end of the paste" in problem for problem in result.problems)
    # the two messages whole and alike: the last is read, nothing is said
    whole = (
        "[    0.000000] Command line: ro quiet iommu=pt\n"
        "[    0.020000] Kernel command line: ro quiet iommu=pt\n"
    )
    result = parse_iommu_dmesg(whole)
    assert result.values("kernel.iommu") == {"host": "pt"}
    assert not result.problems


def test_an_acsctl_line_cut_short_gives_no_redirect_verdict() -> None:
    """nccl#629's paste ends on 'ACSCtl:\\tSrcValid+ TransBlk- Req': the missing ReqRedir,
    CmpltRedir and EgressCtrl bits were read as off, so 'pci.acs.redirect' was False."""
    result = parse_lspci(_read("lspci-fragment/004"))
    assert "unknown16" not in result.values("pci.acs.redirect")
    assert result.values("pci.acs.enabled")["unknown16"] is True  # SrcValid+ was shown
    assert result.values("pci.acs.ctl.src_valid")["unknown16"] is True
    assert any(p.startswith("unknown16: ACSCtl line cut short") for p in result.problems)
    # a bit that is shown set still counts on a cut line
    cut = parse_lspci("\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ Cmplt")
    assert cut.values("pci.acs.redirect") == {"unknown1": True}
