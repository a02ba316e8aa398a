"""Hand-written expectations for the collected lspci samples: which GPU sits under which
bridge, whether ACS redirects, and the pair facts, typed out from the collected samples and
small made-up cases (marked as such) for what no public sample shows. The rest of the
collected samples' hand-written expectations are in ``test_collected_hand``.
"""

from __future__ import annotations

from casefile_probes.lspci import PROBE as LSPCI
from casefile_probes.lspci import parse_lspci
from casefile_probes.lspci_tree import MAX_PAIRED, ROOT_COMPLEX, parse_lspci_tree

from .hand import at, corpus, fixture, needs_corpus

# --- lspci: fragments without a device line -----------------------------------------------


def test_acsctl_grep_gives_one_unknown_device_per_line_and_says_so() -> None:
    result = parse_lspci(fixture("lspci-fragment/004.txt"))
    redirecting = sorted(s for s, v in result.values("pci.acs.redirect").items() if v is True)
    # lines 3, 5, 6, 9 and 10 of the paste read "ReqRedir+ CmpltRedir+"
    assert redirecting == ["unknown10", "unknown3", "unknown5", "unknown6", "unknown9"]
    assert at(result, "pci.acs.ctl.src_valid", "unknown15") is True
    assert at(result, "pci.acs.enabled", "unknown1") is False
    # the 16th line is cut ("SrcValid+ TransBlk- Req"): a record, but no redirect verdict
    assert len(result.values("pci.acs.redirect")) == 15
    assert at(result, "pci.acs.enabled", "unknown16") is True
    assert any("16 link/ACS record(s) without an address" in p for p in result.problems)


def test_a_grepd_link_pair_takes_the_address_from_lspci_s() -> None:
    result = parse_lspci(fixture("lspci-fragment/002.txt"))
    assert at(result, "pcie.link.speed.current", "0000:2f:00.0") == 32.0
    assert at(result, "pcie.link.width.max", "0000:2f:00.0") == 16
    assert at(result, "pcie.link.downgraded", "0000:2f:00.0") is False
    assert "taken from the lspci -s" in result.problems[0]


def test_a_link_pair_without_anything_else_is_unknown1() -> None:
    result = parse_lspci(fixture("lspci-fragment/003.txt"))
    assert at(result, "pcie.link.speed.downgraded", "unknown1") is True
    assert at(result, "pcie.link.width.downgraded", "unknown1") is False
    assert at(result, "pcie.link.gen.current", "unknown1") == 1


def test_acs_lines_before_the_first_device_line_are_not_lost() -> None:
    result = parse_lspci(fixture("lspci-acs/002.txt"))
    assert at(result, "pci.acs.redirect", "unknown1") is True
    assert at(result, "pci.acs.cap.direct_trans", "unknown1") is True
    assert at(result, "pci.class", "0000:02:08.0") == "PCI bridge"
    assert "the paste starts mid-device" in result.problems[0]


def test_acs_on_an_emulated_root_port() -> None:
    result = parse_lspci(fixture("lspci-acs/001.txt"))
    port = "0000:00:00.0"
    assert at(result, "pci.acs.supported", port) is True
    assert at(result, "pci.acs.cap.egress_ctrl", port) is False
    assert at(result, "pci.acs.cap.req_redir", port) is True
    assert at(result, "pci.acs.enabled", port) is False
    assert at(result, "pci.acs.redirect", port) is False


# --- lspci: the tree from -vvv bus ranges --------------------------------------------------

# Made up (no public -vvv paste of a GPU pair under a switch was found): a root port, a switch
# with two downstream ports (ACS redirecting on one), a GPU under each, a third GPU on another
# root port whose capabilities were not readable.
SWITCH = """\
00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge
\tBus: primary=00, secondary=01, subordinate=04, sec-latency=0
\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00
\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <64us
\t\tLnkSta:\tSpeed 16GT/s (ok), Width x16 (ok)
01:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 Switch (rev ca)
\tBus: primary=01, secondary=02, subordinate=04, sec-latency=0
\tCapabilities: [68] Express (v2) Upstream Port, MSI 00
02:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 Switch (rev ca)
\tBus: primary=02, secondary=03, subordinate=03, sec-latency=0
\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
\tCapabilities: [148 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
02:08.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 Switch (rev ca)
\tBus: primary=02, secondary=04, subordinate=04, sec-latency=0
\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
\tCapabilities: [148 v1] Access Control Services
\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+
\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-
03:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB] (rev a1)
\tCapabilities: [78] Express (v2) Endpoint, MSI 00
04:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB] (rev a1)
\tCapabilities: [78] Express (v2) Endpoint, MSI 00
40:00.0 Host bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse Root Complex
40:03.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge
\tBus: primary=40, secondary=41, subordinate=41, sec-latency=0
\tCapabilities: <access denied>
41:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB] (rev a1)
\tCapabilities: <access denied>
"""


def test_vvv_bus_ranges_give_each_gpu_its_path_and_acs() -> None:
    result = parse_lspci(SWITCH)
    a, b, c = "0000:03:00.0", "0000:04:00.0", "0000:41:00.0"
    assert at(result, "pci.parent", a) == "0000:02:00.0"
    assert at(result, "pci.parent", "0000:02:00.0") == "0000:01:00.0"
    assert at(result, "pci.path", a) == "0000:00:01.1>0000:01:00.0>0000:02:00.0"
    assert at(result, "pci.root_port", b) == "0000:00:01.1"
    assert at(result, "pci.path.acs_redirect", a) is True
    assert at(result, "pci.path.acs_redirect", b) is False
    assert at(result, "pci.path.acs_redirect", c) is None  # the root port was not readable
    assert at(result, "pci.path", c) == "0000:40:03.1"
    assert at(result, "pci.pair.common_bridge", f"{a}-{b}") == "0000:01:00.0"
    assert at(result, "pci.pair.acs_redirect", f"{a}-{b}") is True
    assert at(result, "pci.pair.common_bridge", f"{a}-{c}") == ROOT_COMPLEX
    assert at(result, "pci.pair.acs_redirect", f"{b}-{c}") is None


def test_a_gpu_whose_bridge_is_missing_gets_no_path() -> None:
    # the root port's block cut from the paste: the chain above 01:00.0 is not complete
    text = SWITCH[SWITCH.index("01:00.0 PCI bridge") : SWITCH.index("40:00.0")]
    result = parse_lspci(text)
    assert result.values("pci.path") == {}
    assert at(result, "pci.parent", "0000:03:00.0") == "0000:02:00.0"
    assert at(result, "pci.pair.common_bridge", "0000:03:00.0-0000:04:00.0") is None


@needs_corpus
def test_corpus_p100s_sit_on_root_ports_of_different_sockets() -> None:
    result = parse_lspci(corpus("lspci/001.txt"))
    assert at(result, "pci.root_port", "0000:04:00.0") == "0000:00:02.0"
    assert at(result, "pci.root_port", "0000:82:00.0") == "0000:80:02.0"
    assert at(result, "pci.pair.common_bridge", "0000:04:00.0-0000:82:00.0") == ROOT_COMPLEX
    assert at(result, "pci.pair.acs_redirect", "0000:04:00.0-0000:82:00.0") is False


def test_default_argv_reads_the_whole_bus_as_an_argument_list() -> None:
    assert LSPCI.argv == ("lspci", "-vvv")
    assert all(" " not in arg and "|" not in arg for arg in LSPCI.argv)
    assert "pci.pair.acs_redirect" in LSPCI.facts


# --- lspci -t -------------------------------------------------------------------------------


def test_tree_without_names_gives_parents() -> None:
    result = parse_lspci_tree(fixture("lspci-tree/001.txt"))
    assert at(result, "pci.parent", "0000:04:00.0") == "0000:00:02.1"
    assert at(result, "pci.parent", "0000:05:0d.0") == "0000:04:00.0"
    assert at(result, "pci.parent", "0000:06:00.0") == "0000:05:00.0"
    assert at(result, "pci.parent", "0000:10:00.0") == "0000:05:0d.0"
    assert at(result, "pci.parent", "0000:12:00.6") == "0000:00:08.1"
    assert at(result, "pci.parent", "0000:00:14.0") is None
    assert at(result, "pci.devices") == 44
    assert "without names" in result.problems[0]


def test_tree_across_root_buses() -> None:
    result = parse_lspci_tree(fixture("lspci-tree/002.txt"))
    assert at(result, "pci.parent", "0000:22:00.4") == "0000:20:08.1"
    assert at(result, "pci.parent", "0000:62:02.0") == "0000:61:00.0"
    assert at(result, "pci.parent", "0000:63:00.0") == "0000:62:02.0"


# Made up in lspci -tvnn's layout: two GPUs under one switch, a third on another root port.
TREE_NAMED = """\
$ lspci -tvnn
-[0000:00]-+-00.0  Advanced Micro Devices, Inc. [AMD] Starship/Matisse Root Complex [1022:1480]
           +-01.1-[01-04]----00.0-[02-04]--+-00.0-[03]--+-00.0  NVIDIA Corporation GA102 [10de:2204]
           |                               |            \\-00.1  NVIDIA GA102 Audio [10de:1aef]
           |                               \\-08.0-[04]----00.0  NVIDIA GA102 [10de:2204]
           \\-03.1-[05]----00.0  NVIDIA Corporation GA102 (rev a1) [10de:2204]
"""


def test_named_tree_says_which_gpu_sits_under_which_switch() -> None:
    for result in (parse_lspci_tree(TREE_NAMED), parse_lspci(TREE_NAMED)):
        a, b, c = "0000:03:00.0", "0000:04:00.0", "0000:05:00.0"
        assert at(result, "pci.path", a) == "0000:00:01.1>0000:01:00.0>0000:02:00.0"
        assert at(result, "pci.path", b) == "0000:00:01.1>0000:01:00.0>0000:02:08.0"
        assert at(result, "pci.root_port", c) == "0000:00:03.1"
        assert at(result, "pci.pair.common_bridge", f"{a}-{b}") == "0000:01:00.0"
        assert at(result, "pci.pair.common_bridge", f"{a}-{c}") == ROOT_COMPLEX
        assert f"{a}-0000:03:00.1" not in result.values("pci.pair.common_bridge")
        assert at(result, "pci.device", c) == "NVIDIA Corporation GA102"
        assert at(result, "pci.vendor", "0000:03:00.1") == "nvidia"
        assert at(result, "pci.vendor", "0000:00:00.0") is None
        assert result.problems == []


# --- lspci: more made-up edges -----------------------------------------------------------


def test_nvswitches_in_a_tree_are_not_gpus() -> None:  # made up, in lspci -tvnn's layout
    text = (
        "-[0000:00]-+-01.0-[01]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]\n"
        "           +-02.0-[02]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]\n"
        "           \\-03.0-[03]----00.0  NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3]\n"
    )
    result = parse_lspci_tree(text)
    assert set(result.values("pci.path")) == {"0000:01:00.0", "0000:02:00.0"}
    assert result.values("pci.pair.common_bridge") == {"0000:01:00.0-0000:02:00.0": ROOT_COMPLEX}
    assert at(result, "pci.vendor", "0000:03:00.0") == "nvidia"


def test_pair_facts_stop_at_max_paired_gpus() -> None:  # made up
    blocks = []
    for bus in range(1, MAX_PAIRED + 2):
        blocks += [
            f"00:{bus % 32:02x}.{bus // 32} PCI bridge: Intel Corporation Root Port",
            f"\tBus: primary=00, secondary={bus:02x}, subordinate={bus:02x}, sec-latency=0",
            "\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00",
            f"{bus:02x}:00.0 3D controller: NVIDIA Corporation GA100",
        ]
    result = parse_lspci("\n".join(blocks))
    assert len(result.values("pci.path")) == MAX_PAIRED + 1
    assert result.values("pci.pair.common_bridge") == {}
    assert f"more than {MAX_PAIRED}, so no pair facts" in result.problems[-1]
