"""``dmesg | grep -i -e iommu -e dmar -e amd-vi``: what the kernel did with the IOMMU.

The boot parameters (:mod:`casefile_probes.kernel_cmdline`) say what was asked; the kernel
log says what happened: whether an IOMMU was found and enabled, whether devices get a
translated or a passthrough (identity) DMA domain, and whether DMA faults were logged.
With translation, GPU peer-to-peer and GPUDirect RDMA go through the IOMMU, which costs
bandwidth or fails outright on some platforms; NCCL asks for passthrough.

Facts on ``host``:

- ``iommu.enabled`` (bool): ``DMAR: IOMMU enabled``, ``Intel(R) Virtualization Technology
  for Directed I/O``, ``AMD-Vi: Found IOMMU`` / ``AMD IOMMUv2 loaded`` → True;
  ``DMAR: IOMMU disabled``, ``AMD-Vi: … not found`` → False;
- ``iommu.vendor`` (str): ``intel`` (DMAR lines) or ``amd`` (AMD-Vi lines);
- ``iommu.default_domain`` (str): ``passthrough`` or ``translated``, from
  ``iommu: Default domain type: …``, and ``iommu.passthrough`` (bool) from it: true for
  passthrough; false for translated only where the log shows the IOMMU on (a unit, a group,
  "IOMMU enabled"), since the kernel prints its default domain type on every boot, with an
  IOMMU or without;
- ``iommu.tlb_policy`` (str): ``lazy`` or ``strict`` (``DMA domain TLB invalidation
  policy``; older kernels' ``AMD-Vi: Lazy IO/TLB flushing enabled`` / ``IO/TLB flush on unmap
  enabled``);
- ``iommu.units`` (int): IOMMU units found (``dmarN:`` / ``AMD-Vi: Found IOMMU`` lines);
- ``iommu.groups`` (int): distinct groups in ``Adding to iommu group N`` lines;
- ``iommu.faults`` (int): DMA faults, one per ``DMAR: [DMA Read …] … fault`` /
  ``AMD-Vi: Event logged [IO_PAGE_FAULT …]`` line (the ``DRHD: handling fault`` line that
  precedes some is not counted again), only when there are some: an excerpt without
  them does not show that there were none;
- ``iommu.swiotlb`` (bool): the kernel fell back to software bounce buffers;
- and, when the log includes the ``Kernel command line:``, the ``kernel.*`` facts of
  :mod:`casefile_probes.kernel_cmdline` (a command line that a terminal wrapped over several
  lines, which then do not start with a time stamp, is joined back first). The last message
  is read, unless the paste ends inside it and it is shorter than an earlier one it begins
  like (the kernel prints ``Command line:`` then ``Kernel command line:``): then it was cut,
  the earlier one is read and a problem says so.

Lines it does not know are skipped; a log with none of these lines is unparsed, with dmesg's
own error when it printed one (``read kernel buffer failed`` without root).
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import clean_paste
from .kernel_cmdline import parse_cmdline

__all__ = ["PROBE", "parse_iommu_dmesg"]

_DOMAIN = re.compile(r"\biommu: Default domain type:\s*(?P<kind>Passthrough|Translated)", re.I)
# Kernels before 5.13 said it the AMD way: "AMD-Vi: Lazy IO/TLB flushing enabled" (lazy) or
# "AMD-Vi: IO/TLB flush on unmap enabled" (strict).
_TLB = re.compile(
    r"TLB invalidation policy:\s*(?P<policy>lazy|strict)"
    r"|\bAMD-Vi: (?P<amd>Lazy IO/TLB flushing|IO/TLB flush on unmap) enabled",
    re.I,
)
_ENABLED = re.compile(
    r"\bDMAR: IOMMU enabled|Intel\(R\) Virtualization Technology for Directed I/O"
    r"|\bAMD-Vi: (?:Found IOMMU|AMD IOMMUv2 (?:driver by|loaded)|Interrupt remapping enabled)"
    r"|\bAMD-Vi: IOMMU performance counters supported",
    re.I,
)
_DISABLED = re.compile(
    r"\bDMAR: IOMMU disabled|\bAMD-Vi: (?:AMD IOMMUv2 functionality not available|"
    r"IOMMU not (?:found|enabled))|\bDMAR: Disable IOMMU|\bIOMMU disabled by BIOS",
    re.I,
)
_INTEL_UNIT = re.compile(r"\bDMAR: dmar(?P<unit>\d+): reg_base_addr")
_AMD_UNIT = re.compile(r"\bAMD-Vi: Found IOMMU\b")
_GROUP = re.compile(r"Adding to iommu group (?P<group>\d+)")
# Tried only where "DMAR:" / "AMD-Vi:" occur, each alternative anchored at its start, so that
# a line full of them costs no more than its length.
_FAULT = re.compile(
    r"DMAR: ?\[DMA (?:Read|Write)[^\]]{0,200}\][^\n]{0,400}?fault"
    r"|AMD-Vi: Event logged \[IO_PAGE_FAULT",
    re.I,
)
_SWIOTLB = re.compile(
    r"software IO TLB|Using software bounce buffering|PCI-DMA: Using SWIOTLB", re.I
)
# dmesg's own failures (dmesg_restrict without root, no such command).
_DMESG_ERROR = re.compile(
    r"dmesg: (?:read kernel buffer failed|klogctl failed)|dmesg: command not found"
    r"|dmesg:.*Operation not permitted",
    re.I,
)
_CMDLINE = re.compile(r"\b(?:Kernel command line|Command line):\s*\S")
_CMDLINE_TEXT = re.compile(r"\b(?:Kernel command line|Command line):\s*(?P<text>.*)$")
# A kernel log line starts with its time stamp ("[    0.037393] …") or a journal prefix.
_STAMP = re.compile(r"^\s*(?:\[[\s\d.]+\]|[A-Z][a-z]{2}\s+\d+\s+\d\d:\d\d:\d\d\s)")


def parse_iommu_dmesg(text: str) -> ParseResult:
    """Facts from the IOMMU lines of a kernel log."""
    cleaned = clean_paste(text, hash_prompt=True)
    result = ParseResult()
    enabled: bool | None = None
    vendor: str | None = None
    domain: str | None = None
    policy: str | None = None
    intel_units: set[str] = set()
    amd_units = 0
    groups: set[str] = set()
    faults = 0
    swiotlb = False
    matched = 0
    commands: list[str] = []
    wrapping = False
    command_end = -1  # the index of the last line of the last command-line message
    for index, line in enumerate(cleaned.lines):
        if wrapping and line and not _STAMP.match(line):
            # A terminal wrapped the long command line at its width, mid-word: join as is.
            commands[-1] += line
            command_end = index
            continue
        wrapping = False
        hit = True
        if match := _DOMAIN.search(line):
            domain = match.group("kind").lower()
        elif match := _TLB.search(line):
            amd = match.group("amd")
            policy = ("lazy" if amd.lower().startswith("lazy") else "strict") if amd else None
            policy = policy or match.group("policy").lower()
        elif match := _INTEL_UNIT.search(line):
            intel_units.add(match.group("unit"))
        elif match := _GROUP.search(line):
            groups.add(match.group("group"))
        elif _FAULT.search(line):
            faults += 1
        elif _DISABLED.search(line):
            enabled = False
        elif _ENABLED.search(line):
            enabled = True if enabled is None else enabled
        elif _SWIOTLB.search(line):
            swiotlb = True
        elif _CMDLINE.search(line):
            commands.append(line)
            command_end = index
            wrapping = True
        else:
            hit = False
        if _AMD_UNIT.search(line):
            amd_units += 1
        if "AMD-Vi" in line:
            vendor = "amd"
        elif "DMAR" in line and vendor is None:
            vendor = "intel"
        matched += hit
    if not matched:
        error = next((line.strip() for line in cleaned.lines if _DMESG_ERROR.search(line)), None)
        if error:
            return ParseResult.unparsed(f"dmesg printed an error, not the kernel log: {error}")
        return ParseResult.unparsed(
            "no IOMMU lines found (expected 'DMAR: …', 'AMD-Vi: …' or 'iommu: …' kernel messages)"
        )
    if enabled is None and (intel_units or amd_units or groups):
        enabled = True  # a unit or a group exists only with the IOMMU on
    result.add("iommu.enabled", enabled)
    result.add("iommu.vendor", vendor)
    result.add("iommu.default_domain", domain)
    # The kernel prints its default domain type on every boot, an IOMMU or none: "Translated"
    # says devices are translated only where an IOMMU is known to be on; "Passthrough" says
    # they are not, either way.
    if domain == "passthrough" or (domain == "translated" and enabled is True):
        result.add("iommu.passthrough", domain == "passthrough")
    result.add("iommu.tlb_policy", policy)
    units = len(intel_units) + amd_units
    result.add("iommu.units", units if units else None)
    result.add("iommu.groups", len(groups) if groups else None)
    # A grep'd excerpt without fault lines does not show that there were none.
    result.add("iommu.faults", faults if faults else None)
    if swiotlb:
        result.add("iommu.swiotlb", True)
    if commands:
        chosen = commands[-1]
        ends_paste = not any(line.strip() for line in cleaned.lines[command_end + 1 :])
        if ends_paste and len(commands) > 1:
            # The paste ends inside the last command-line message. When that message is a
            # strict prefix of an earlier one (the kernel prints the line twice at boot), the
            # paste cut it: its last parameter may be cut mid-value and the rest are lost.
            last = _cmdline_text(chosen)
            whole = next(
                (c for c in reversed(commands[:-1]) if _cmdline_text(c).startswith(last)), None
            )
            if whole is not None and len(_cmdline_text(whole)) > len(last):
                result.problems.append(
                    "the last kernel command line message was cut by the end of the paste; "
                    "the earlier, whole one is read"
                )
                chosen = whole
        kernel = parse_cmdline(chosen)
        if kernel.parsed:
            result.facts.extend(kernel.facts)
    return result


def _cmdline_text(message: str) -> str:
    """The parameters of a ``Command line:`` / ``Kernel command line:`` message, joined."""
    match = _CMDLINE_TEXT.search(message)
    return match.group("text").rstrip() if match else message


PROBE = Probe(
    name="iommu-dmesg",
    summary="IOMMU state from the kernel log: enabled, passthrough or translated, faults",
    parse=parse_iommu_dmesg,
    argv=("dmesg",),
    cost="instant",
    facts=(
        "iommu.enabled",
        "iommu.vendor",
        "iommu.default_domain",
        "iommu.passthrough",
        "iommu.tlb_policy",
        "iommu.units",
        "iommu.groups",
        "iommu.faults",
        "iommu.swiotlb",
        # patterns (fnmatch): families the parser names per field, section or test
        "kernel.*",
    ),
    needs_load=False,
)
