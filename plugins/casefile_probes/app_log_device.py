"""Which device a job's log says it runs on: ``app.device_cpu`` for
:mod:`casefile_probes.app_log`.

A statement about the job itself ("Using device: cpu", "No CUDA GPUs are available", torch's
"CUDA initialization" warning, Whisper's "FP16 is not supported on CPU") says it runs on the
CPU, and no CUDA line outweighs it. Incidental mentions ("device='cpu'", "Falling back to CPU",
``cuda=False``) may be about a part of the job, so an explicit CUDA statement, or layers
offloaded to the GPU, outweighs them; and some are not about the job at all: a
``device='cpu'`` inside a config object's brackets or under a YAML ``offload_…:`` block (where
optimizer state lives), and an operator falling back to the CPU.

llama.cpp's (and Ollama's) "offloaded N/M layers to GPU", and the ``layers.offload=N`` of
``layers.model=M`` that Ollama's server logs when it loads a model, are not read as the device:
they say how much of the model runs on the GPU, ``model.gpu_share`` (percent, the last load
where a log loads the model more than once: a reload after a fix), which a part on the CPU makes
a cause of its own. Beside a statement that the job runs on the CPU (a failed CUDA start prints
the count it meant to offload) the count is set aside. Reading it here as "on CUDA" made a
partial offload count against the GPU being left unused, the very thing it shows; and reading it
twice, as a device and as a share, would count one line twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult

__all__ = ["DeviceLines"]

# statements about the job itself: no explicit CUDA line outweighs them
_ON_CPU = re.compile(
    r"(?i)(?:using device:?\s{0,4}['\"]?cpu\b"
    r"|torch\.cuda\.is_available\(\)\s{0,4}[:=]?\s{0,4}false\b"
    r"|cuda (?:is )?(?:not available|unavailable)"
    r"|no cuda gpus are available|no cuda-capable device|found no nvidia driver"
    r"|cuda initialization: |running on (?:the )?cpu\b"
    # openai-whisper picks FP32 only because the model was placed on the CPU
    r"|fp16 is not supported on cpu\b"
    r"|(?<![\w.])n_gpu\s{0,2}[=:]\s{0,2}0\b"
    r"|gpu available: \w{1,8}(?: \(\w{1,8}\))?, used: false"
    r"|(?<![\w.])torch \S{1,40} cpu\s{0,4}$)"
)
# incidental: a setting or a fallback that may be about a part of the job only
_ON_CPU_WEAK = re.compile(
    r"(?i)(?:(?<![\w.])device(?:_config)?\s{0,2}[=:]\s{0,2}['\"]?cpu\b"
    r"|falling back to (?:the )?cpu"
    r"|using (?:the )?cpu(?:\s{0,4}$|[.,;!)]|\s{1,4}(?:backend|only|instead|device))"
    r"|(?<![\w.])cuda\s{0,2}=\s{0,2}false\b)"
)
_ON_CUDA = re.compile(
    r"(?i)(?:using device:?\s{0,4}['\"]?cuda"
    r"|(?<![\w.])device(?:_config)?\s{0,2}[=:]\s{0,2}['\"]?cuda"
    r"|torch\.cuda\.is_available\(\)\s{0,4}[:=]?\s{0,4}true\b|use gpu:\s{0,4}cuda"
    r"|gpu available: true(?: \(\w{1,8}\))?, used: true|(?<![\w.])cuda\s{0,2}=\s{0,2}true\b"
    r"|beginning training on cuda|(?<![\w.])cuda:\d{1,3} \(|(?<![\w.])on cuda:\d{1,3}\b)"
)
# a job that says outright that it runs on a CUDA device: outweighs incidental CPU matches
_CUDA_EXPLICIT = re.compile(
    r"(?i)(?:using device:?\s{0,4}['\"]?cuda|(?<![\w.])on cuda:\d{1,3}\b"
    r"|beginning training on cuda|gpu available: true(?: \(\w{1,8}\))?, used: true)"
)
# llama.cpp's count of the model's layers placed on the GPU (Ollama's server log prints it too)
_OFFLOADED = re.compile(r"(?i)(?<![\w/])offloaded (\d{1,6})/(\d{1,6}) layers to gpu\b")
#: Ollama's server log: "msg=offload library=cuda layers.requested=-1 layers.model=81
#: layers.offload=44 …" (newer builds: msg="offload to cuda"), the layers it puts on the GPUs
_OLLAMA_LAYERS = re.compile(r"(?<![\w.])layers\.model=(\d{1,6})\b")
_OLLAMA_OFFLOAD = re.compile(r"(?<![\w.])layers\.offload=(\d{1,6})\b")
# an operator falling back to the CPU (MPS, ONNX Runtime) is not the job on the CPU
_OP_LEVEL = re.compile(r"(?i)(?<![\w])(?:ops?|operators?|kernels?|aten::)(?![\w])")
# an offload section's key (``offload_optimizer:`` in YAML) or a config object's name
_OFFLOAD_KEY = re.compile(r"(?i)^(\s{0,40})[\"']?\w{0,40}offload\w{0,40}[\"']?\s{0,4}:\s{0,4}$")
_CONTEXT_NAME = re.compile(r"(?i)(?:offload|config(?:uration)?\s{0,2}$)")
# a line is tried against the device patterns only if it holds one of these words
_DEVICE_WORDS = ("cpu", "CPU", "cuda", "CUDA", "Cuda", "NVIDIA", "gpu", "GPU", "n_gpu")


@dataclass
class DeviceLines:
    """The log's lines about its device, in reading order."""

    on_cpu: list[str] = field(default_factory=list)
    on_cpu_weak: list[str] = field(default_factory=list)
    on_cuda: list[str] = field(default_factory=list)
    cuda_explicit: list[str] = field(default_factory=list)
    #: indentation of the YAML ``offload_…:`` key whose block the reading is in, if any
    offload_indent: int | None = None
    #: percent of the model's layers on the GPU, per "offloaded N/M layers to GPU" line
    gpu_shares: list[float] = field(default_factory=list)

    def read(self, line: str) -> None:
        """Note what one line says about the device, if anything."""
        _offload_block(line, self)
        if "ffloaded" in line and (offloaded := _OFFLOADED.search(line)) is not None:
            self._offloaded(int(offloaded.group(1)), int(offloaded.group(2)))
            return
        if "layers.offload=" in line:
            model, placed = _OLLAMA_LAYERS.search(line), _OLLAMA_OFFLOAD.search(line)
            if model is not None and placed is not None:
                self._offloaded(int(placed.group(1)), int(model.group(1)))
                return
        if any(word in line for word in _DEVICE_WORDS):
            if (cpu := _ON_CPU.search(line)) is not None:
                self.on_cpu.append(cpu.group(0).strip())
                return
            weak = None if self.offload_indent is not None else _weak_cpu(line)
            if weak is not None:
                self.on_cpu_weak.append(weak)
            if (cuda := _ON_CUDA.search(line)) is not None:
                self.on_cuda.append(cuda.group(0).strip())
                if (explicit := _CUDA_EXPLICIT.search(line)) is not None:
                    self.cuda_explicit.append(explicit.group(0).strip())

    def _offloaded(self, placed: int, layers: int) -> None:
        if layers > 0 and placed <= layers:
            self.gpu_shares.append(round(100.0 * placed / layers, 6))

    def add_facts(self, result: ParseResult) -> None:
        """A statement about the job outweighs an incidental match; between two statements, the
        CPU one (a failed CUDA start is often followed by the script's own CUDA line)."""
        if self.gpu_shares and self.on_cpu:
            # a failed CUDA start still prints the layer count it meant to offload
            result.problems.append(
                f"the log says it runs on the CPU ({self.on_cpu[0]!r}); its count of layers "
                "offloaded to the GPU is set aside"
            )
        elif self.gpu_shares:
            result.add("model.gpu_share", self.gpu_shares[-1], "model", "%")
            if len(set(self.gpu_shares)) > 1:
                shown = ", ".join(f"{share:g} %" for share in self.gpu_shares)
                result.problems.append(
                    f"the log loads the model more than once ({shown} of its layers on the "
                    "GPU); the last load is kept"
                )
        on_gpu = self.cuda_explicit or any(share > 0 for share in self.gpu_shares)
        cpu = self.on_cpu or ([] if on_gpu else self.on_cpu_weak)
        if cpu:
            result.add("app.device_cpu", True, "host")
            if self.on_cuda:
                result.problems.append(
                    f"the log names both the CPU ({cpu[0]!r}) and a CUDA device "
                    f"({self.on_cuda[0]!r}); taken as running on the CPU"
                )
        elif self.on_cuda:
            result.add("app.device_cpu", False, "host")
            if self.on_cpu_weak:
                result.problems.append(
                    f"the log mentions the CPU ({self.on_cpu_weak[0]!r}) but says it runs on "
                    f"{self._gpu_statement()}; taken as running on the GPU"
                )

    def _gpu_statement(self) -> str:
        """The line that outweighed an incidental CPU mention, as a problem quotes it."""
        if self.cuda_explicit:
            return repr(self.cuda_explicit[0])
        return f"{self.gpu_shares[-1]:g} % of the model's layers offloaded to the GPU"


def _offload_block(line: str, lines: DeviceLines) -> None:
    """Follows a YAML ``offload_optimizer:`` block: its ``device: cpu`` is where optimizer
    state lives, not where the job runs."""
    stripped = line.lstrip(" ")
    if not stripped:
        return
    indent = len(line) - len(stripped)
    if lines.offload_indent is not None and indent <= lines.offload_indent:
        lines.offload_indent = None
    if "ffload" in line and (key := _OFFLOAD_KEY.match(line)) is not None:
        lines.offload_indent = len(key.group(1))


def _weak_cpu(line: str) -> str | None:
    """The first incidental CPU match that is about the job: not a ``device='cpu'`` inside a
    config object (``DeepSpeedZeroOffloadOptimizerConfig(device='cpu', …)``) or after an
    ``offload_…=`` key, not an operator falling back to the CPU."""
    for count, match in enumerate(_ON_CPU_WEAK.finditer(line)):
        if count == 8:  # a bound on the backward scans below
            break
        text = match.group(0)
        if text.lower().startswith("falling"):
            if _OP_LEVEL.search(line) is None:
                return text.strip()
            continue
        if not text.lower().startswith(("device", "using")) or not _in_context(line, match):
            return text.strip()
    return None


def _in_context(line: str, match: re.Match[str]) -> bool:
    """Whether a match lies in the brackets of a config object or an ``offload_…`` key."""
    depth = 0
    start = match.start()
    for index in range(start - 1, max(-1, start - 4000), -1):
        char = line[index]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                before = line[max(0, index - 120) : index]
                name = re.split(r"[,(\[{;]", before)[-1]
                return _CONTEXT_NAME.search(name) is not None
            depth -= 1
    return False
