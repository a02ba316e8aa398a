"""What names a Jetson, for the probes whose tools exist only there (``tegrastats``,
``nvpmodel``, ``jetson_clocks``) and those whose tools read nothing there (nvidia-smi): patterns
over the GPUs and machine a case states, read without regard to case (``Probe.suits``)."""

from __future__ import annotations

#: Jetson modules and developer kits by family (TX1, TX2, Nano, Xavier, Orin, Thor), the Tegra
#: SoC (``tegra234``) and its software (L4T, JetPack), and the IGX and DRIVE boards built on
#: the same SoCs. The family names Orin and Xavier count as written in their capitals, so a
#: host called ``xavier-dev-box`` is not a Jetson.
JETSON = (
    r"\bJetson\b|\bTegra[0-9]{0,3}\b|\bL4T\b|\bJetPack\b|\bIGX\b|\bDRIVE\s+AGX\b"
    r"|(?-i:\b(?:Orin|ORIN|Xavier|XAVIER|TX[12])\b)"
)

#: a discrete GPU named beside the Jetson (an IGX board's RTX card, a DRIVE Pegasus' T4):
#: nvidia-smi reads that one
_DISCRETE = (
    r"\b(?:GeForce|RTX|GTX|TITAN|Quadro|Tesla|Radeon|[AHLBV][0-9]{2,3}|T4|P[0-9]{2,3}|"
    r"GH200|GB200)\b"
)

#: a Jetson whose nvidia-smi is missing (before JetPack 6) or prints N/A for the GPU's load,
#: clocks and power (Orin under JetPack 6), with no discrete GPU named beside it: every Jetson
#: but Thor, whose driver is the discrete GPUs' and answers nvidia-smi and NVML in full
JETSON_WITHOUT_NVIDIA_SMI = rf"^(?!.*\bThor\b)(?!.*(?:{_DISCRETE})).*(?:{JETSON})"
