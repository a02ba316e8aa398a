"""What names a Jetson, for the probes whose tools exist only there (``tegrastats``,
``nvpmodel``, ``jetson_clocks``): a pattern over the GPUs and platform a case states."""

from __future__ import annotations

#: Jetson modules and their developer kits by family (TX1, TX2, Nano, Xavier, Orin, Thor),
#: the Tegra SoC name, and the IGX and DRIVE boards built on the same SoCs
JETSON = (
    r"\bJetson\b|\bTegra\b|\bOrin\b|\bXavier\b|\b(?:AGX|IGX)\s*Thor\b|\bIGX\b"
    r"|\bDRIVE\s+AGX\b|\bTX[12]\b|\bL4T\b|\bJetPack\b"
)

#: a Jetson whose nvidia-smi is missing (before JetPack 6) or prints N/A for the GPU's load,
#: clocks and power (Orin under JetPack 6): every Jetson but Thor, whose driver is the
#: discrete GPUs' and answers nvidia-smi and NVML in full
JETSON_WITHOUT_NVIDIA_SMI = r"^(?!.*\bThor\b).*(?:" + JETSON + ")"
