"""What names a Jetson, for the probes whose tools exist only there (``tegrastats``,
``nvpmodel``, ``jetson_clocks``) and those whose tools read nothing there (nvidia-smi): patterns
over the GPUs and machine a case states, searched without regard to case (``Probe.suits``)."""

from __future__ import annotations

#: Thor, by the names its modules and kits go by (a bare "thor" is as likely a host's name)
_THOR = r"\b(?:AGX|IGX|Jetson|NVIDIA)\s+Thor\b|\bT[45]000\b"

#: Jetson modules and developer kits by family (TX1, TX2, Nano, Xavier, Orin, Thor), the Tegra
#: SoC (``tegra234``, ``Tegra X1``) and its software (L4T, JetPack), and the IGX and DRIVE
#: boards built on the same SoCs. A family name followed by a hyphen and more (``xavier-dev-box``)
#: is a host's name, not a Jetson.
JETSON = (
    r"\bJetson\b|\bTegra(?:[0-9]{3}|\s?X[12])?\b|\bL4T\b|\bJetPack\b|\bIGX\b|\bDRIVE\s+AGX\b"
    r"|\b(?:Orin|Xavier|TX[12])\b(?![-_.][A-Za-z0-9])|" + _THOR
)

#: a discrete GPU named beside the Jetson (an IGX board's RTX card, a DRIVE Pegasus' T4):
#: nvidia-smi reads that one. Three digits at least after a letter (A100, L40S, V100, A4000),
#: so a Nano's revision (B01, A02), its Cortex-A57 or an H.265 encoder are no GPU
_DISCRETE = (
    r"\b(?:GeForce|RTX|GTX|TITAN|Quadro|Tesla|Radeon|eGPU|GH200|GB200|T4|P[0-9]{2,3})\b"
    r"|\b(?!H26[45]\b)[AHLBV][0-9]{3,4}S?\b"
)

#: a Jetson whose nvidia-smi is missing (before JetPack 6) or prints N/A for the GPU's load,
#: clocks and power (Orin under JetPack 6), with no discrete GPU named beside it: every Jetson
#: but Thor, whose driver is the discrete GPUs' and answers nvidia-smi and NVML in full
JETSON_WITHOUT_NVIDIA_SMI = rf"^(?!.*(?:{_THOR}))(?!.*(?:{_DISCRETE})).*(?:{JETSON})"
