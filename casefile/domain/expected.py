"""Expected rates: what a path should carry, so a measured bandwidth can be judged against it.

"12 GB/s of bus bandwidth" is excellent on two PCIe Gen3 cards and a fault on eight NVLink
GPUs. A playbook therefore ships a table of expected large-message rates per kind of GPU (and
so of path: an SXM part talks over NVLink, a PCIe part over PCIe), each with its source, and a
rule reads the measured rate *per* the expected one. The GPU is named by the run itself
(nccl-tests' "Using devices" lines, the P2P test's device list); where the paste does not say
(a table cut to its one result row names neither its GPUs nor its hosts), the case does: its
``--env gpus=…`` and its intake answer about nodes; and whether NVLink SHARP can carry it,
where the run does not show, from the case's NVLink answer (:class:`CaseContext`).

In TOML::

    [[expected_rate]]
    gpu = 'H100.*(SXM|HBM3)'        # pattern over the GPU's name ("" fits any GPU: a fallback)
    nodes = "single"                # or "multi": runs spanning several hosts
    nvls = true                     # only where NVLink SHARP can run (false: only where not)
    path = "NVLink 4 through NVSwitch"
    busbw = 360.0                   # GB/s, all-reduce bus bandwidth at large messages
    p2p_bw = 370.0                  # GB/s, one direction between two GPUs (optional)
    source = "..."
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
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
    #: True: the row holds only where NVLink SHARP can run (NVSwitch GPUs, NVLS not switched
    #: off); False: only where it cannot; None: either
    nvls: bool | None = None

    def fits(self, names: Sequence[str], nodes: str, nvls: bool | None = None) -> bool:
        """Whether this row describes a run on GPUs ``names`` spanning ``nodes``; a row with
        an empty ``gpu`` pattern is the fallback for any GPU, named or not. A row that needs
        NVLS (or its absence) fits only when the run or the case says which."""
        if self.nodes != nodes:
            return False
        if self.nvls is not None and nvls is not self.nvls:
            return False
        if not self.gpu:
            return True
        return any(re.search(self.gpu, name, re.IGNORECASE) for name in names)


@dataclass(frozen=True)
class CaseContext:
    """What the case itself states about its system, for a run that does not say: the GPUs
    (``--env gpus=…``), whether the job spans nodes, whether NVLink joins the GPUs and whether
    the slow job uses several GPUs (its intake answers). The run's own facts always win over
    it."""

    gpus: tuple[str, ...] = ()
    nodes: str | None = None
    nvlink: bool | None = None
    several_gpus: bool | None = None
    #: the port rates (Gb/s) the case states for its network between nodes
    #: (:func:`casefile.domain.fabric.stated_port_rates`): one is a reference, two are none
    port_rates: tuple[float, ...] = ()


NO_CONTEXT = CaseContext()


def expected_facts(
    rates: Sequence[ExpectedRate],
    facts: Sequence[Fact],
    context: Callable[[], CaseContext] = lambda: NO_CONTEXT,
) -> list[Fact]:
    """The expected rates for the GPUs this run names (the first row that fits), as facts.

    ``context`` is asked only when the run leaves its GPUs or its node count unsaid, so a
    complete paste costs no look at the case."""
    if not rates:
        return []
    names = sorted({str(f.value) for f in facts if f.name in GPU_NAME_FACTS})
    if not names and not any(f.name.startswith(("nccl.", "p2p.")) for f in facts):
        return []  # not a bandwidth run: nothing to expect
    hosts = [
        f.value
        for f in facts
        if f.name in ("nccl.hosts", "nccl.nnodes")
        and isinstance(f.value, int | float)
        and not isinstance(f.value, bool)
    ]
    asked: list[CaseContext] = []

    def case() -> CaseContext:
        if not asked:
            asked.append(context())
        return asked[0]

    named = bool(names)
    if not named:
        names = list(case().gpus)  # the paste does not say which GPUs: the case does
    if hosts:
        nodes = "multi" if any(h > 1 for h in hosts) else "single"
    elif named:
        nodes = "single"  # GPUs named, no hosts: the P2P test and its kin run on one node
    else:
        nodes = case().nodes or "single"  # neither named (one result row): the case says
    nvls = None
    if any(rate.nvls is not None for rate in rates):
        nvls = _nvls(facts)
        if nvls is None:
            nvls = case().nvlink
    for rate in rates:
        if rate.fits(names, nodes, nvls):
            out = [
                Fact(BUSBW_EXPECTED, rate.busbw, "host", "GB/s"),
                Fact(PATH_EXPECTED, rate.path, "host"),
            ]
            if rate.p2p_bw is not None:
                out.append(Fact(P2P_EXPECTED, rate.p2p_bw, "host", "GB/s"))
            return out
    return []


def _nvls(facts: Sequence[Fact]) -> bool | None:
    """Whether NVLink SHARP can carry this run, by its own facts: not where NCCL said NVLS is
    unavailable or the algorithm was forced to one without it (``NCCL_ALGO=Ring`` measures the
    network alone); yes where NVLS is among its transports or its topology shows NVLink; None
    when the run does not say (then the case's NVLink answer decides)."""
    if any(f.name == "nccl.nvls" and f.value is False for f in facts):
        return False
    algorithms = [str(f.value) for f in facts if f.name == "nccl.env.NCCL_ALGO"]
    if algorithms and not any(_allows_nvls(value) for value in algorithms):
        return False
    for fact in facts:
        if fact.name in ("nccl.transport", "nccl.transports") and "NVLS" in str(fact.value).split(
            ","
        ):
            return True
        if fact.name == "nccl.nvls" and fact.value is True:
            return True
        if fact.name == "topo.link" and re.fullmatch(r"NV[0-9]+", str(fact.value)):
            return True
    return None


def _allows_nvls(setting: str) -> bool:
    """Whether an ``NCCL_ALGO`` value lets NVLS run: a list of algorithms allows what it names
    (``NVLS``, ``NVLSTree``), a list after ``^`` allows all but those; per-collective settings
    (``allreduce:tree;broadcast:ring``) are read for all-reduce when they name it."""
    value = setting.strip()
    if ":" in value:
        parts = dict(part.split(":", 1) for part in value.split(";") if ":" in part)
        value = next((v for k, v in parts.items() if k.strip().lower() == "allreduce"), "")
        if not value:
            return True  # all-reduce left at NCCL's choice
    excluded = value.startswith("^")
    names = {name.strip().lower() for name in value.lstrip("^").split(",") if name.strip()}
    named = bool(names & {"nvls", "nvlstree"})
    return not named if excluded else named


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
    nvls = data.get("nvls")
    if nvls is not None and not isinstance(nvls, bool):
        raise RuleError(f"{label}: 'nvls' must be true or false")
    return ExpectedRate(
        str(gpu),
        str(path),
        float(busbw),
        str(source),
        str(nodes),
        float(p2p) if p2p is not None else None,
        nvls,
    )
