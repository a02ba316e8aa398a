"""What a llama.cpp-family log says about the model's weights, where they sit and the GPUs it
streams them from, for :mod:`casefile_probes.app_log`: the facts the decode roofline
(:mod:`casefile.domain.roofline`) multiplies and judges.

- ``model.weights_gb`` (GB, decimal): the model's size, from llama.cpp's load log
  (``llm_load_print_meta: model size = 3.56 GiB (4.54 BPW)``, ``print_info: file size =
  4.58 GiB``; MiB, GB and MB are converted; sizes within 1 % of each other are one model told
  twice) or a ``llama-bench`` row's ``size`` cell. A text that names several models gives
  none, except a table, which gives the size of the row the roofline reads (below). The older
  ``model size = 7B`` (a parameter class, no unit) is not a size. The file's size counts the
  token-embedding table, which a token gathers a row of rather than streams: small models
  with large vocabularies are overstated by up to a fifth.
- vLLM's weights: ``Loading model weights took 7.1694 GB`` (V0; the figure is GiB, 2**30
  bytes, whatever the label says) and ``Model loading took 14.99 GiB`` (V1): the memory its
  weights took on one GPU, the whole model where the job runs on one.
- ``decode.tokens_per_s`` (tokens/s): the one-stream rate. In a table, the rate of the
  generation row that streams the most bytes per second among those of a dense model, wholly
  on a GPU and at no context depth (``tgN`` without ``@ dN``: deep rows also read the KV
  cache, which the weights' size leaves out); ``tokens_per_s`` stays the median of every
  generation row. In vLLM's log, the median of its intervals with one request running
  (``Running: 1 reqs``): with more, one read of the weights serves several tokens.
- ``model.weights_on_gpu`` (bool): True where that row is wholly on a GPU, or vLLM loaded the
  weights without offloading any to the CPU; False where the text shows weights on the CPU
  (vLLM's ``cpu_offload_gb`` above 0, or: a tensor whose buffer is overridden to the CPU (``-ot``,
  ``--n-cpu-moe``: llama.cpp still says every layer was offloaded), or a table whose every
  generation row ran on a CPU backend, with layers left on the CPU (``ngl`` under 99), the KV
  cache in host memory (``nkvo`` 1), tensors overridden (``ot``) or experts on the CPU
  (``n_cpu_moe``)). llama.cpp's "offloaded N/M layers" is read apart, as ``model.gpu_share``.
- ``model.moe`` (bool): True where the model is a mixture of experts, which reads only its
  active experts per token (``n_expert = 8`` in the load log; a table's model cell such as
  ``qwen3moe 30B.A3B``, ``llama 8x7B``, ``gpt-oss 20B MXFP4 MoE``, ``deepseek2 16B``, and no
  dense row was picked; a server's ``model='Qwen/Qwen3-30B-A3B'``, ``Mixtral-8x7B``,
  ``DeepSeek-V3``); False where the log prints ``n_expert = 0`` and nothing says otherwise.
- ``app.gpu_name`` (str): the first device the log lists (``Device 0: NVIDIA GeForce RTX 3090,
  compute capability 8.6``) and ``app.gpu_devices`` (int) how many it lists: the larger of its
  "found N CUDA devices" (ROCm, MUSA, SYCL and Vulkan's too) and its distinct device lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

from casefile.domain.facts import ParseResult

__all__ = [
    "LOOKS_LIKE_WEIGHTS",
    "WEIGHT_FACTS",
    "WEIGHT_WORDS",
    "BenchRow",
    "WeightLines",
    "bench_row",
]

WEIGHT_FACTS = (
    "model.weights_gb",
    "decode.tokens_per_s",
    "model.weights_on_gpu",
    "model.moe",
    "app.gpu_name",
    "app.gpu_devices",
)
#: a line is offered to :meth:`WeightLines.read` only when it holds one of these
WEIGHT_WORDS = (" size", "n_expert", "devices", "Device ", "to CPU", " took ", "model=", "offload")
LOOKS_LIKE_WEIGHTS = (
    r"(?:model|file) size\s{0,8}=\s{0,8}\d{1,9}(?:\.\d{1,9})?\s{0,2}(?:GiB|MiB|GB|MB)\b"
)

_GB_PER = {"GiB": 1.073741824, "MiB": 0.001048576, "GB": 1.0, "MB": 0.001}
_SIZE_LINE = re.compile(
    r"(?<![\w.])(?:model|file) size\s{0,8}=\s{0,8}(\d{1,9}(?:\.\d{1,9})?)\s{0,2}(GiB|MiB|GB|MB)\b"
)
_SIZE_CELL = re.compile(r"(\d{1,9}(?:\.\d{1,9})?)\s{0,2}(GiB|MiB|GB|MB)")
_EXPERTS = re.compile(r"(?<![\w.])n_expert\s{0,16}=\s{0,8}(\d{1,6})\b")
_FOUND = re.compile(r"(?i)found\s{1,4}(\d{1,4})\s{1,4}(?:CUDA|ROCm|MUSA|SYCL|Vulkan) devices")
_DEVICE = re.compile(
    r"(?<![\w])Device\s{1,4}(\d{1,4}):\s{1,4}([^,\n]{1,80}),\s{0,4}compute capability"
)
#: vLLM's weights: V0 prints GiB under the label "GB"
_SERVER_WEIGHTS = re.compile(
    r"(?:Loading model weights|Model loading) took\s{1,4}(\d{1,9}(?:\.\d{1,9})?)\s{0,2}Gi?B\b"
)
_OFFLOAD = re.compile(r"cpu[_-]offload[_-]gb['\"]?\s{0,4}[=:]?\s{0,4}(\d{1,9}(?:\.\d{1,9})?)")
#: a server's model path ("model='Qwen/Qwen3-30B-A3B'"): experts by name, not by architecture
_SERVER_MODEL = re.compile(r"(?<![\w])model=['\"]([^'\"\n]{1,200})['\"]")
_MOE_PATH = re.compile(
    r"(?i)moe|\d{1,3}x\d{1,4}(?:\.\d{1,3})?B\b|[-_.]A\d{1,3}(?:\.\d{1,3})?B\b|mixtral|dbrx"
    r"|deepseek-(?:v2|v3|r1(?!-distill))|gpt-oss|grok|arctic|jamba|llama-4|olmoe"
)
#: llama.cpp's "tensor blk.3.ffn_up_exps.weight (…) buffer type overriden to CPU" (sic)
_TO_CPU = re.compile(r"(?i)buffer type overrid{1,2}en to CPU")
#: llama-bench's model cell for a mixture of experts: its architecture (qwen3moe, deepseek2,
#: mixtral …), "8x7B", a size with its active part ("30B.A3B"), or MXFP4's "MoE" suffix
_MOE_MODEL = re.compile(
    r"(?i)moe\b|moe[\w-]|\b\d{1,3}x\d{1,4}(?:\.\d{1,3})?B\b|[.\-_ ]A\d{1,3}(?:\.\d{1,3})?B\b"
    r"|\b(?:deepseek[23]?|dots1|mixtral|dbrx|grok|arctic|jamba|llama4|gpt-oss|phimoe|olmoe)\b"
)
_GPU_BACKEND = re.compile(r"(?i)CUDA|Vulkan|ROCm|HIP|SYCL|MUSA")
#: the columns of a llama-bench table a row's weights and placement are read from
BENCH_COLUMNS = ("size", "model", "backend", "ngl", "nkvo", "ot", "n_cpu_moe")


@dataclass(frozen=True)
class BenchRow:
    """A ``llama-bench`` generation row, as the roofline reads it."""

    size: float | None
    rate: float
    moe: bool
    on_gpu: bool
    deep: bool


def bench_row(cells: list[str], columns: dict[str, int], rate: float, deep: bool) -> BenchRow:
    """A generation row's size in GB, whether its model is a mixture of experts, and whether
    every weight and the KV cache sat on a GPU."""

    def cell(name: str) -> str | None:
        at = columns.get(name)
        return cells[at] if at is not None and at < len(cells) else None

    size: float | None = None
    if (text := cell("size")) is not None and (match := _SIZE_CELL.fullmatch(text)) is not None:
        size = float(match.group(1)) * _GB_PER[match.group(2)]
    moe = bool(_MOE_MODEL.search(cell("model") or ""))
    backend, layers = cell("backend"), cell("ngl")
    on_gpu = (backend is None or _GPU_BACKEND.search(backend) is not None) and (
        layers is None or (layers.isdigit() and int(layers) >= 99)
    )
    host_kv = cell("nkvo") not in (None, "", "0")
    overridden = "cpu" in (cell("ot") or "").lower()
    experts_on_cpu = cell("n_cpu_moe") not in (None, "", "0")
    on_gpu = on_gpu and not (host_kv or overridden or experts_on_cpu)
    return BenchRow(size, rate, moe, on_gpu, deep)


@dataclass
class WeightLines:
    """The sizes, expert counts, devices and overrides a log names, and a table's rows."""

    sizes: list[float] = field(default_factory=list)
    experts: list[int] = field(default_factory=list)
    rows: list[BenchRow] = field(default_factory=list)
    found: list[int] = field(default_factory=list)
    devices: dict[int, str] = field(default_factory=dict)
    to_cpu: int = 0
    #: a server's rates of intervals with one request running, its weights, offload and model
    one_stream: list[float] = field(default_factory=list)
    server_weights: list[float] = field(default_factory=list)
    offloaded_gb: float = 0.0
    server_moe: bool = False

    def read(self, line: str) -> None:
        if (size := _SIZE_LINE.search(line)) is not None:
            self.sizes.append(float(size.group(1)) * _GB_PER[size.group(2)])
        elif (experts := _EXPERTS.search(line)) is not None:
            self.experts.append(int(experts.group(1)))
        elif (found := _FOUND.search(line)) is not None:
            self.found.append(int(found.group(1)))
        elif (device := _DEVICE.search(line)) is not None:
            self.devices.setdefault(int(device.group(1)), device.group(2).strip())
        elif _TO_CPU.search(line) is not None:
            self.to_cpu += 1
        elif (loaded := _SERVER_WEIGHTS.search(line)) is not None:
            self.server_weights.append(float(loaded.group(1)) * _GB_PER["GiB"])
        self._server_settings(line)

    def _server_settings(self, line: str) -> None:
        if "offload" in line and (offload := _OFFLOAD.search(line)) is not None:
            self.offloaded_gb = max(self.offloaded_gb, float(offload.group(1)))
        if "model=" in line and (model := _SERVER_MODEL.search(line)) is not None:
            self.server_moe = self.server_moe or bool(_MOE_PATH.search(model.group(1)))

    def add_facts(self, result: ParseResult) -> None:
        picked = max(
            (r for r in self.rows if r.size is not None and r.on_gpu and not (r.moe or r.deep)),
            key=lambda r: (r.size or 0.0) * r.rate,
            default=None,
        )
        if picked is not None:
            result.add("model.weights_gb", round(picked.size or 0.0, 6), "host", "GB")
            result.add("decode.tokens_per_s", picked.rate, "host", "tokens/s")
        else:
            self._one_size(result)
            if self.one_stream:
                result.add(
                    "decode.tokens_per_s", round(median(self.one_stream), 6), "host", "tokens/s"
                )
        cpu_rows = bool(self.rows) and not any(r.on_gpu for r in self.rows)
        if self.to_cpu or cpu_rows or self.offloaded_gb > 0:
            result.add("model.weights_on_gpu", False, "host")
        elif picked is not None or self.server_weights:
            result.add("model.weights_on_gpu", True, "host")
        table_moe = picked is None and any(r.moe for r in self.rows)
        if any(count > 0 for count in self.experts) or table_moe or self.server_moe:
            result.add("model.moe", True, "host")
        elif self.experts:
            result.add("model.moe", False, "host")
        if self.devices:
            result.add("app.gpu_name", self.devices[min(self.devices)], "host")
        if self.found or self.devices:
            result.add("app.gpu_devices", max([*self.found, len(self.devices)]), "host")

    def _one_size(self, result: ParseResult) -> None:
        sizes = sorted(
            {*self.sizes, *self.server_weights, *(r.size for r in self.rows if r.size is not None)}
        )
        distinct = [s for n, s in enumerate(sizes) if n == 0 or s > sizes[n - 1] * 1.01]
        if len(distinct) == 1:
            result.add("model.weights_gb", round(distinct[0], 6), "host", "GB")
        elif len(distinct) > 1:
            result.problems.append(
                f"{len(distinct)} model sizes named: no one model's weights for the roofline"
            )
