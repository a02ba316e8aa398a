"""What a llama.cpp-family log says about the model's weights and the GPU it streams them from,
for :mod:`casefile_probes.app_log`: the facts the decode roofline
(:mod:`casefile.domain.roofline`) multiplies by the generation rate.

- ``model.weights_gb`` (GB, decimal): the model's size, from llama.cpp's load log
  (``llm_load_print_meta: model size = 3.56 GiB (4.54 BPW)``, ``print_info: file size =
  4.58 GiB``; a size in MiB, GB or MB is converted) or from the ``size`` cell of a
  ``llama-bench`` generation row. Given only where the text names one size (a log that loads
  two models, or a table of several, names no single one), and, for a table, only where every
  generation row ran on a GPU backend with all layers offloaded (``ngl`` 99 or more, or no
  ``ngl`` column): a row with its layers on the CPU streams from host memory. The older
  ``model size = 7B`` (a parameter class, no unit) is not a size.
- ``model.moe`` (bool): True where the model is a mixture of experts, which reads only its
  active experts per token (``n_expert = 8`` in the load log; a table's model cell such as
  ``qwen3moe 30B.A3B``, ``llama 8x7B``, ``gpt-oss 20B MXFP4 MoE``); False where the log
  prints ``n_expert = 0`` and nothing says otherwise.
- ``app.gpu_name`` (str): the first CUDA device the log lists (``Device 0: NVIDIA GeForce RTX
  3090, compute capability 8.6``), and ``app.cuda_devices`` (int) how many it found
  (``ggml_cuda_init: found 2 CUDA devices:``; ``ggml_init_cublas:`` in older builds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult

__all__ = ["LOOKS_LIKE_WEIGHTS", "WEIGHT_FACTS", "WEIGHT_WORDS", "WeightLines", "bench_row"]

WEIGHT_FACTS = ("model.weights_gb", "model.moe", "app.gpu_name", "app.cuda_devices")
#: a line is offered to :meth:`WeightLines.read` only when it holds one of these
WEIGHT_WORDS = (" size", "n_expert", "CUDA devices", "Device ")
LOOKS_LIKE_WEIGHTS = (
    r"(?:model|file) size\s{0,8}=\s{0,8}\d{1,9}(?:\.\d{1,9})?\s{0,2}(?:GiB|MiB|GB|MB)\b"
)

_GB_PER = {"GiB": 1.073741824, "MiB": 0.001048576, "GB": 1.0, "MB": 0.001}
_SIZE_LINE = re.compile(
    r"(?<![\w.])(?:model|file) size\s{0,8}=\s{0,8}(\d{1,9}(?:\.\d{1,9})?)\s{0,2}(GiB|MiB|GB|MB)\b"
)
_SIZE_CELL = re.compile(r"(\d{1,9}(?:\.\d{1,9})?)\s{0,2}(GiB|MiB|GB|MB)")
_EXPERTS = re.compile(r"(?<![\w.])n_expert\s{0,16}=\s{0,8}(\d{1,6})\b")
_FOUND = re.compile(r"found\s{1,4}(\d{1,4})\s{1,4}CUDA devices")
_DEVICE = re.compile(
    r"(?<![\w])Device\s{1,4}\d{1,4}:\s{1,4}([^,\n]{1,80}),\s{0,4}compute capability"
)
#: llama-bench's model cell for a mixture of experts: its architecture (qwen3moe, deepseek2,
#: mixtral …), "8x7B", a size with its active part ("30B.A3B"), or MXFP4's "MoE" suffix
_MOE_MODEL = re.compile(
    r"(?i)moe\b|moe[\w-]|\b\d{1,3}x\d{1,4}(?:\.\d{1,3})?B\b|[.\-_ ]A\d{1,3}(?:\.\d{1,3})?B\b"
    r"|\b(?:deepseek[23]|mixtral|dbrx|grok|arctic|jamba|llama4|gpt-oss|phimoe|olmoe)\b"
)
_GPU_BACKEND = re.compile(r"(?i)CUDA|Vulkan|ROCm|HIP|SYCL|MUSA")


def bench_row(cells: list[str], columns: dict[str, int]) -> tuple[float | None, bool, bool]:
    """A ``llama-bench`` generation row's (size in GB, mixture of experts, all on a GPU)."""
    size: float | None = None
    if (at := columns.get("size")) is not None and at < len(cells):
        match = _SIZE_CELL.fullmatch(cells[at])
        if match is not None:
            size = float(match.group(1)) * _GB_PER[match.group(2)]
    moe = (
        (at := columns.get("model")) is not None
        and at < len(cells)
        and bool(_MOE_MODEL.search(cells[at]))
    )
    on_gpu = True
    if (at := columns.get("backend")) is not None and at < len(cells):
        on_gpu = _GPU_BACKEND.search(cells[at]) is not None
    if (at := columns.get("ngl")) is not None and at < len(cells):
        layers = cells[at]
        on_gpu = on_gpu and layers.isdigit() and int(layers) >= 99
    return size, moe, on_gpu


@dataclass
class WeightLines:
    """The sizes, expert counts and CUDA devices a log names, in reading order."""

    sizes: list[float] = field(default_factory=list)
    experts: list[int] = field(default_factory=list)
    moe_rows: int = 0
    cpu_rows: int = 0
    found: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def read(self, line: str) -> None:
        if (size := _SIZE_LINE.search(line)) is not None:
            self.sizes.append(float(size.group(1)) * _GB_PER[size.group(2)])
        elif (experts := _EXPERTS.search(line)) is not None:
            self.experts.append(int(experts.group(1)))
        elif (found := _FOUND.search(line)) is not None:
            self.found.append(int(found.group(1)))
        elif (device := _DEVICE.search(line)) is not None:
            self.names.append(device.group(1).strip())

    def row(self, size: float | None, moe: bool, on_gpu: bool) -> None:
        """One ``llama-bench`` generation row (:func:`bench_row`)."""
        if size is not None:
            self.sizes.append(size)
        self.moe_rows += moe
        self.cpu_rows += not on_gpu

    def add_facts(self, result: ParseResult) -> None:
        sizes = {round(size, 6) for size in self.sizes}
        if len(sizes) == 1 and not self.cpu_rows:
            result.add("model.weights_gb", sizes.pop(), "host", "GB")
        elif len(sizes) > 1:
            result.problems.append(
                f"{len(sizes)} model sizes named: no one model's weights for the roofline"
            )
        if self.moe_rows or any(count > 0 for count in self.experts):
            result.add("model.moe", True, "host")
        elif self.experts:
            result.add("model.moe", False, "host")
        if self.names:
            result.add("app.gpu_name", self.names[0], "host")
        if self.found:
            result.add("app.cuda_devices", max(self.found), "host")
