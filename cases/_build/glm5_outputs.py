"""Probe outputs of the GLM-5 case, reconstructed in the tools' real formats.

The seed articles give values, not raw outputs: Gen5 x16 links, ~1 GB/s of PCIe traffic under
load against ~64 GB/s of capacity, idle Tx/Rx of 581/693 KB/s with 0% utilisation, and under load
100% utilisation, 52–53% memory utilisation and ~328 W of 600 W on all eight GPUs; the topology
shows PHB and PIX paths and no peer-to-peer. Everything else in these texts (bus ids, clocks,
temperatures, serial-free identifiers) is filled in plausibly and carries no evidence.
Every probe run built from them is marked ``reconstructed``.
"""

from __future__ import annotations

GPUS = 8
#: GPU 0 is at 00:10.0 in the VM (the seeds name it); the others follow on the root bus.
BUS_IDS = [f"00000000:00:{0x10 + i:02X}.0" for i in range(GPUS)]
DRIVER = "590.44.01"
CUDA = "13.1"
NAME = "NVIDIA RTX PRO 6000 Blackwell Server Edition"


def _pci_block(tx_kbs: int, rx_kbs: int, gen_current: int = 5) -> list[str]:
    return [
        "    PCI",
        "        GPU Link Info",
        "            PCIe Generation",
        "                Max                       : 5",
        f"                Current                   : {gen_current}",
        "                Device Current            : 5",
        "                Device Max                : 5",
        "                Host Max                  : 5",
        "            Link Width",
        "                Max                       : 16x",
        "                Current                   : 16x",
        f"        Tx Throughput                     : {tx_kbs} KB/s",
        f"        Rx Throughput                     : {rx_kbs} KB/s",
    ]


def pcie_excerpt_under_load() -> str:
    """The user's reading during the benchmark: about 1 GB/s per link, on Gen5 x16 links."""
    tx = [1012000, 998000, 1031000, 987000, 1004000, 1019000, 993000, 1008000]
    rx = [1046000, 1021000, 1058000, 1012000, 1037000, 1049000, 1016000, 1033000]
    lines = ["", "==============NVSMI LOG==============", ""]
    lines += [f"Driver Version                            : {DRIVER}"]
    lines += [f"CUDA Version                              : {CUDA}", ""]
    lines += [f"Attached GPUs                             : {GPUS}"]
    for i in range(GPUS):
        lines += [f"GPU {BUS_IDS[i]}", f"    Product Name                          : {NAME}"]
        lines += _pci_block(tx[i], rx[i])
        lines.append("")
    return "\n".join(lines)


def gpu0_pci_idle() -> str:
    """`nvidia-smi -q -i 0`, PCI section: the Gen5 x16 check on GPU 0."""
    lines = [
        "",
        "==============NVSMI LOG==============",
        "",
        f"Driver Version                            : {DRIVER}",
        f"CUDA Version                              : {CUDA}",
        "",
        "Attached GPUs                             : 8",
        f"GPU {BUS_IDS[0]}",
        f"    Product Name                          : {NAME}",
        "    PCI",
        "        Bus                               : 0x00",
        "        Device                            : 0x10",
        "        Domain                            : 0x0000",
        f"        Bus Id                            : {BUS_IDS[0]}",
    ]
    lines += _pci_block(581, 693)[1:]
    return "\n".join(lines) + "\n"


def gpu0_query_idle() -> str:
    """`nvidia-smi -q -i 0` between benchmarks: Tx/Rx 581/693 KB/s and 0% utilisation."""
    lines = [
        "",
        "==============NVSMI LOG==============",
        "",
        "Timestamp                                 : Mon Mar  2 15:41:07 2026",
        f"Driver Version                            : {DRIVER}",
        f"CUDA Version                              : {CUDA}",
        "",
        "Attached GPUs                             : 8",
        f"GPU {BUS_IDS[0]}",
        f"    Product Name                          : {NAME}",
        "    Persistence Mode                      : Enabled",
        "    GPU Virtualization Mode",
        "        Virtualization Mode               : Pass-Through",
        "        Host VGPU Mode                    : N/A",
        "    PCI",
        f"        Bus Id                            : {BUS_IDS[0]}",
    ]
    lines += _pci_block(581, 693)[1:]
    lines += [
        "    Performance State                     : P8",
        "    Clocks Event Reasons",
        "        Idle                              : Active",
        "        Applications Clocks Setting       : Not Active",
        "        SW Power Cap                      : Not Active",
        "        HW Slowdown                       : Not Active",
        "            HW Thermal Slowdown           : Not Active",
        "            HW Power Brake Slowdown       : Not Active",
        "        Sync Boost                        : Not Active",
        "        SW Thermal Slowdown               : Not Active",
        "        Display Clock Setting             : Not Active",
        "    Utilization",
        "        Gpu                               : 0 %",
        "        Memory                            : 0 %",
        "        Encoder                           : 0 %",
        "        Decoder                           : 0 %",
        "    Temperature",
        "        GPU Current Temp                  : 34 C",
        "    GPU Power Readings",
        "        Power Draw                        : 38.41 W",
        "        Current Power Limit               : 600.00 W",
        "        Requested Power Limit             : 600.00 W",
        "        Default Power Limit               : 600.00 W",
        "        Min Power Limit                   : 150.00 W",
        "        Max Power Limit                   : 600.00 W",
        "    Clocks",
        "        Graphics                          : 180 MHz",
        "        SM                                : 180 MHz",
        "        Memory                            : 405 MHz",
        "",
    ]
    return "\n".join(lines)


def lspci_gpu0() -> str:
    """`lspci -vvs 00:10.0`: the GPU's link at 32GT/s x16 (Gen5), as it trained."""
    return "\n".join(
        [
            "00:10.0 VGA compatible controller: NVIDIA Corporation Device 2bb5 (rev a1) "
            "(prog-if 00 [VGA controller])",
            "\tSubsystem: NVIDIA Corporation Device 204e",
            "\tPhysical Slot: 16",
            "\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- "
            "SERR+ FastB2B- DisINTx+",
            "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- "
            ">SERR- <PERR- INTx-",
            "\tLatency: 0",
            "\tInterrupt: pin A routed to IRQ 16",
            "\tRegion 0: Memory at fc000000 (32-bit, non-prefetchable) [size=64M]",
            "\tRegion 1: Memory at 38000000000 (64-bit, prefetchable) [size=128G]",
            "\tRegion 3: Memory at 3a000000000 (64-bit, prefetchable) [size=32M]",
            "\tCapabilities: [60] Power Management version 3",
            "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0-,D1-,D2-,D3hot-,D3cold-)",
            "\t\tStatus: D0 NoSoftRst+ PME-Enable- DSel=0 DScale=0 PME-",
            "\tCapabilities: [68] MSI: Enable- Count=1/16 Maskable+ 64bit+",
            "\tCapabilities: [78] Express (v2) Legacy Endpoint, MSI 00",
            "\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us",
            "\t\t\tExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+",
            "\t\tDevCtl:\tCorrErr- NonFatalErr- FatalErr- UnsupReq-",
            "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-",
            "\t\t\tMaxPayload 128 bytes, MaxReadReq 512 bytes",
            "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-",
            "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported",
            "\t\t\tClockPM+ Surprise- LLActRep- BwNot- ASPMOptComp+",
            "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk-",
            "\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-",
            "\t\tLnkSta:\tSpeed 32GT/s, Width x16",
            "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-",
            "\t\tLnkCap2: Supported Link Speeds: 2.5-32GT/s, Crosslink- Retimer+ 2Retimers+ DRS-",
            "\t\tLnkCtl2: Target Link Speed: 32GT/s, EnterCompliance- SpeedDis-",
            "\t\tLnkSta2: Current De-emphasis Level: -6dB, EqualizationComplete+ "
            "EqualizationPhase1+",
            "\t\t\t EqualizationPhase2+ EqualizationPhase3+ LinkEqualizationRequest-",
            "\tKernel driver in use: nvidia",
            "\tKernel modules: nvidia_drm, nvidia",
            "",
        ]
    )


def _pix(i: int, j: int) -> bool:
    return i // 2 == j // 2


def topo_matrix() -> str:
    """`nvidia-smi topo -m`: pairs behind one bridge show PIX, the rest PHB; no NVLink."""
    header = "\t" + "\t".join(f"GPU{j}" for j in range(GPUS))
    header += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    rows = [header]
    for i in range(GPUS):
        cells = [" X " if i == j else ("PIX" if _pix(i, j) else "PHB") for j in range(GPUS)]
        rows.append(f"GPU{i}\t" + "\t".join(cells) + "\t0-63\t0\t\tN/A")
    legend = [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
        "(e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
        "within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
        "Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
        "",
    ]
    return "\n".join(rows + legend)


def topo_p2p_read() -> str:
    """`nvidia-smi topo -p2p r`: peer-to-peer reads not supported between any pair (NS)."""
    rows = [" \t" + "\t".join(f"GPU{j}" for j in range(GPUS)) + "\t"]
    for i in range(GPUS):
        cells = ["X" if i == j else "NS" for j in range(GPUS)]
        rows.append(f" GPU{i}\t" + "\t".join(cells) + "\t")
    legend = [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  OK   = Status Ok",
        "  CNS  = Chipset not supported",
        "  GNS  = GPU not supported",
        "  TNS  = Topology not supported",
        "  NS   = Not supported",
        "  U    = Unknown",
        "",
    ]
    return "\n".join(rows + legend)


QUERY_UNDER_LOAD_ARGV = (
    "nvidia-smi",
    "--query-gpu=index,utilization.gpu,utilization.memory,power.draw,power.limit",
    "--format=csv",
)


def query_under_load() -> str:
    """During inference: 100% utilisation, 52–53% memory, ~328 W of 600 W on every GPU."""
    memory = [52, 53, 52, 53, 52, 52, 53, 52]
    power = [327.84, 328.51, 329.02, 327.16, 328.77, 328.09, 327.63, 328.40]
    lines = ["index, utilization.gpu [%], utilization.memory [%], power.draw [W], power.limit [W]"]
    for i in range(GPUS):
        lines.append(f"{i}, 100 %, {memory[i]} %, {power[i]:.2f} W, 600.00 W")
    return "\n".join(lines) + "\n"
