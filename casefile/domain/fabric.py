"""The network's rated speed, as the case states it, against what an RDMA test measured.

"92 Gb/s between two nodes" clears a 100 Gb/s port and condemns a 400 Gb/s one. perftest
prints no port rate, so the rate comes from what the case says of its network: people name it
in the first post ("8x ConnectX-7 NDR 400 Gb/s", "4x 200 Gb/s RDMA ports", "100GbE RoCE"),
which casefile keeps as ``--env network=…`` (or ``interconnect``, ``nic``, ``fabric``, ``hca``,
``infiniband``, ``ib``, ``roce``, ``rdma``). One port rate is read from it: a figure in bits
(``200 Gb/s``, ``200Gbps``, ``100GbE``, ``400G``, ``IB 200``; ``GB/s`` is bytes, an NVLink or
memory figure, and is no port rate) or an InfiniBand generation (4X ``EDR`` 100, ``HDR`` 200,
``NDR`` 400, ``XDR`` 800; ``HDR100`` and ``NDR200`` as written). The older generations are
taken at the rate their data moves, not the rate ibstat prints: QDR's 40 Gb/s signalling
carries 32 of data (8b/10b), FDR's 56 carries 54.5 (64b/66b). Where the case names two rates
("2x 100G + 25G management", "25/100GbE") no rate is read: a guess between them is no
reference. A run stated with its port's rate (``perftest.port_rate``) carries its own.

What one port carried in one direction (``perftest.bw.port``) over that rate is
``rdma.bw.share`` for a run from host memory and ``rdma.gpu_bw.share`` for one from GPU memory
(``--use_cuda``): GPUDirect RDMA is PCIe peer-to-peer between the GPU and its NIC, so a GPU
run far below a host run on the same NIC is the GPU's path to the NIC (ACS, the IOMMU, a
socket between them), not the cable, and the rules read the two apart. A healthy link carries
90 % or more of its rate at large messages; a share past :data:`POSSIBLE` says the stated rate
is not this port's, and gives no share at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from casefile.domain.environment import values as environment_values
from casefile.domain.expected import NO_CONTEXT, CaseContext
from casefile.domain.facts import Fact

__all__ = [
    "NETWORK_ENVIRONMENT",
    "RATE_NEEDED",
    "RDMA_GPU_SHARE",
    "RDMA_SHARE",
    "fabric_facts",
    "stated_port_rates",
    "waiting_share",
]

#: ``--env`` keys under which a case describes its network between nodes
NETWORK_ENVIRONMENT = (
    "network",
    "interconnect",
    "nic",
    "fabric",
    "hca",
    "infiniband",
    "ib",
    "roce",
    "rdma",
)
RDMA_SHARE = "rdma.bw.share"
RDMA_GPU_SHARE = "rdma.gpu_bw.share"
#: what a rule reading either share still needs where the case gave no one rate
RATE_NEEDED = (
    "the ports' rate: one rate in what the case states of its network (--env network=\"NDR "
    '400 Gb/s" when it is opened), or the run stated with it (--stated perftest.bw.port=GBPS '
    "--stated perftest.port_rate=GBPS)"
)
#: how far past the stated rate a port may read (rounding, a rate quoted low) before the rate
#: is taken to be some other port's
POSSIBLE = 1.1
_PORT_BW = "perftest.bw.port"
_PORT_RATE = "perftest.port_rate"
_GPU_MEMORY = "perftest.gpu_memory"
#: a rate in bits: the unit's "b" is small (a capital B is bytes: NVLink, memory); two
#: figures before one unit ("25/100GbE") are two rates
_RATE = re.compile(
    r"(?<![\d.])(?P<n>\d{1,3}(?:\.\d{1,2})?)(?:/(?P<m>\d{1,3}))?[\s-]?"
    r"(?:[Gg]b/s|[Gg]b/sec|[Gg]bps|[Gg]bit/s|[Gg]bits/s|[Gg]bit|[Gg]bE|[Gg]b|GE|G|g)"
    r"(?![A-Za-z0-9])"
)
#: a bare figure after the network's name ("IB 200", "RoCE 100")
_NAMED = re.compile(r"\b(?:IB|InfiniBand|RoCE(?:v2)?)\s+(?P<n>\d{2,3})(?![\d.]|\s*[GM]B)", re.I)
#: 4X port rates of the InfiniBand generations: the nominal rate ibstat prints, then the rate
#: the data moves at after line coding
_GENERATIONS = {
    "SDR": (10.0, 8.0),
    "DDR": (20.0, 16.0),
    "QDR": (40.0, 32.0),
    "FDR10": (40.0, 40.0),
    "FDR": (56.0, 54.5),
    "EDR": (100.0, 100.0),
    "HDR": (200.0, 200.0),
    "NDR": (400.0, 400.0),
    "XDR": (800.0, 800.0),
}
_GENERATION = re.compile(
    r"(?:(?<![A-Za-z])|(?<=\d[xX]))(?P<gen>QDR|FDR10|FDR|EDR|HDR|NDR|XDR)(?P<n>100|200|400)?"
    r"(?![A-Za-z])",
    re.I,
)
_LOWEST, _HIGHEST = 1.0, 1600.0


def stated_port_rates(environment: Mapping[str, str]) -> tuple[float, ...]:
    """Every port rate (Gb/s) the case's network entries state, each once, in order; a rate
    written both as a figure and as its generation ("HDR 200 Gb/s", "QDR 40G") is one."""
    figures: list[float] = []
    nominal: dict[float, float] = {}
    for text in environment_values(environment, NETWORK_ENVIRONMENT):
        text = text[:400]
        for match in _RATE.finditer(text):
            figures += [float(n) for n in (match.group("n"), match.group("m")) if n]
        figures += [float(match.group("n")) for match in _NAMED.finditer(text)]
        for match in _GENERATION.finditer(text):
            printed, data = _GENERATIONS[match.group("gen").upper()]
            if match.group("n"):  # HDR100, NDR200: the width-reduced ports, as written
                printed = data = float(match.group("n"))
            nominal[printed] = data
    rates = [nominal.get(f, f) for f in figures if _LOWEST <= f <= _HIGHEST]
    rates += list(nominal.values())
    return tuple(dict.fromkeys(rates))


def _share_name(given: Mapping[str, object]) -> str:
    return RDMA_GPU_SHARE if given.get(_GPU_MEMORY) is True else RDMA_SHARE


def waiting_share(facts: Sequence[Fact]) -> str | None:
    """The share a run that measured a port would give, where it gave none for want of a
    rate (so that what reads it can say what it still needs); None otherwise."""
    given = {f.name: f.value for f in facts if f.subject == "host"}
    if not _positive(given.get(_PORT_BW)) or RDMA_SHARE in given or RDMA_GPU_SHARE in given:
        return None
    return _share_name(given)


def fabric_facts(
    facts: Sequence[Fact], context: Callable[[], CaseContext] = lambda: NO_CONTEXT
) -> list[Fact]:
    """``rdma.bw.share`` or ``rdma.gpu_bw.share`` for a run that measured a port (see the
    module's docstring); ``context`` is asked only where the run carries no rate of its own."""
    given = {f.name: f.value for f in facts if f.subject == "host"}
    measured, rate = given.get(_PORT_BW), given.get(_PORT_RATE)
    name = _share_name(given)
    if not _positive(measured) or name in given:
        return []
    if not _positive(rate):
        rates = context().port_rates
        rate = rates[0] if len(rates) == 1 else None
    if not _positive(rate):
        return []
    share = float(measured) / float(rate)  # type: ignore[arg-type]
    return [Fact(name, round(share, 4), "host")] if share <= POSSIBLE else []


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0
