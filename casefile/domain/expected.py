"""Expected rates: what a path should carry, so a measured bandwidth can be judged against it.

"12 GB/s of bus bandwidth" is excellent on two PCIe Gen3 cards and a fault on eight NVLink
GPUs. A playbook therefore ships a table of expected large-message rates per kind of GPU (and
so of path: an SXM part talks over NVLink, a PCIe part over PCIe), each with its source, and a
rule reads the measured rate *per* the expected one. The GPU is named by the run itself
(nccl-tests' "Using devices" lines, the P2P test's device list), so the verdict needs nothing
the case does not hold.

In TOML::

    [[expected_rate]]
    gpu = 'H100.*(SXM|HBM3)'        # pattern over the GPU's name ("" fits any GPU: a fallback)
    nodes = "single"                # or "multi": runs spanning several hosts
    path = "NVLink 4 through NVSwitch"
    busbw = 360.0                   # GB/s, all-reduce bus bandwidth at large messages
    p2p_bw = 370.0                  # GB/s, one direction between two GPUs (optional)
    source = "..."
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.facts import Fact
from casefile.errors import RuleError

BUSBW_EXPECTED = "nccl.busbw.expected"
P2P_EXPECTED = "p2p.bw.expected"
PATH_EXPECTED = "path.expected"
#: facts that name the GPUs of a run: nccl-tests' device lines, the CUDA samples' device list
GPU_NAME_FACTS = ("nccl.device", "name", "gpu.name")


@dataclass(frozen=True)
class ExpectedRate:
    gpu: str
    path: str
    busbw: float
    source: str
    nodes: str = "single"
    p2p_bw: float | None = None

    def fits(self, names: Sequence[str], nodes: str) -> bool:
        """Whether this row describes a run on GPUs ``names`` spanning ``nodes``; a row with
        an empty ``gpu`` pattern is the fallback for any GPU, named or not."""
        if self.nodes != nodes:
            return False
        if not self.gpu:
            return True
        return any(re.search(self.gpu, name, re.IGNORECASE) for name in names)


def expected_facts(rates: Sequence[ExpectedRate], facts: Sequence[Fact]) -> list[Fact]:
    """The expected rates for the GPUs this run names (the first row that fits), as facts."""
    if not rates:
        return []
    names = sorted({str(f.value) for f in facts if f.name in GPU_NAME_FACTS})
    if not names and not any(f.name.startswith(("nccl.", "p2p.")) for f in facts):
        return []  # not a bandwidth run: nothing to expect
    hosts = [f.value for f in facts if f.name in ("nccl.hosts", "nccl.nnodes")]
    multi = any(isinstance(h, int | float) and not isinstance(h, bool) and h > 1 for h in hosts)
    nodes = "multi" if multi else "single"
    for rate in rates:
        if rate.fits(names, nodes):
            out = [
                Fact(BUSBW_EXPECTED, rate.busbw, "host", "GB/s"),
                Fact(PATH_EXPECTED, rate.path, "host"),
            ]
            if rate.p2p_bw is not None:
                out.append(Fact(P2P_EXPECTED, rate.p2p_bw, "host", "GB/s"))
            return out
    return []


def rate_from_dict(data: Any, where: str) -> ExpectedRate:
    if not isinstance(data, Mapping):
        raise RuleError(f"{where}: each [[expected_rate]] must be a table")
    gpu, path, source = data.get("gpu"), data.get("path"), data.get("source")
    if not isinstance(gpu, str) or not all(isinstance(v, str) and v for v in (path, source)):
        raise RuleError(f"{where}: expected_rate needs 'gpu', 'path' and 'source'")
    try:
        re.compile(str(gpu))
    except re.error as error:
        raise RuleError(f"{where}: expected_rate gpu {gpu!r} is not a pattern: {error}") from None
    label = f"{where}: expected_rate {gpu!r}"
    busbw = data.get("busbw")
    if isinstance(busbw, bool) or not isinstance(busbw, int | float) or busbw <= 0:
        raise RuleError(f"{label}: 'busbw' must be a positive number (GB/s)")
    p2p = data.get("p2p_bw")
    if p2p is not None and (isinstance(p2p, bool) or not isinstance(p2p, int | float) or p2p <= 0):
        raise RuleError(f"{label}: 'p2p_bw' must be a positive number (GB/s)")
    nodes = data.get("nodes", "single")
    if nodes not in ("single", "multi"):
        raise RuleError(f"{label}: 'nodes' must be single or multi")
    return ExpectedRate(
        str(gpu),
        str(path),
        float(busbw),
        str(source),
        str(nodes),
        float(p2p) if p2p is not None else None,
    )
