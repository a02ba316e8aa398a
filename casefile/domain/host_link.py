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

- ``h2d.link_share``: the slowest GPU's host-to-device copy over its link's raw rate per
  direction (the slowest GPU, because one GPU on a narrow slot is the finding; its slowest
  run, because of two runs in one paste the slow one is; a run's largest transfer, of 4 MB or
  more);
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

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.expected import GPU_NAME_FACTS, NO_CONTEXT, CaseContext
from casefile.domain.facts import Fact
from casefile.domain.gpu_rows import first_row, fits, one_figure
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
#: the smallest transfer whose rate says what a link carries (bandwidthTest's quick mode copies
#: 32 MB; a range ending at 100 KB measures the copy's fixed cost as much as the link)
LARGE_COPY = 4 * 1024 * 1024


@dataclass(frozen=True)
class HostLink:
    """One row of the table: GPUs whose name fits ``gpu`` reach their host over PCIe of
    ``generation`` with ``width`` lanes (generation 0: no figure)."""

    gpu: str
    generation: int
    width: int
    source: str

    def fits(self, name: str) -> bool:
        return fits(self, name)

    @property
    def rate_gbps(self) -> float:
        """The raw rate per direction, GB/s (0 for a row of no figure)."""
        return PCIE_LANE_KBPS.get(self.generation, 0) * self.width / 1e6


def link_rate(table: Sequence[HostLink], names: Sequence[str]) -> float | None:
    """The host link's raw rate for the GPUs ``names`` (:func:`~.gpu_rows.one_figure`)."""
    return one_figure(table, names, lambda row: row.rate_gbps)


def host_link_facts(
    table: Sequence[HostLink],
    facts: Sequence[Fact],
    context: Callable[[], CaseContext] = lambda: NO_CONTEXT,
) -> list[Fact]:
    """The share of its link the slowest GPU's copies reach, and that link's rate, where the
    run has pinned host-to-device copies and its GPUs (or the case's) fit the table.

    ``context`` is asked only for a run with copies that names no GPU."""
    reading = _reading(table, facts, context)
    if reading is None or reading.share is None or reading.share > POSSIBLE:
        return []
    return [
        Fact(H2D_SHARE, round(reading.share, 4), "host"),
        Fact(HOST_LINK_RATE, round(reading.rate, 4), "host", "GB/s"),
    ]


def link_needed(
    table: Sequence[HostLink],
    reads: Sequence[str],
    facts: Sequence[Fact],
    context: Callable[[], CaseContext] = lambda: NO_CONTEXT,
) -> str | None:
    """What a rule reading ``reads`` still needs to read a run of host-to-device copies that
    gave no share: the GPU's name, a GPU whose link the playbook knows, or a link the copies
    fit under; None where the run is not one it could read, or was read."""
    if H2D_SHARE not in reads:
        return None
    reading = _reading(table, facts, context)
    if reading is None:
        return None
    names = sorted(set(_names(facts) or context().gpus))
    if not names:
        return (
            "the GPU's name, to know its PCIe link: the case's GPUs stated when it is opened "
            '(gpus="1x Tesla P100"), or the run stated with its GPU (name[gpu0]="Tesla P100")'
        )
    if reading.share is None:
        for name in names:
            row = first_row(table, name)
            if row is not None and row.rate_gbps == 0:
                return f"a GPU whose host link is a PCIe link of known rate ({name}: {row.source})"
        return (
            f"a GPU whose PCIe link the playbook knows: {', '.join(names)} fit no row of its "
            "host links, or rows of different links"
        )
    if reading.share > POSSIBLE:
        return (
            f"a link the copies fit: {reading.copy:g} GB/s is past the {reading.rate:.4g} GB/s "
            f"raw rate of the link the playbook gives {', '.join(names)}"
        )
    return None


@dataclass(frozen=True)
class _Reading:
    copy: float
    rate: float
    #: the copy over its GPU's link; None where no GPU's link has a figure
    share: float | None


def _reading(
    table: Sequence[HostLink], facts: Sequence[Fact], context: Callable[[], CaseContext]
) -> _Reading | None:
    """The slowest GPU's copy against its own link; None where the run holds no copy that
    says something of one link. Each GPU the run names is judged by its own row; a run that
    names none (one result, a stated figure) by the GPUs the run or the case names."""
    copies = _copies(facts)
    if not copies or not table:
        return None
    named = {f.subject: str(f.value) for f in facts if f.name in GPU_NAME_FACTS and f.value}
    common: float | None = None
    worst: _Reading | None = None
    for subject, copy in copies.items():
        if subject in named:
            rate = link_rate(table, [named[subject]])
        else:
            if common is None:
                common = link_rate(table, _names(facts) or list(context().gpus)) or 0.0
            rate = common or None
        if rate is None:
            continue
        if worst is None or worst.share is None or copy / rate < worst.share:
            worst = _Reading(copy, rate, copy / rate)
    if worst is None:
        return _Reading(min(copies.values()), 0.0, None)
    return worst


def _names(facts: Sequence[Fact]) -> list[str]:
    return [str(f.value) for f in facts if f.name in GPU_NAME_FACTS and f.value]


#: GB/s in one unit a copy's rate may be stated in (bandwidthTest's MB is 2^20 bytes)
_GB_PER_S = {"GB/s": 1.0, "GiB/s": 1.073741824, "MB/s": 1.048576e-3, "MiB/s": 1.048576e-3}


def _copies(facts: Sequence[Fact]) -> dict[str, float] | None:
    """Per GPU its slowest run's copy rate (GB/s): of two runs in one paste, one bound to the
    GPU's own socket and one not, the slow one is the finding. None where the run holds no
    copy that says something of one link.

    A parsed bandwidthTest gives each transfer size a row: its runs are read by their rows of
    :data:`LARGE_COPY` bytes or more (a range ending at 100 KB measures each copy's fixed cost
    as much as the link), and a paste that holds a total over several GPUs (``--device=all``
    adds them up, on ``host``) is not read, since its rows cannot be told from the others'.
    nvbandwidth gives one figure per GPU, and a stated figure is taken in its unit."""
    copies = [
        (f.subject, float(f.value) * _GB_PER_S[f.unit or "GB/s"])
        for f in facts
        if f.name in H2D_COPIES
        and isinstance(f.value, int | float)
        and not isinstance(f.value, bool)
        and f.value > 0
        and (f.unit or "GB/s") in _GB_PER_S
    ]
    rows = [(int(s[5:]), v) for s, v in copies if s.startswith("size=") and s[5:].isdigit()]
    if rows:
        if any(subject == "host" for subject, _ in copies):
            return None
        large = [value for size, value in rows if size >= LARGE_COPY]
        devices = {s for s, _ in copies if not s.startswith("size=")}
        if not large:
            return None
        return {min(devices) if len(devices) == 1 else "host": min(large)}
    gpus = {f.subject for f in facts if f.name in GPU_NAME_FACTS and f.subject.startswith("gpu")}
    out: dict[str, float] = {}
    for subject, value in copies:
        if subject == "host" and len(gpus) > 1:
            continue  # a figure for several GPUs at once: their sum
        out[subject] = min(out.get(subject, math.inf), value)
    return out or None


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
