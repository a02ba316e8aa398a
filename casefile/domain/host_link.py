"""The GPU's link to its host: how much of it a host-to-device copy test reaches.

``bandwidthTest`` and ``nvbandwidth`` copy pinned host memory to each GPU over its PCIe link.
A healthy link carries about 80 % of its raw rate that way (a Gen3 x16 card about 12.5 of
15.75 GB/s, Gen4 about 25 of 31.5); one trained at a lower generation or fewer lanes, or a
GPU reached from the other socket's memory, carries a fraction of it. That fraction is the
first thing an engineer reads off such a test, and it needs the link's rate, which the test
never prints: the playbook's table gives it per GPU (``[[host_link]]``, each row with its
source), for the GPU the run names (bandwidthTest's "Device 0: …" line, nvbandwidth's device
list) or, where it names none, the GPUs the case names (``--env gpus=…``).

Facts, on ``host``, only where the copies are from pinned memory (``bandwidth.h2d``;
nvbandwidth's copy-engine test, which pins its buffers; a pageable copy runs at half the rate
on a healthy link) and the names fit rows of one rate:

- ``h2d.link_share``: the slowest GPU's best host-to-device copy over its link's raw rate per
  direction (the slowest, because one GPU on a narrow slot is the finding);
- ``h2d.link_rate`` (GB/s): that raw rate, generation × lanes (``rules.PCIE_LANE_KBPS``).

A share above :data:`POSSIBLE` is no reading: the row is wrong for this GPU (a newer part of
the same name), and no figure beats a wrong one. So is a row of generation 0: a GPU whose host
link is not PCIe (NVLink-C2C on Grace parts, an integrated GPU) or varies (laptops).

In TOML::

    [[host_link]]
    gpu = 'V100|P100|T4\\b'     # pattern over the GPU's name; rows are tried in order
    generation = 3             # the PCIe generation of its host interface; 0: no figure
    width = 16                 # its lanes
    source = "..."
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.expected import GPU_NAME_FACTS, NO_CONTEXT, CaseContext
from casefile.domain.facts import Fact
from casefile.domain.rules import PCIE_LANE_KBPS
from casefile.errors import RuleError

__all__ = [
    "H2D_COPIES",
    "H2D_SHARE",
    "HOST_LINK_RATE",
    "HostLink",
    "host_link_facts",
    "link_from_dict",
]

H2D_SHARE = "h2d.link_share"
HOST_LINK_RATE = "h2d.link_rate"
#: the pinned host-to-device copy rates (GB/s) a run gives: bandwidthTest's, nvbandwidth's
H2D_COPIES = ("bandwidth.h2d", "nvbandwidth.host_to_device_memcpy_ce")
#: how far past the link's raw rate a copy may read before the row is taken to be wrong
POSSIBLE = 1.1


@dataclass(frozen=True)
class HostLink:
    """One row of the table: GPUs whose name fits ``gpu`` reach their host over PCIe of
    ``generation`` with ``width`` lanes (generation 0: no figure)."""

    gpu: str
    generation: int
    width: int
    source: str

    def fits(self, name: str) -> bool:
        return re.search(self.gpu, name, re.IGNORECASE) is not None

    @property
    def rate_gbps(self) -> float:
        """The raw rate per direction, GB/s (0 for a row of no figure)."""
        return PCIE_LANE_KBPS.get(self.generation, 0) * self.width / 1e6


def link_rate(table: Sequence[HostLink], names: Sequence[str]) -> float | None:
    """The host link's raw rate for the GPUs ``names``: each name's first fitting row; None
    when no name fits a row, when one fits a row of no figure, or when they fit different
    rates (a guess between two links is no reference)."""
    found: set[float] = set()
    for name in names:
        row = next((row for row in table if row.fits(name)), None)
        if row is not None:
            found.add(row.rate_gbps)
    return found.pop() if len(found) == 1 and 0.0 not in found else None


def host_link_facts(
    table: Sequence[HostLink],
    facts: Sequence[Fact],
    context: Callable[[], CaseContext] = lambda: NO_CONTEXT,
) -> list[Fact]:
    """The share of its link the slowest GPU's copies reach, and that link's rate, where the
    run has pinned host-to-device copies and its GPUs (or the case's) fit the table.

    ``context`` is asked only for a run with copies that names no GPU."""
    best: dict[str, float] = {}  # per device, its best copy (a size row is its device's)
    for fact in facts:
        value = fact.value
        if fact.name not in H2D_COPIES or isinstance(value, bool):
            continue
        if not isinstance(value, int | float) or value <= 0 or fact.subject.startswith("size="):
            continue
        best[fact.subject] = max(best.get(fact.subject, 0.0), float(value))
    if not table or not best:
        return []
    names = [str(f.value) for f in facts if f.name in GPU_NAME_FACTS and f.value]
    rate = link_rate(table, names or list(context().gpus))
    if rate is None:
        return []
    share = min(best.values()) / rate
    if share > POSSIBLE:
        return []
    return [
        Fact(H2D_SHARE, round(share, 4), "host"),
        Fact(HOST_LINK_RATE, round(rate, 4), "host", "GB/s"),
    ]


def link_from_dict(data: Any, where: str) -> HostLink:
    if not isinstance(data, Mapping):
        raise RuleError(f"{where}: each [[host_link]] must be a table")
    gpu, source = data.get("gpu"), data.get("source")
    generation, width = data.get("generation"), data.get("width", 16)
    if not (isinstance(gpu, str) and gpu) or not (isinstance(source, str) and source):
        raise RuleError(f"{where}: host_link needs 'gpu' and 'source'")
    try:
        re.compile(gpu)
    except re.error as error:
        raise RuleError(f"{where}: host_link gpu {gpu!r} is not a pattern: {error}") from None
    label = f"{where}: host_link {gpu!r}"
    if isinstance(generation, bool) or generation not in (0, *PCIE_LANE_KBPS):
        known = ", ".join(str(g) for g in PCIE_LANE_KBPS)
        raise RuleError(f"{label}: 'generation' must be a PCIe generation ({known}) or 0")
    if isinstance(width, bool) or width not in (1, 2, 4, 8, 16, 32):
        raise RuleError(f"{label}: 'width' must be a link width (1, 2, 4, 8, 16 or 32 lanes)")
    return HostLink(gpu, int(generation), int(width), source)
