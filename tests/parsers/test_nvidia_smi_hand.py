"""Expectations typed by hand from reading the raw corpus samples, not from parser output.

The golden files pin everything the parsers emit; these tests pin the values a rule will
actually lean on (link types, P2P, affinity, PCIe gen/width, throughput), so that a
regenerated golden file cannot quietly change them.
"""

from __future__ import annotations

from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.topo import parse_topo

from casefile.domain.facts import ParseResult

from .corpus import CORPUS


def _read(folder: str, stem: str) -> str:
    return (CORPUS / folder / f"{stem}.txt").read_text(encoding="utf-8")


def _fact(result: ParseResult, name: str, subject: str) -> object:
    return result.values(name).get(subject)


# --- topology -------------------------------------------------------------------------------


def test_nvidia_smi_topo_008_nvlink_and_nics_crlf() -> None:
    """8x A800 NV8, 4 NICs, CRLF line endings and a '> ' prompt line."""
    result = parse_topo(_read("topo", "008"))
    assert result.parsed
    assert _fact(result, "topo.link", "gpu0-gpu7") == "NV8"
    assert _fact(result, "topo.nvlinks", "gpu3-gpu4") == 8
    assert _fact(result, "topo.p2p_possible", "gpu0-gpu7") is True
    assert _fact(result, "topo.link", "gpu1-nic0") == "PIX"
    assert _fact(result, "topo.link", "gpu0-nic0") == "NODE"
    assert _fact(result, "topo.link", "gpu7-nic3") == "PIX"
    assert _fact(result, "topo.link", "gpu4-nic0") == "SYS"
    assert _fact(result, "topo.link", "nic2-nic3") == "PIX"
    assert _fact(result, "topo.link", "nic0-nic1") == "NODE"
    # p2p_possible is a GPU-to-GPU notion only
    assert _fact(result, "topo.p2p_possible", "gpu1-nic0") is None
    assert _fact(result, "topo.cpu_affinity", "gpu0") == "0-31,64-95"
    assert _fact(result, "topo.cpu_affinity", "gpu7") == "32-63,96-127"
    assert _fact(result, "topo.numa_affinity", "gpu3") == "0"
    assert _fact(result, "topo.numa_affinity", "gpu4") == "1"
    assert result.values("topo.nic_device") == {
        "nic0": "mlx5_0",
        "nic1": "mlx5_1",
        "nic2": "mlx5_2",
        "nic3": "mlx5_3",
    }
    gpu_pairs = [s for s in result.values("topo.link") if s.count("gpu") == 2]
    assert len(gpu_pairs) == 28


def test_nvidia_smi_topo_015_pcie_switch_tree_old_legend() -> None:
    """8x P40 behind PCIe switches, an mlx5_0 column, the old SOC name for SYS."""
    result = parse_topo(_read("topo", "015"))
    assert _fact(result, "topo.link", "gpu0-gpu1") == "PIX"
    assert _fact(result, "topo.link", "gpu0-gpu4") == "PXB"
    assert _fact(result, "topo.link", "gpu5-gpu7") == "PIX"
    assert _fact(result, "topo.p2p_possible", "gpu0-gpu4") is True
    assert _fact(result, "topo.link", "gpu3-mlx5_0") == "SOC"
    assert _fact(result, "topo.cpu_affinity", "gpu6") == "0-13"
    assert result.values("topo.numa_affinity") == {}


def test_nvidia_smi_topo_006_numa_not_available_for_one_gpu() -> None:
    """GPU0's NUMA affinity is N/A (no fact), GPU1's is 1; both on SYS."""
    result = parse_topo(_read("topo", "006"))
    assert _fact(result, "topo.link", "gpu0-gpu1") == "SYS"
    assert _fact(result, "topo.p2p_possible", "gpu0-gpu1") is False
    assert _fact(result, "topo.cpu_affinity", "gpu0") == "0-7,16-23"
    assert _fact(result, "topo.cpu_affinity", "gpu1") == "8-15,24-31"
    assert result.values("topo.numa_affinity") == {"gpu1": "1"}
    assert result.values("topo.gpu_numa_id") == {}


def test_nvidia_smi_topo_p2p_read_matrices() -> None:
    ok = parse_topo(_read("topo", "013"))
    assert _fact(ok, "topo.p2p.read", "gpu2-gpu6") == "OK"
    assert _fact(ok, "topo.p2p_supported", "gpu2-gpu6") is True
    assert len(ok.values("topo.p2p_supported")) == 28
    chipset = parse_topo(_read("topo", "014"))
    assert chipset.values("topo.p2p.read") == {"gpu0-gpu1": "CNS"}
    assert chipset.values("topo.p2p_supported") == {"gpu0-gpu1": False}
    assert chipset.values("topo.link") == {}


def test_nvidia_smi_topo_glued_cells_are_split() -> None:
    """topo/005 lost tabs: 'NIC8NIC9' in the header, 'NODEPXB' in GPU5's row."""
    result = parse_topo(_read("topo", "005"))
    assert _fact(result, "topo.link", "gpu5-nic8") == "NODE"
    assert _fact(result, "topo.link", "gpu5-nic9") == "PXB"
    assert _fact(result, "topo.link", "gpu7-nic11") == "PXB"
    assert _fact(result, "topo.numa_affinity", "gpu4") == "1"


# --- --query-gpu CSV ------------------------------------------------------------------------


def test_nvidia_smi_query_013_values_and_units() -> None:
    result = parse_query_gpu(_read("query-csv", "013"))
    assert result.parsed and result.problems == []
    gpu = {f.name: (f.value, f.unit) for f in result.facts if f.subject == "gpu0"}
    assert gpu["name"] == ("NVIDIA L4", None)
    assert gpu["temperature.gpu"] == (70, "C")
    assert gpu["utilization.gpu"] == (0, "%")
    assert gpu["memory.used"] == (7532, "MiB")
    assert gpu["memory.total"] == (23034, "MiB")
    assert gpu["power.draw"] == (34.39, "W")
    assert gpu["power.limit"] == (72.0, "W")
    assert result.values("driver_version") == {"host": "580.173.02"}


def test_nvidia_smi_query_004_header_after_garbled_prompt() -> None:
    result = parse_query_gpu(_read("query-csv", "004"))
    assert result.values("name") == {"gpu0": "GeForce GTX 1080 Ti", "gpu1": "GeForce GTX 1060 6GB"}
    assert result.values("power.draw") == {"gpu0": 106.56, "gpu1": 5.68}
    assert result.values("clocks.gr") == {"gpu0": 1936, "gpu1": 139}
    assert result.values("clocks.mem") == {"gpu0": 5508, "gpu1": 405}
    assert result.values("fan.speed") == {"gpu0": 29, "gpu1": 29}
    # the bash `time` lines after the table are reported, not read
    assert any("real" in problem for problem in result.problems)


def test_nvidia_smi_query_009_index_column_names_the_gpus() -> None:
    result = parse_query_gpu(_read("query-csv", "009"))
    assert result.values("memory.used")["gpu0"] == 28
    assert result.values("memory.used")["gpu7"] == 1
    assert set(result.values("memory.total").values()) == {97871}
    assert len(result.values("utilization.gpu")) == 8


def test_nvidia_smi_query_006_versions_stay_text() -> None:
    result = parse_query_gpu(_read("query-csv", "006"))
    assert result.values("compute_cap") == {"gpu0": "7.0", "gpu1": "8.9"}
    assert result.values("name")["gpu1"] == "NVIDIA RTX 5880 Ada Generation"


def test_nvidia_smi_query_noheader_without_command_is_unparsed() -> None:
    result = parse_query_gpu(_read("query-csv", "011"))
    assert not result.parsed
    assert "cannot be named" in result.problems[0]


def test_nvidia_smi_query_noheader_named_by_command_line() -> None:
    text = (
        "$ nvidia-smi --query-gpu=index,pci.bus_id,power.draw,temperature.memory,"
        "pcie.link.gen.current,clocks_event_reasons.active --format=csv,noheader,nounits\n"
        "0, 00000000:01:00.0, 299.35, N/A, 5, 0x0000000000000004\n"
        "1, 00000000:41:00.0, [Not Supported], 55, 4, 0x0000000000000001\n"
    )
    result = parse_query_gpu(text)
    assert result.parsed
    assert result.values("pci.bus_id") == {"gpu0": "0000:01:00.0", "gpu1": "0000:41:00.0"}
    assert result.values("power.draw") == {"gpu0": 299.35}  # [Not Supported] is absent
    assert result.values("temperature.memory") == {"gpu1": 55}  # N/A is absent
    assert [f.unit for f in result.facts if f.name == "temperature.memory"] == ["C"]
    assert result.values("pcie.link.gen.current") == {"gpu0": 5, "gpu1": 4}
    assert result.values("clocks_event_reasons.sw_power_cap") == {"gpu0": True, "gpu1": False}
    assert result.values("clocks_event_reasons.gpu_idle") == {"gpu0": False, "gpu1": True}


# --- nvidia-smi -q --------------------------------------------------------------------------


def test_nvidia_smi_q_002_wsl_gen4_x8_of_x16() -> None:
    result = parse_smi_q(_read("smi-q", "002"))
    gpu = {f.name: (f.value, f.unit) for f in result.facts if f.subject == "gpu0"}
    assert gpu["pcie.link.gen.current"] == (4, None)
    assert gpu["pcie.link.gen.max"] == (4, None)
    assert gpu["pcie.link.width.current"] == (8, None)
    assert gpu["pcie.link.width.max"] == (16, None)
    assert gpu["pcie.tx_throughput"] == (52000, "KB/s")
    assert gpu["pcie.rx_throughput"] == (0, "KB/s")
    assert gpu["pci.bus_id"] == ("0000:08:00.0", None)
    assert gpu["driver_model.current"] == ("WDDM", None)
    assert result.values("cuda_version") == {"host": "12.2"}


def test_nvidia_smi_q_005_four_gpus_one_at_gen1() -> None:
    result = parse_smi_q(_read("smi-q", "005"))
    assert result.values("pcie.link.gen.current") == {"gpu0": 3, "gpu1": 1, "gpu2": 3, "gpu3": 3}
    assert result.values("pcie.link.gen.max") == {"gpu0": 3, "gpu1": 3, "gpu2": 3, "gpu3": 3}
    assert set(result.values("pcie.link.width.current").values()) == {16}
    assert result.values("pcie.tx_throughput")["gpu0"] == 853000
    assert result.values("pcie.rx_throughput")["gpu0"] == 6684000
    assert result.values("pcie.tx_throughput")["gpu2"] == 30000
    assert result.values("pcie.rx_throughput")["gpu2"] == 91000
    assert result.values("clocks_event_reasons.sw_power_cap")["gpu0"] is True
    assert result.values("processes.count")["gpu0"] == 1
    assert result.values("driver_version") == {"host": "440.31"}


def test_nvidia_smi_q_fragment_with_command_line_names_the_gpu() -> None:
    result = parse_smi_q(_read("smi-q", "018"))
    assert result.values("fabric.state") == {"gpu0": "In Progress"}
    assert result.values("fabric.status") == {}  # N/A


# --- shared helpers and registration --------------------------------------------------------


def test_nvidia_smi_text_helpers() -> None:
    from casefile_probes._text import clean, is_missing, normalise_bus_id, parse_quantity

    cleaned = clean("> root@host:~# nvidia-smi topo -m\r\n> GPU0\tX\r\n> \\# gpu\r\n")
    assert cleaned.commands == ["nvidia-smi topo -m"]
    assert cleaned.lines == ["GPU0\tX", "# gpu", ""]
    assert clean("^C    0     31").lines == ["    0     31"]
    assert normalise_bus_id("00000000:8B:00.0") == "0000:8b:00.0"
    assert normalise_bus_id("00000009:01:00.0") == "0009:01:00.0"
    assert normalise_bus_id("01:00.0") == "0000:01:00.0"
    assert normalise_bus_id("GPU-1234") is None
    assert parse_quantity("74.71 W") == (74.71, "W")
    assert parse_quantity("16x") == (16, "x")
    assert parse_quantity("1583MiB") == (1583, "MiB")
    assert parse_quantity("[N/A]") is None
    assert all(is_missing(v) for v in ("N/A", "[Not Supported]", "-", " n/a "))
    assert not is_missing("0")


def test_nvidia_smi_probes_are_registered() -> None:
    from importlib.metadata import entry_points

    from casefile.probes.api import Probe

    found = {ep.name: ep for ep in entry_points(group="casefile.probes")}
    for name in (
        "nvidia-smi-topo",
        "nvidia-smi-query",
        "nvidia-smi-q",
        "nvidia-smi",
        "nvidia-smi-dmon",
        "nvidia-smi-pmon",
    ):
        probe = found[name].load()
        assert isinstance(probe, Probe)
        assert probe.name == name
        assert probe.argv[0] == "nvidia-smi"
        assert probe.facts
        assert not probe.safe_parse("").parsed


def test_nvidia_smi_q_performance_section_only() -> None:
    """``nvidia-smi -q -d PERFORMANCE -i 1``: one section, nested slowdown reasons."""
    text = "\n".join(
        [
            "$ nvidia-smi -q -d PERFORMANCE -i 1",
            "",
            "==============NVSMI LOG==============",
            "",
            "Timestamp                                 : Mon Jan  6 10:00:00 2025",
            "Driver Version                            : 550.54.14",
            "CUDA Version                              : 12.4",
            "",
            "Attached GPUs                             : 2",
            "GPU 00000000:41:00.0",
            "    Performance State                     : P0",
            "    Clocks Event Reasons",
            "        Idle                              : Not Active",
            "        Applications Clocks Setting       : Not Active",
            "        SW Power Cap                      : Active",
            "        HW Slowdown                       : Not Active",
            "            HW Thermal Slowdown           : Not Active",
            "            HW Power Brake Slowdown       : [Not Supported]",
            "        Sync Boost                        : Not Active",
            "        SW Thermal Slowdown               : Not Active",
            "        Display Clock Setting             : Not Active",
            "    Sparse Operation Mode                 : N/A",
        ]
    )
    result = parse_smi_q(text)
    assert result.parsed and result.problems == []
    assert result.values("pstate") == {"gpu1": "P0"}
    assert result.values("clocks_event_reasons.sw_power_cap") == {"gpu1": True}
    assert result.values("clocks_event_reasons.hw_thermal_slowdown") == {"gpu1": False}
    assert result.values("clocks_event_reasons.hw_power_brake_slowdown") == {}
    assert result.values("driver_version") == {"host": "550.54.14"}


WINDOWS_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 566.36                 Driver Version: 566.36         CUDA Version: 12.7     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4070 ...  WDDM  |   00000000:01:00.0  On |                  N/A |
| N/A   45C    P8              2W /   80W |     512MiB /   8188MiB |      3%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


def test_nvidia_smi_table_windows_driver_model() -> None:
    from casefile_probes.smi_table import parse_smi_table

    text = WINDOWS_TABLE
    result = parse_smi_table(text)
    assert result.values("driver_model.current") == {"gpu0": "WDDM"}
    assert result.values("power.limit") == {"gpu0": 80}
    assert result.values("utilization.gpu") == {"gpu0": 3}
    assert result.values("fan.speed") == {}
    assert any("truncated" in problem for problem in result.problems)
