"""``cat /proc/cmdline``: the kernel parameters that decide IOMMU and ACS behaviour.

Peer-to-peer between GPUs and GPUDirect RDMA depend on how the IOMMU translates DMA: with
translation on, peer traffic may be redirected or refused, and NCCL's troubleshooting guide
asks for ``iommu=pt`` (passthrough) or the IOMMU off; ``pci=noacs`` (a patched kernel's
option) turns ACS off on every bridge. The boot line says what was asked for; ``dmesg``
(:mod:`casefile_probes.iommu_dmesg`) says what the kernel did.

Facts on ``host`` (each only when the parameter is on the line; the last one wins, as in the
kernel):

- ``kernel.iommu`` (str): the value of ``iommu=`` (``pt``, ``off``, ``soft``, ``on`` …);
- ``kernel.intel_iommu`` / ``kernel.amd_iommu`` (str): ``intel_iommu=`` / ``amd_iommu=``
  (``on``, ``off``, ``sm_on`` …, comma lists kept whole);
- ``kernel.iommu.passthrough`` (bool): ``iommu.passthrough=1``/``0`` (or ``iommu=pt``, which
  means the same);
- ``kernel.iommu.strict`` (bool): ``iommu.strict=1``/``0``;
- ``kernel.pci`` (str): the value of ``pci=`` (comma options, e.g. ``noacs,realloc``) and
  ``kernel.pci.noacs`` (bool) True when one of them is ``noacs``;
- ``kernel.pcie_acs_override`` (str): the ACS override patch's option, when present;
- ``kernel.image`` (str): ``BOOT_IMAGE=``, which names the kernel version;
- ``kernel.parameters`` (int): how many parameters the line has, always present, so that a
  line with none of the above (the kernel's defaults) is still a reading.

Also read from ``dmesg``'s ``Command line:`` / ``Kernel command line:`` lines. A paste of
something else (no ``key=value`` words) is unparsed.
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import clean_paste

__all__ = ["PROBE", "parse_cmdline"]

_DMESG_LINE = re.compile(r"(?:^|\]\s*|:\s)(?:Kernel command line|Command line):\s*(?P<line>.*)$")
_WORD = re.compile(r"^[A-Za-z_][\w.-]*(?:=\S*)?$")

_TEXT_KEYS = {
    "iommu": "kernel.iommu",
    "intel_iommu": "kernel.intel_iommu",
    "amd_iommu": "kernel.amd_iommu",
    "pci": "kernel.pci",
    "pcie_acs_override": "kernel.pcie_acs_override",
    "BOOT_IMAGE": "kernel.image",
}
_FLAG_KEYS = {
    "iommu.passthrough": "kernel.iommu.passthrough",
    "iommu.strict": "kernel.iommu.strict",
}
_TRUE = {"1", "y", "yes", "on", "true"}
_FALSE = {"0", "n", "no", "off", "false"}


def _command_lines(lines: list[str]) -> list[str]:
    """The lines that hold a kernel command line: dmesg's, or the file's own."""
    found = []
    for line in lines:
        match = _DMESG_LINE.search(line)
        if match:
            found.append(match.group("line"))
    if found:
        return found
    return [line for line in lines if line.strip()]


def parse_cmdline(text: str) -> ParseResult:
    """Facts from ``/proc/cmdline`` (or dmesg's copy of it)."""
    cleaned = clean_paste(text, hash_prompt=True)
    lines = _command_lines(cleaned.lines)
    values: dict[str, str] = {}
    words = 0
    for line in lines:
        tokens = line.split()
        # A boot line is mostly parameters and has at least one key=value (root=, BOOT_IMAGE=).
        if not tokens or sum(1 for token in tokens if _WORD.match(token)) < len(tokens) / 2:
            continue
        if not any("=" in token and _WORD.match(token) for token in tokens):
            continue
        for token in tokens:
            if not _WORD.match(token):
                continue
            words += 1
            key, _, value = token.partition("=")
            values[key] = value
    if not words:
        return ParseResult.unparsed(
            "no kernel parameters found (expected 'BOOT_IMAGE=… root=… ro …' from /proc/cmdline)"
        )
    result = ParseResult()
    for key, name in _TEXT_KEYS.items():
        if values.get(key):
            result.add(name, values[key])
    for key, name in _FLAG_KEYS.items():
        if key in values:
            state = values[key].lower()
            flag = True if state in _TRUE else False if state in _FALSE else None
            if flag is None:
                result.problems.append(f"{key}={values[key]!r} is neither on nor off")
            result.add(name, flag)
    if values.get("iommu") == "pt" and "iommu.passthrough" not in values:
        result.add("kernel.iommu.passthrough", True)
    if "pci" in values:
        result.add("kernel.pci.noacs", "noacs" in values["pci"].split(","))
    if len(lines) > 1 and not any(_DMESG_LINE.search(line) for line in cleaned.lines):
        result.problems.append(f"{len(lines)} lines; a kernel command line is one")
    # Always there, so that a line without any IOMMU parameter (the defaults) is a reading too.
    result.add("kernel.parameters", words)
    return result


PROBE = Probe(
    name="kernel-cmdline",
    summary="Kernel boot parameters for IOMMU and ACS (iommu=, intel_iommu=, pci=noacs)",
    parse=parse_cmdline,
    argv=("cat", "/proc/cmdline"),
    cost="instant",
    facts=(
        "kernel.iommu",
        "kernel.intel_iommu",
        "kernel.amd_iommu",
        "kernel.iommu.passthrough",
        "kernel.iommu.strict",
        "kernel.pci",
        "kernel.pci.noacs",
        "kernel.pcie_acs_override",
        "kernel.image",
        "kernel.parameters",
    ),
    needs_load=False,
)
