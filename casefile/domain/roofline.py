"""The decode roofline: how close one-stream generation comes to the GPU's memory bandwidth.

Generating one token at a time reads every weight of a dense model once per token, so
``tokens/s × weight bytes`` is a bandwidth the GPU's memory must deliver, and it can never
exceed what that memory carries. It is the first sum an engineer does on a "slow" local model:
a 3.8 GB model at 140 tokens/s streams 530 GB/s, more than half of an RTX 3090's 936 GB/s, so
decode already runs near its floor and only fewer bytes (a smaller quantisation) or more
sequences per step (batching) will raise it; the same model at 12 tokens/s streams 5 % of it,
so something else holds it back (layers left on the CPU, the host, launch overhead).

Two facts meet here, each from where it is known:

- ``decode.weight_gbps`` (GB/s, on ``host``): a reading's one-stream generation rate (a
  table's picked row, ``decode.tokens_per_s``, else ``tokens_per_s``) times the weight bytes
  of the model it ran (``model.weights_gb``), only where the product means what it says: a
  dense model, one stream, every weight on one GPU, and the reading shows the placement
  (``model.weights_on_gpu``, or ``model.gpu_share`` of 100: every layer offloaded; a stated
  reading states it so). A mixture-of-experts model reads only its active experts per token,
  so its file size overstates what a token reads; weights on the CPU make the CPU's memory the
  floor; several GPUs (the log's device count or a parallel size above 1, else the case's
  answer that the job uses several) split the weights between memories, read one after
  another or in parallel, so one GPU's peak is no floor for them. A stated
  ``decode.weight_gbps`` is taken as stated.
- Without that placement, a slow reading would count for the GPU left unused by its
  slowness alone, a second time beside the rules that read the placement itself.
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

A product above :data:`POSSIBLE` times the peak is impossible for one-stream dense decode:
one of the assumptions failed (experts the text did not name, speculative decoding, a rate
summed over concurrent requests, a GPU named wrongly), and no peak is given, so no rule
reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casefile.domain.expected import GPU_NAME_FACTS, NO_CONTEXT, CaseContext
from casefile.domain.facts import Fact, FactValue
from casefile.domain.gpu_rows import fits, one_figure
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
#: how far past the peak a product may read before it is no roofline (rounding, a table's
#: figure for a sibling part)
POSSIBLE = 1.1
#: facts that name the GPU a reading ran on (llama.cpp's device line besides the others)
_NAME_FACTS = ("app.gpu_name", *GPU_NAME_FACTS)


@dataclass(frozen=True)
class DeviceMemory:
    """One row of the table: GPUs whose name fits ``gpu`` have memory of ``bandwidth`` GB/s."""

    gpu: str
    bandwidth: float
    source: str

    def fits(self, name: str) -> bool:
        return fits(self, name)


def device_bandwidth(table: Sequence[DeviceMemory], names: Sequence[str]) -> float | None:
    """The peak bandwidth of the GPUs ``names`` call for (:func:`~.gpu_rows.one_figure`)."""
    return one_figure(table, names, lambda row: row.bandwidth)


def roofline_facts(
    table: Sequence[DeviceMemory],
    facts: Sequence[Fact],
    context: Callable[[], CaseContext] = lambda: NO_CONTEXT,
) -> list[Fact]:
    """The decode's weight-streaming rate and its GPU's peak, where the reading supports them;
    a fact the reading already states is kept, not derived again.

    ``context`` is asked only when the reading gives a rate and weights the roofline can use."""
    given: dict[str, FactValue] = {}
    for fact in facts:  # the placement is stated on ``model``, the rest on ``host``
        given.setdefault(fact.name, fact.value)
    streamed = given.get(DECODE_BANDWIDTH)
    case: CaseContext | None = None
    if streamed is None:
        streamed, case = _streamed(given, context)
    if streamed is None or not _positive(streamed):
        return []
    out = [] if DECODE_BANDWIDTH in given else [Fact(DECODE_BANDWIDTH, streamed, "host", "GB/s")]
    if MEMORY_EXPECTED in given:
        return out
    names = [str(f.value) for f in facts if f.name in _NAME_FACTS and f.value]
    if not names:
        names = list((case or context()).gpus)
    peak = device_bandwidth(table, names)
    if peak is not None and float(streamed) <= POSSIBLE * peak:
        out.append(Fact(MEMORY_EXPECTED, peak, "host", "GB/s"))
    return out


def _streamed(
    given: Mapping[str, FactValue], context: Callable[[], CaseContext]
) -> tuple[float | None, CaseContext | None]:
    """Rate times weights where the reading shows a dense model wholly on one GPU (and the
    case, asked only then, does not say the job uses several)."""
    weights = given.get("model.weights_gb")
    rate = given.get("decode.tokens_per_s", given.get("tokens_per_s"))
    if not (_positive(weights) and _positive(rate)):
        return None, None
    if True in (given.get("model.moe"), given.get("app.device_cpu")):
        return None, None
    share, placed = given.get("model.gpu_share"), given.get("model.weights_on_gpu")
    whole = _number(share) and float(share) >= 100.0  # type: ignore[arg-type]
    if placed is False or (_number(share) and not whole) or not (placed is True or whole):
        return None, None
    devices = given.get("app.gpu_devices")
    split = [given.get(name) for name in ("app.tensor_parallel", "app.world_size")]
    if any(_number(size) and float(size) > 1 for size in split):  # type: ignore[arg-type]
        return None, None  # a server's tensor-parallel ranks each read their own part
    case = context()
    several = float(devices) > 1 if _number(devices) else case.several_gpus  # type: ignore[arg-type]
    if several:
        return None, None
    return round(float(weights) * float(rate), 6), case  # type: ignore[arg-type]


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
