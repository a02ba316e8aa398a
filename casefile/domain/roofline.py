"""The decode roofline: how close one-stream generation comes to the GPU's memory bandwidth.

Generating one token at a time reads every weight of a dense model once per token, so
``tokens/s × weight bytes`` is a bandwidth the GPU's memory must deliver, and it can never
exceed what that memory carries. It is the first sum an engineer does on a "slow" local model:
a 3.8 GB model at 140 tokens/s streams 530 GB/s, more than half of an RTX 3090's 936 GB/s, so
decode already runs near its floor and only fewer bytes (a smaller quantisation) or more
sequences per step (batching) will raise it; the same model at 12 tokens/s streams 5 % of it,
so something else holds it back (layers left on the CPU, the host, launch overhead).

Two facts meet here, each from where it is known:

- ``decode.weight_gbps`` (GB/s, on ``host``): a reading's generation rate (``tokens_per_s``)
  times the weight bytes of the model it ran (``model.weights_gb``), only where the product
  means what it says: the whole model on one GPU, one stream, and a dense model. A
  mixture-of-experts model reads only its active experts per token, so its file size
  overstates what a token reads; layers left on the CPU (``model.gpu_share`` below 100) make
  the CPU's memory the floor; several CUDA devices (the log's, or the case's answer that the
  job uses several GPUs) split the weights between memories, read one after another or in
  parallel, so one GPU's peak is no floor for them.
- ``memory.bw.expected`` (GB/s, on ``host``): the GPU's peak device-memory bandwidth from the
  playbook's table (``[[device_memory]]``, each row with its source), for the GPU the reading
  names (llama.cpp's device line) or, where it names none, the GPU the case names
  (``--env gpus=…``). Where the names fit rows of different bandwidths, none is given: a
  guess between two GPUs is no roofline.

A rule reads the first per the second (``per = "memory.bw.expected"``).

In TOML::

    [[device_memory]]
    gpu = 'RTX 3090(?! Ti)'       # pattern over the GPU's name; rows are tried in order
    bandwidth = 936.0             # GB/s, the memory's peak; 0: these GPUs have no figure
    source = "..."

A row of bandwidth 0 stops the search for the GPUs it fits: a laptop part carries a desktop
card's name with other memory, and no figure beats a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.expected import GPU_NAME_FACTS, NO_CONTEXT, CaseContext
from casefile.domain.facts import Fact, FactValue
from casefile.errors import RuleError

__all__ = [
    "DECODE_BANDWIDTH",
    "MEMORY_EXPECTED",
    "DeviceMemory",
    "device_bandwidth",
    "memory_from_dict",
    "roofline_facts",
]

DECODE_BANDWIDTH = "decode.weight_gbps"
MEMORY_EXPECTED = "memory.bw.expected"
#: facts that name the GPU a reading ran on (llama.cpp's device line besides the others)
_NAME_FACTS = ("app.gpu_name", *GPU_NAME_FACTS)


@dataclass(frozen=True)
class DeviceMemory:
    """One row of the table: GPUs whose name fits ``gpu`` have memory of ``bandwidth`` GB/s."""

    gpu: str
    bandwidth: float
    source: str

    def fits(self, name: str) -> bool:
        return re.search(self.gpu, name, re.IGNORECASE) is not None


def device_bandwidth(table: Sequence[DeviceMemory], names: Sequence[str]) -> float | None:
    """The peak bandwidth of the GPUs ``names`` call for: each name's first fitting row; None
    when no name fits a row, when one fits a row of no figure (0), or when the names fit rows
    of different bandwidths."""
    found: set[float] = set()
    for name in names:
        row = next((row for row in table if row.fits(name)), None)
        if row is not None:
            found.add(row.bandwidth)
    return found.pop() if len(found) == 1 and 0.0 not in found else None


def roofline_facts(
    table: Sequence[DeviceMemory],
    facts: Sequence[Fact],
    context: Callable[[], CaseContext] = lambda: NO_CONTEXT,
) -> list[Fact]:
    """The decode's weight-streaming rate and its GPU's peak, where the reading supports them.

    ``context`` is asked only when the reading gives a rate and weights the roofline can use."""
    host: dict[str, FactValue] = {}
    for fact in facts:  # the placement is stated on ``model``, the rest on ``host``
        host.setdefault(fact.name, fact.value)
    weights, rate = host.get("model.weights_gb"), host.get("tokens_per_s")
    if not (_positive(weights) and _positive(rate)) or any(
        f.name == DECODE_BANDWIDTH for f in facts
    ):
        return []
    if host.get("model.moe") is True or host.get("app.device_cpu") is True:
        return []
    share, devices = host.get("model.gpu_share"), host.get("app.cuda_devices")
    if (_number(share) and float(share) < 100.0) or (_number(devices) and float(devices) > 1):  # type: ignore[arg-type]
        return []
    case = context()
    if case.several_gpus:
        return []
    streamed = round(float(weights) * float(rate), 6)  # type: ignore[arg-type]
    out = [Fact(DECODE_BANDWIDTH, streamed, "host", "GB/s")]
    names = [str(f.value) for f in facts if f.name in _NAME_FACTS and f.value]
    peak = device_bandwidth(table, names or list(case.gpus))
    if peak is not None:
        out.append(Fact(MEMORY_EXPECTED, peak, "host", "GB/s"))
    return out


def memory_from_dict(data: Any, where: str) -> DeviceMemory:
    if not isinstance(data, Mapping):
        raise RuleError(f"{where}: each [[device_memory]] must be a table")
    gpu, source, bandwidth = data.get("gpu"), data.get("source"), data.get("bandwidth")
    if not (isinstance(gpu, str) and gpu) or not (isinstance(source, str) and source):
        raise RuleError(f"{where}: device_memory needs 'gpu' and 'source'")
    try:
        re.compile(gpu)
    except re.error as error:
        raise RuleError(f"{where}: device_memory gpu {gpu!r} is not a pattern: {error}") from None
    if not (_positive(bandwidth) or bandwidth == 0) or isinstance(bandwidth, bool):
        raise RuleError(f"{where}: device_memory {gpu!r}: 'bandwidth' must be a number >= 0")
    return DeviceMemory(gpu, float(bandwidth), source)  # type: ignore[arg-type]


def _number(value: FactValue | None) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0
