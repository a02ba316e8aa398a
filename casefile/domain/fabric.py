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
    "IB_GENERATIONS",
    "NETWORK_ENVIRONMENT",
    "RDMA_GPU_SHARE",
    "RDMA_SHARE",
    "fabric_facts",
    "gbps_factor",
    "stated_port_rates",
    "still_needed",
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
#: how a run gets a rate, in the domain's words (each front end says how to type them)
_HOW = (
    'one rate stated for the case\'s network when it is opened (network="NDR 400 Gb/s"), or '
    "the run stated with it (perftest.bw.port and perftest.port_rate{gpu})"
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
    r"(?<![\d.,])(?P<n>\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?)(?:/(?P<m>\d{1,3}))?[\s-]?"
    r"(?:[Gg]b/s|[Gg]b/sec|[Gg]bps|[Gg]bit/s|[Gg]bits/s|[Gg]bit|[Gg]bE|[Gg]b|GE|G|g)"
    r"(?![A-Za-z0-9])"
)
#: a bare figure after the network's name ("IB 200", "RoCE 100")
_NAMED = re.compile(r"\b(?:IB|InfiniBand|RoCE(?:v2)?)\s+(?P<n>\d{2,3})(?![\d.]|\s*[GM]B)", re.I)
#: 4X port rates of the InfiniBand generations (the one home of these figures; ibstat's
#: per-lane speeds are a quarter of the first): the nominal rate ibstat prints, then the rate
#: the data moves at after line coding
IB_GENERATIONS: dict[str, tuple[float, float]] = {
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
    r"(?:(?<![A-Za-z])|(?<=\d[xX]))(?P<gen>QDR|FDR10|FDR|EDR|HDR|NDR|XDR)"
    r"(?:[\s-]?(?P<n>100|200|400)(?![\d.,]))?(?![A-Za-z])",
    re.I,
)
#: words beside a figure that make it a node's total, not a port's rate (AWS's EFA figures are
#: per instance: "p4d 400 Gbps EFA" is four 100 Gb/s ports)
_TOTAL = re.compile(
    r"\b(?:total|aggregate|combined|EFA)\b|\bper\s+(?:node|host|server|instance|machine)\b", re.I
)
#: a count of ports just before a figure ("8x 400G", "2 x 100G"): the figure is each port's
_PORTS_BEFORE = re.compile(r"\d\s*[xX×]\s*$")
#: how far either side of a figure its words are looked for
_NEAR = 24
_LOWEST, _HIGHEST = 1.0, 1600.0


def stated_port_rates(environment: Mapping[str, str]) -> tuple[float, ...]:
    """Every port rate (Gb/s) the case's network entries state, each once, in order; a rate
    written both as a figure and as its generation ("HDR 200 Gb/s", "QDR 40G") is one."""
    return _rates_in(environment_values(environment, NETWORK_ENVIRONMENT))


def _rates_in(texts: Sequence[str]) -> tuple[float, ...]:
    figures: list[float] = []
    nominal: dict[float, float] = {}
    for text in texts:
        text = text[:400]
        for match in _RATE.finditer(text):
            if _a_total(text, match.start(), match.end()):
                continue
            numbers = (match.group("n"), match.group("m"))
            figures += [float(n.replace(",", "")) for n in numbers if n]
        figures += [float(match.group("n")) for match in _NAMED.finditer(text)]
        for match in _GENERATION.finditer(text):
            printed, data = IB_GENERATIONS[match.group("gen").upper()]
            if match.group("n"):  # HDR100, NDR200: the width-reduced ports, as written
                printed = data = float(match.group("n"))
            nominal[printed] = data
    rates = [nominal.get(f, f) for f in figures if _LOWEST <= f <= _HIGHEST]
    rates += list(nominal.values())
    return tuple(dict.fromkeys(rates))


def _a_total(text: str, start: int, end: int) -> bool:
    """Whether the figure at ``text[start:end]`` is a node's total: a total's word beside it,
    and no count of ports just before it."""
    if _PORTS_BEFORE.search(text[max(0, start - 6) : start]):
        return False
    return _TOTAL.search(text[max(0, start - _NEAR) : end + _NEAR]) is not None


def _share_name(host: Mapping[str, Fact]) -> str:
    gpu = host.get(_GPU_MEMORY)
    return RDMA_GPU_SHARE if gpu is not None and gpu.value is True else RDMA_SHARE


#: Gb/s in one of each unit a port's figure may be written in: bits in any case; bytes as
#: written, perftest's MB being 2^20 bytes (its own factor, ``0x100000``; ``MB/sec`` and
#: ``MiB/sec`` in its headers), a plain MB/s 10^6
_GBPS_IN_BITS = {"gb/s": 1.0, "gb/sec": 1.0, "gbps": 1.0, "gbit/s": 1.0}
_GBPS_IN_BITS |= {"mb/s": 1e-3, "mbps": 1e-3, "mbit/s": 1e-3}
_MIB = 1048576 * 8 / 1e9
_GBPS_IN_BYTES = {"GB/s": 8.0, "MB/s": 8e-3, "MiB/s": _MIB, "MB/sec": _MIB, "MiB/sec": _MIB}


def gbps_factor(unit: str) -> float | None:
    """Gb/s in one ``unit`` (a capital B is bytes), or None for a unit known here as none."""
    unit = unit.strip()
    return _GBPS_IN_BYTES.get(unit) if "B" in unit else _GBPS_IN_BITS.get(unit.lower())


def _in_gbps(fact: Fact | None) -> float | None:
    """A port's figure in Gb/s, by the unit it was given in (none: Gb/s), or None where it
    is no positive figure in a unit known here."""
    if fact is None or not _positive(fact.value):
        return None
    factor = gbps_factor(fact.unit or "Gb/s")
    return None if factor is None else float(fact.value) * factor


def _rate_of_run(facts: Sequence[Fact]) -> float | None:
    """The port rate a run was stated with: a figure, or words such as "HDR"."""
    stated = next((f for f in facts if f.name == _PORT_RATE and f.subject == "host"), None)
    if stated is None:
        return None
    if isinstance(stated.value, str):
        rates = _rates_in([stated.value])
        return rates[0] if len(rates) == 1 else None
    return _in_gbps(stated)


def _reading(
    facts: Sequence[Fact], context: Callable[[], CaseContext]
) -> tuple[str, float, float | None, tuple[float, ...]] | None:
    """(share name, port figure, the rate it is read against, the case's rates) for a run
    that measured a port and has no share yet; None otherwise."""
    host = {f.name: f for f in facts if f.subject == "host"}
    measured = _in_gbps(host.get(_PORT_BW))
    if measured is None or RDMA_SHARE in host or RDMA_GPU_SHARE in host:
        return None
    rate = _rate_of_run(facts)
    rates: tuple[float, ...] = ()
    if rate is None:
        rates = context().port_rates
        rate = rates[0] if len(rates) == 1 else None
    return _share_name(host), measured, rate, rates


def fabric_facts(
    facts: Sequence[Fact], context: Callable[[], CaseContext] = lambda: NO_CONTEXT
) -> list[Fact]:
    """``rdma.bw.share`` or ``rdma.gpu_bw.share`` for a run that measured a port (see the
    module's docstring); ``context`` is asked only where the run carries no rate of its own."""
    reading = _reading(facts, context)
    if reading is None:
        return []
    name, measured, rate, _ = reading
    if rate is None:
        return []
    share = measured / rate
    return [Fact(name, round(share, 4), "host")] if share <= POSSIBLE else []


def still_needed(
    reads: Sequence[str], facts: Sequence[Fact], context: Callable[[], CaseContext]
) -> str | None:
    """What a rule reading ``reads`` still needs to read a run that measured a port and gave
    no share: a rate, one rate where the case names several, or a rate the run fits under;
    None where the run is not one it could read."""
    reading = _reading(facts, context)
    if reading is None or reading[0] not in reads:
        return None
    name, measured, rate, rates = reading
    gpu = ", and perftest.gpu_memory=true" if name == RDMA_GPU_SHARE else ""
    how = _HOW.format(gpu=gpu)
    if rate is not None:  # the run carried more than the rate allows
        return (
            f"a port rate the run fits under: it carried {measured:g} Gb/s one way, past the "
            f"stated {rate:g} Gb/s, so that rate is another port's; {how}"
        )
    if len(rates) > 1:
        named = ", ".join(f"{r:g}" for r in rates)
        return f"one port rate: the case's network names several ({named} Gb/s); {how}"
    return f"the ports' rate in Gb/s: {how}"


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0
