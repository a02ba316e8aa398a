"""What training scripts and inference servers print: step and data-loading times, throughput,
parallelism, and whether the job runs on the GPU at all.

A job's own log answers questions no GPU counter can: a step that spends most of its time waiting
for data is host-bound whatever the GPU does; a throughput number is what an A/B experiment
compares; a run that says "CUDA initialization: Found no NVIDIA driver" never used the GPU.
The parser reads each line once with a fixed set of patterns (no pattern can backtrack over a
long line), so a log of many megabytes costs one pass.

Facts, on ``host`` unless said otherwise (``model.gpu_share`` is on ``model``), and only those
the text supports:

- ``train.data_time_s`` and ``train.step_time_s`` (s): medians over the lines that give a data
  time: mmcv/mmengine/detectron2/YOLOX ``data_time: 0.51`` with ``time:`` or ``iter_time:``;
  torchvision/DINO ``time: 0.62  data: 0.51``; the ImageNet example's and timm's
  ``Time 0.620 (0.601)  Data 0.512 (0.498)`` (the current value, not the running mean); Pointcept
  ``Data 0.002 (0.9) Batch 0.24 (3.1)``; ``batch_time``; LeRobot's ``updt_s:0.30 data_s:13.3``
  (the step is the update plus the wait for its batch); the progress bar of CenterNet and the
  trackers built on its trainer, ``|Data 3.556s(0.517s) |Net 1.014s``, where ``Net`` is the mean
  time of a whole iteration, read against the mean data time in brackets (both running means,
  the only like-for-like pair it prints); OpenPCDet's timm-style ``Data time: 0.87(0.87)``
  with ``Batch time: 4.04(4.04)`` (not the ``Forward time:`` between them). ``train.data_share``
  (0..1): the median of the per-line ratios data / step, each capped at 1 (the step time
  includes the wait);
- ``step_time_s`` (s): the same median where data times are given, else from tqdm's ``s/it``,
  TensorFlow's ``per-step time 0.26s``, ``29.31 sec/step``, Keras's epoch lines (a sample
  rate where it counts samples: :mod:`casefile_probes.app_log_keras`), ``time per step`` lines,
  Megatron-LM's ``elapsed time per iteration (ms): 1269.3``, nanoGPT's ``iter 10: loss 3.22,
  time 893.76ms``, llama2.c's ``490 | loss 5.75 | lr … | 8060.78ms | mfu 0.21%``, MaxText's
  ``completed step: 15107, seconds: 2.167``, Megatron-DeepSpeed's ``iter time (s): 2.673``,
  nanochat's ``loss: 8.89 | … | dt: 989.44ms``, TensorFlow's ``0.156 sec/batch``, OpenSeq2Seq's
  ``time per step = 0:00:1.390`` (hours, minutes, seconds), or one over TensorFlow's
  ``global_step/sec: 1.09`` / ``steps/sec: 0.1`` (which give ``it_per_s`` too; not an RL
  loop's ``env steps/sec``). A run's first step is left out, and runs pasted together are
  told apart where the step counter starts again (:mod:`casefile_probes.app_log_steps`), for
  ``samples_per_s`` and ``it_per_s`` too. A date and time before a line (``2023-03-22
  09:30:39 iter 2920: …``, after a quote's ``> `` too) is set aside first, so patterns
  anchored at a message's start read it;
- ``tokens_per_s``: the median of the token rates inference servers, LLM tools and LLM
  training loops print, none where their run summaries are two setups pasted together
  (:meth:`~casefile_probes.app_log_rates.TokenRates.mixed_runs`) (a rate per GPU goes to
  ``tokens_per_s_per_gpu`` instead, which no comparison of throughput reads)
  (:mod:`casefile_probes.app_log_rates`), the ``tgN`` rows of a ``llama-bench`` table and
  ``llama-batched-bench``'s one-stream rows among them (:mod:`casefile_probes.app_log_bench`);
  ``samples_per_s`` from ``train_samples_per_second``, ``img/s:``,
  ``examples/sec:``, ``… samples/s`` and DeepSpeed's ``SamplesPerSec=`` (its
  ``CurrSamplesPerSec=`` where it prints both that and the running average);
  ``it_per_s`` from tqdm bars (``3.21it/s``; ``2.5s/it`` is 0.4), except bars that load,
  download, save, map, tokenize, evaluate, validate, test, capture or compile, YOLO's
  validation bars (headed ``mAP50`` or ``mAP@.5``), and bars still
  in their first second (``[00:00<``: warm-up, or a loop too short to time). Each is the
  median of its readings; ``requests_per_s`` from a throughput benchmark's ``Throughput: 1.03
  requests/s`` and ``Request throughput (req/s):``; ``throughput`` is the first of the four
  that was found, so A/B experiments compare one number with its unit;
- ``tflops`` (TFLOP/s as the log prints it, per device in training loops: never the job's
  ``throughput``) and ``app.throughput_trend``: how far the log's own interval readings fell
  (below 1) or rose from the run's early best to its end (:mod:`casefile_probes.app_log_trend`);
- ``app.tensor_parallel`` (int: ``tensor_parallel_size=N``, ``--tensor-parallel-size N``,
  ``--tp N``, ``tp_size=N``, trtllm-bench's ``TP Size:  N``), ``app.world_size`` (int:
  ``world_size=N``, ``WORLD_SIZE=N``, ``distributed_world_size=N``, TensorRT-LLM's
  ``[BENCHMARK] … world_size N``), ``app.gpus_used`` (int:
  ``Using N GPUs``, ``num_gpus=N``, ``n_gpu: N``), read by :mod:`casefile_probes.app_log_layout`;
- ``app.device_cpu`` (bool): True where the log says the job runs on the CPU ("Using device:
  cpu", "torch.cuda.is_available(): False", "CUDA is not available", "No CUDA GPUs are
  available", torch's "UserWarning: CUDA initialization: …", "Found no NVIDIA driver", "Running
  on CPU", ``n_gpu: 0``, Lightning's "GPU available: True, used: False", YOLO's "torch 1.8.0
  CPU" banner …); False where it only names a CUDA device ("Using device: cuda:0", "on
  cuda:0", ``device='cuda'``). Some CPU matches are incidental, about a part of the job: a
  ``device='cpu'``, "Falling back to CPU", "using CPU …" or ``cuda=False``. An explicit CUDA
  statement ("Using device: cuda…", "on cuda:N", Lightning's "used: True") or layers offloaded
  to the GPU outweighs those, with a problem naming both. Not read as the job's device at all:
  ``device='cpu'`` inside a config object's brackets (DeepSpeed's
  ``offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='cpu', …)``), after an
  ``offload_…=`` key or in a YAML ``offload_…:`` block (where optimizer state or parameters
  live), and "falling back to CPU" on a line about an op, operator or kernel (one operator
  unsupported on MPS or by a provider). A log that gives a statement for each (a CUDA line, then
  "No CUDA GPUs are available") is taken to run on the CPU, with a problem naming both. The device
lines are read by :mod:`casefile_probes.app_log_device`;
- ``model.gpu_share`` (percent of the model's layers on the GPU) from llama.cpp's and Ollama's
  "offloaded 29/41 layers to GPU" (the last load, where a log loads more than once; none beside
  a failed CUDA start): how much of the model runs on the CPU, read apart from the device
  because a partial offload is the job left partly on the CPU, not the job on CUDA;
- ``app.cuda_graphs_off`` (bool): True where an inference server says it runs without CUDA
  graphs (vLLM's ``enforce_eager=True``, "Cudagraph is disabled", SGLang's
  ``disable_cuda_graph=True``), False where it captures them
  (:mod:`casefile_probes.app_log_graphs`);
- ``app.gpu_time_ms``, ``app.cpu_dispatch_ms``, ``app.cpu_wall_ms`` and ``app.dispatch_share``
  from TorchBench's ``GPU Time:`` / ``CPU Dispatch Time:`` / ``CPU Total Wall Time:`` lines
  (:mod:`casefile_probes.app_log_dispatch`);
- the model's weights, where they sit and the GPUs a llama.cpp log lists, for the decode
  roofline (:mod:`casefile_probes.app_log_weights`);
- ``gpu.busy_share`` only as a stated reading of the job's own profiler (no log line gives it:
  :mod:`casefile_probes._timeline`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import first_match as _first
from ._timeline import BUSY_SHARE
from .app_log_bench import BenchTable
from .app_log_device import DeviceLines
from .app_log_dispatch import DISPATCH_FACTS, LOOKS_LIKE_DISPATCH, DispatchLines
from .app_log_graphs import GRAPH_WORDS, LOOKS_LIKE_GRAPHS, GraphLines
from .app_log_keras import LOOKS_LIKE_KERAS, KerasEpochs
from .app_log_layout import LayoutLines
from .app_log_rates import RATE_WORDS, TokenRates
from .app_log_steps import WITHHELD, StepRuns, may_count, read_per_step
from .app_log_trend import FLOPS_WORDS, REQUEST_WORDS, RunRates, trend
from .app_log_weights import LOOKS_LIKE_WEIGHTS, WEIGHT_FACTS, WEIGHT_WORDS, WeightLines

__all__ = ["PROBE", "looks_like_app_log", "parse_app_log"]

_N = r"(\d{1,12}(?:\.\d{1,12})?)"
#: a number that starts where a number starts: a search then skips the inside of a long run
#: of digits at once instead of trying every offset of it
_LN = rf"(?<![\d.]){_N}"
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[A-Za-z]")

# --- step and data times (the step time is read only on a line that gives a data time)
_DATA_TIME = (
    re.compile(rf"(?<![\w.])data_time\s{{0,4}}[:=]\s{{0,8}}{_N}"),
    re.compile(rf"(?<![\w.])[Dd]ata:?\s{{1,8}}{_N}\s{{0,2}}s?\s{{1,8}}\("),
    # OpenPCDet's timm-style "Data time: 0.87(0.87)  Forward time: 3.18(3.18)  Batch time: 4.04(…)"
    re.compile(rf"(?<![\w.])Data time:\s{{0,4}}{_N}\s{{0,2}}s?\s{{0,4}}\("),
)
#: CenterNet's bar: "|Data <now>s(<mean>s) |Net <mean>s", the whole iteration's mean as "Net"
_DATA_NET = re.compile(
    rf"\|\s{{0,4}}Data\s{{1,8}}{_N}\s{{0,2}}s\s{{0,4}}\(\s{{0,4}}{_N}\s{{0,2}}s\s{{0,4}}\)\s{{0,8}}"
    rf"\|\s{{0,4}}Net\s{{1,8}}{_N}\s{{0,2}}s"
)
#: LeRobot's "updt_s:0.302 data_s:13.330": the update's time and the wait for its batch, apart
_UPDATE_DATA = re.compile(rf"(?<![\w.])updt_s:\s{{0,4}}{_N}\s{{1,8}}data_s:\s{{0,4}}{_N}")
#: MetricLogger's "data: 0.000170": a data time only beside a "time:" on the same line
#: ("Loading data: 5 files" is not one)
_DATA_WEAK = re.compile(rf"(?<![\w.])data:\s{{0,8}}{_N}")
_STEP_TIME = (
    # before the plain "time:", which would take the "Forward time:" beside it
    re.compile(rf"(?<![\w.])Batch time:\s{{0,4}}{_N}\s{{0,2}}s?\s{{0,4}}\("),
    re.compile(rf"(?<![\w.])(?:iter_time|batch_time)\s{{0,4}}[:=]\s{{0,8}}{_N}"),
    re.compile(rf"(?<![\w.])time\s{{0,4}}[:=]\s{{0,8}}{_N}"),
    re.compile(
        rf"(?<![\w.])Time:?\s{{1,8}}{_N}\s{{0,2}}s?,?\s{{0,8}}"
        r"(?:\d{1,12}(?:\.\d{1,12})?/s\s{1,8})?\("
    ),
    re.compile(rf"(?<![\w.])Batch\s{{1,8}}{_N}\s{{1,8}}\("),
)
#: what a log line may open with before its message (after a quote's "> "): a date and time
#: ("2023-03-22 09:30:39", "[2023-08-08 14:29:00,841]", "2017-03-28 14:49:08.503782:"), so
#: that patterns anchored at the message's start read timestamped lines too
_STAMP = re.compile(
    r"^\s{0,8}(?:>\s{0,2}){0,4}\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
    r"(?:Z|[+-]\d{2}:?\d{2})?\]?(?:\s{0,2}[:|-])?\s{1,4}"
)

# --- throughput
_TQDM = re.compile(rf"{_LN}\s{{0,2}}(it/s|s/it)\b")
#: a bar's iterations done: "| 1/78 [00:04<05:27,  4.26s/it]"
_BAR_DONE = re.compile(r"(?<![\d/.])(\d{1,12})/\d{1,12}\s{0,2}\[")
_NOT_STEPS = re.compile(
    r"(?i)\b(?:load|download|fetch|sav(?:e|ing)\b|map\b|tokeni[sz]|evaluat|validat|test(?:ing)?\b"
    r"|sanity|predict|captur|compil|processed prompts|extract|filter|convert"
    # YOLO's validation bar: "Class  Images  Instances  Box(P  R  mAP50  mAP50-95): 100%|…"
    r"|map(?:50|@))"
)
_SAMPLES = (
    re.compile(rf"CurrSamplesPerSec\s{{0,2}}=\s{{0,4}}{_N}"),
    re.compile(rf"(?<![A-Za-z])SamplesPerSec\s{{0,2}}=\s{{0,4}}{_N}"),
    re.compile(rf"train_(?:step_)?samples_per_second['\"]?\s{{0,4}}[:=]\s{{0,8}}['\"]?{_N}"),
    re.compile(rf"(?:samples|examples|images|imgs|img)/s(?:ec)?:\s{{0,4}}{_N}"),
    re.compile(rf"{_LN}\s{{0,2}}(?:samples|examples|images|imgs)/s(?:ec)?\b"),
)

#: a line that counts iterations or steps ("Iters 10- 19", "step: 14", "[ 104/5005]"): its
#: TFLOP/s times the same work as the line before, where a sweep's lines each time a shape
_STEP_MARK = re.compile(
    r"(?i)\b(?:iters?|iterations?|steps?|epochs?)\b|\[\s{0,8}\d{1,12}/\d{1,12}\]"
)

# Cheap first looks: a line is tried against a group of patterns only if it holds one of
# the group's words (C-speed substring tests keep a 10 MB log to one quick pass).
_TIME_WORDS = ("ime", "ata", "Batch")
_STEP_WORDS = ("step", "per ", "iter", "ms |", "train_s")

_LOOKS = re.compile(
    r"(?<![\w.])data_time\s{0,4}[:=]\s{0,8}\d|Avg generation throughput:"
    r"|gen throughput \(token/s\):|^\s{0,8}Output token throughput \(tok/s\):"
    r"|^\s{0,8}Throughput:\s{0,4}\d{1,12}(?:\.\d{1,12})?\s{0,2}requests/s"
    r"|(?<![\w.])eval time\s{0,4}=\s{0,8}\d{1,12}(?:\.\d{1,12})?\s{0,4}ms\s{0,4}/"
    r"|\d\s{0,2}(?:it/s|s/it)(?:[\],]|\s{0,8}$)|train_samples_per_second|per-step time \d"
    r"|sec/step\)|\d\s{0,2}(?:ms|us|s)/step\b|SamplesPerSec=\d"
    r"|updt_s:\s{0,4}\d[^\n]{0,40}data_s:\s{0,4}\d|\d\s{0,2}(?:tokens|toks|tok)/s(?:ec(?:ond)?)?\b"
    r"|(?<![\w/])tok(?:ens)?(?:/gpu)?/s(?:ec)?:\s{0,4}\d|Generate:\s{0,4}\d[^\n]{0,40}T/s\)"
    r"|(?<![\w/])tps:\s{0,4}\d[\d,.]{0,20}\s{1,4}tflops:|Data time:\s{0,4}\d[^\n]{0,200}Batch time:"
    r"|(?<![\w])tg\s{0,4}=\s{0,4}\d{1,12}(?:\.\d{1,12})?\s{0,2}t/s\b|\[BENCHMARK\][^\n]{0,800}tokens_per_sec"
    r"|(?<![\w])wps=\d|\|\s{0,4}(?:wps|words/s)\s{1,8}\d"
    r"|ggml_(?:cuda_init|init_cublas):\s{0,4}found\s\d{1,4}\sCUDA devices"
    r"|^\s{0,8}(?:>\s{0,2}){0,4}(?:\[?\d{4}-\d{2}-\d{2}[ T][\d:.,]{8,20}\]?:?\s{1,4})?iter\s"
    r"\d{1,12}: loss "
    r"[^\n]{0,80}time \d|time per iteration \(ms\):|iter time \((?:ms|s)\):\s{0,8}\d"
    r"|(?<![\w.])(?:global_)?steps?/sec:\s{0,8}\d|\d\s{0,2}sec/batch\)|time per step = \d"
    r"|(?<![\w.])layers\.offload=\d"
    r"|(?<![\w.])train_step_timing in m?s\s{0,2}[:=]\s{0,4}\d|train_speed\(iter/s\)['\"]?:\s{0,4}\d"
    r"|^\s{0,8}\d{1,12} \| loss \d[^\n]{0,80}ms \| mfu|completed step: \d{1,12}, seconds: \d"
    r"|^\s{0,8}\|[^\n]{0,400}\|\s{0,40}test\s{0,40}\|\s{0,40}t/s\s{0,8}\|"
    r"|^\s{0,8}\|[^\n]{0,200}\|\s{0,40}B\s{0,8}\|[^\n]{0,200}\|\s{0,8}S_TG t/s\s{0,8}\|"
    r"|(?<![\w.])time:\s{1,4}\d{1,12}(?:\.\d{1,12})?\s{1,4}data:\s{1,4}\d"
    r"|(?<![\w.])Time:?\s{1,8}\d{1,12}(?:\.\d{1,12})?\s{0,2}s?,?\s{0,8}\([^\n]{0,80}Data:?\s\d"
    r"|(?<![\w.])Data\s\d{1,12}(?:\.\d{1,12})?\s\(\d{1,12}(?:\.\d{1,12})?\)\s{1,4}Batch\s"
    r"|\|\s{0,4}Data\s{1,8}\d{1,12}(?:\.\d{1,12})?\s{0,2}s\s{0,4}\([^\n]{0,40}\|\s{0,4}Net\s{1,8}\d"
    r"|UserWarning: CUDA initialization|[Ff]ound no NVIDIA driver|No CUDA GPUs are available"
    r"|FP16 is not supported on CPU"
    r"|Falling back to CPU|CUDA is not available|torch\.cuda\.is_available\(\)\s{0,4}[:=]?\s{0,4}"
    r"|using CPU backend|tok/sec|tokens/sec|offloaded \d{1,6}/\d{1,6} layers to GPU"
    r"|tensor[_-]parallel[_-]size['\"]?\s{0,4}[=:]\s{0,4}\d|(?<![\w])world_size=\d"
    rf"|{LOOKS_LIKE_DISPATCH}|{LOOKS_LIKE_GRAPHS}|{LOOKS_LIKE_WEIGHTS}|{LOOKS_LIKE_KERAS}",
    re.M,
)


def looks_like_app_log(text: str) -> bool:
    """Whether a text holds one of the lines this parser is built for (a step timing, a
    throughput, a parallel size, a CUDA failure, Whisper on the CPU). A bare "Using device:
    cuda" is not enough: profiler scripts print it above their tables."""
    return isinstance(text, str) and _LOOKS.search(text) is not None


@dataclass
class _Log:
    """What the lines said, in reading order."""

    data: list[float] = field(default_factory=list)
    step: list[float] = field(default_factory=list)
    share: list[float] = field(default_factory=list)
    per_step: list[float] = field(default_factory=list)
    rates: TokenRates = field(default_factory=TokenRates)
    run: RunRates = field(default_factory=RunRates)
    samples: list[float] = field(default_factory=list)
    iterations: list[float] = field(default_factory=list)
    layout: LayoutLines = field(default_factory=LayoutLines)
    device: DeviceLines = field(default_factory=DeviceLines)
    graphs: GraphLines = field(default_factory=GraphLines)
    dispatch: DispatchLines = field(default_factory=DispatchLines)
    bench: BenchTable = field(default_factory=BenchTable)
    weights: WeightLines = field(default_factory=WeightLines)
    runs: StepRuns = field(default_factory=StepRuns)
    keras: KerasEpochs = field(default_factory=KerasEpochs)
    #: the previous line ended in a backslash: this one continues a shell command
    continued: bool = False


def _timing(line: str, log: _Log) -> bool:
    """Data and step times of a training-progress line; True when a data time was read."""
    pair: tuple[float, float] | None = None
    if (bar := _DATA_NET.search(line)) is not None:
        pair = float(bar.group(2)), float(bar.group(3))
    elif (split := _UPDATE_DATA.search(line)) is not None:
        pair = float(split.group(2)), float(split.group(1)) + float(split.group(2))
    if pair is not None:
        data_mean, step_mean = pair
        log.data.append(data_mean)
        log.step.append(step_mean)
        if step_mean > 0:
            log.share.append(min(1.0, data_mean / step_mean))
        return True
    strong = _first(_DATA_TIME, line)
    data = strong or _DATA_WEAK.search(line)
    if data is None:
        return False
    weak = strong is None
    # the data field blanked, so that its own "time" is never read as the step's
    rest = line[: data.start()] + " " * (data.end() - data.start()) + line[data.end() :]
    step = _first(_STEP_TIME, rest)
    if step is None and weak:
        return False
    data_s = float(data.group(1))
    log.data.append(data_s)
    if step is not None:
        step_s = float(step.group(1))
        log.step.append(step_s)
        if step_s > 0:
            log.share.append(min(1.0, data_s / step_s))
    return True


def _tqdm(line: str, log: _Log) -> None:
    match = _TQDM.search(line)
    if match is None or _NOT_STEPS.search(line[: match.start()]) or "[00:00<" in line:
        return
    value = float(match.group(1))
    counts = _counts(log)
    if match.group(2) == "it/s":
        log.iterations.append(value)
    elif value > 0:
        log.iterations.append(1.0 / value)
        log.per_step.append(value)
    if (bar := _BAR_DONE.search(line, 0, match.start())) is not None and int(bar.group(1)) <= 1:
        log.runs.first_step(counts, _counts(log))  # the bar's first iteration: start-up


def _config(line: str, log: _Log) -> None:
    log.layout.read(line)
    log.device.read(line)
    if any(word in line for word in WEIGHT_WORDS):
        log.weights.read(line)
    if any(word in line for word in GRAPH_WORDS):
        log.graphs.read(line, continued=log.continued)


def _read(line: str, log: _Log) -> None:
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if line[:1].isspace() or line[:1] in ">[0123456789":
        line = _STAMP.sub("", line, count=1)
    if "Time" in line:
        log.dispatch.read(line)
    counts = _lengths(log)  # a tuple: built on every line, so the cheapest there is
    timed = any(word in line for word in _TIME_WORDS) and _timing(line, log)
    keras = not timed and log.keras.read(line, log.per_step, log.samples, log.run)
    if not (timed or keras) and any(word in line for word in _STEP_WORDS):
        read_per_step(line, log.per_step, log.iterations, log.runs.running)
    if "it/s" in line or "s/it" in line:
        counted = len(log.iterations)
        _tqdm(line, log)
        log.run.keep("iterations", line, log.iterations, counted)
    if len(log.step) > counts[0]:
        log.run.keep("step time", line, log.step, counts[0])
    if len(log.per_step) > counts[1]:
        log.run.keep("per-step time", line, log.per_step, counts[1])
    if not line.lstrip().startswith("|"):
        if log.bench.batch is not None:
            log.bench.end()
    else:
        rate = log.bench.read(line)
        if rate is not None:
            log.rates.tokens.append(rate)
            if log.bench.row is not None:
                log.weights.rows.append(log.bench.row)
    if any(word in line for word in RATE_WORDS) or "Prefill batch" in line or "eval count" in line:
        log.rates.read(line)
        match = _first(_SAMPLES, line)
        if match is not None:
            log.samples.append(float(match.group(1)))
            if _NOT_STEPS.search(line) is None:  # a dataset's map bar is no training step
                log.run.keep("samples", line, log.samples, len(log.samples) - 1)
    if any(word in line for word in FLOPS_WORDS) or any(word in line for word in REQUEST_WORDS):
        tflops = len(log.run.tflops)
        log.run.read(line)
        if _STEP_MARK.search(line):  # one block of iterations, not one shape of a sweep
            log.run.keep("tflops", line, log.run.tflops, tflops)
    if may_count(line):
        log.runs.see(line, _named(counts), _counts(log))
    _config(line, log)
    log.continued = line.rstrip().endswith("\\")


#: the lists of readings :class:`StepRuns` places in runs, by name, in :func:`_lengths`' order
_RUN_LISTS = ("step", "per-step", "iterations", "samples")


def _lengths(log: _Log) -> tuple[int, int, int, int]:
    """How many readings each list that :class:`StepRuns` places in runs holds."""
    return len(log.step), len(log.per_step), len(log.iterations), len(log.samples)


def _named(lengths: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(_RUN_LISTS, lengths, strict=True))


def _counts(log: _Log) -> dict[str, int]:
    """:func:`_lengths`, by name."""
    return _named(_lengths(log))


def _round(value: float) -> float:
    return round(value, 6)


def parse_app_log(text: str) -> ParseResult:
    """Facts from a training or inference log (one pass over its lines)."""
    if not isinstance(text, str):
        return ParseResult.unparsed("no text to read")
    log = _Log()
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        _read(line, log)
    result = ParseResult()
    problems = result.problems
    if log.data:
        result.add("train.data_time_s", _round(median(log.data)), "host", "s")
    steps = ("step", log.step) if log.step else ("per-step", log.per_step)
    step, iterations, samples = log.runs.figures(steps, log.iterations, log.samples, problems)
    if step is not None:
        if log.step:
            result.add("train.step_time_s", _round(step), "host", "s")
        result.add("step_time_s", _round(step), "host", "s")
    if log.share:
        result.add("train.data_share", _round(median(log.share)), "host")
    rates = (
        ("tokens_per_s", log.rates.job_rates(), "tokens/s"),
        ("samples_per_s", [] if samples is None else [samples], "samples/s"),
        ("it_per_s", [] if iterations is None else [iterations], "it/s"),
        ("requests_per_s", log.run.requests or log.rates.prompt_rates(), "requests/s"),
    )
    throughput: tuple[float, str] | None = None
    for name, values, unit in rates:
        if values:
            value = _round(median(values))
            result.add(name, value, "host", unit)
            # fairseq's wps comes and goes between pastes of one job, its bar's it/s stays
            words = name == "tokens_per_s" and log.rates.only_words() and log.iterations
            throughput = throughput or (None if words else (value, unit))
    if throughput is not None:
        result.add("throughput", throughput[0], "host", throughput[1])
    if log.run.tflops:
        result.add("tflops", _round(median(log.run.tflops)), "host", "TFLOP/s")
    # runs pasted together are no run that slowed down
    moved = None if log.runs.several_runs() else trend(log.run.series.values())
    if moved is not None:
        result.add("app.throughput_trend", round(moved, 3), "host")
    if log.rates.per_gpu:
        per_gpu = _round(median(log.rates.per_gpu))
        result.add("tokens_per_s_per_gpu", per_gpu, "host", "tokens/s/GPU")
    problems.extend(log.rates.problems())
    log.layout.add_facts(result)
    log.device.add_facts(result)
    log.graphs.add_facts(result)
    log.dispatch.add_facts(result)
    log.weights.one_stream.extend(log.rates.one_stream)
    log.weights.add_facts(result)
    if not result.facts:
        # what was read but withheld says why better than "nothing found"
        withheld = log.rates.mixed_runs() or "; ".join(p for p in problems if WITHHELD in p)
        return ParseResult.unparsed(
            withheld
            or "no step or data times, throughput, parallel sizes, dispatch times or CPU/CUDA "
            "device lines found"
        )
    return result


PROBE = Probe(
    name="app-log",
    summary="The workload's own log: step and data-loading times, throughput, device (a run)",
    parse=parse_app_log,
    argv=(),
    cost="cheap",  # the log of a run that already happened: reading it costs nothing
    facts=(
        "train.data_time_s",
        "train.step_time_s",
        "train.data_share",
        "step_time_s",
        "tokens_per_s",
        "tokens_per_s_per_gpu",
        "samples_per_s",
        "it_per_s",
        "requests_per_s",
        "throughput",
        "tflops",
        "app.throughput_trend",
        "app.tensor_parallel",
        "app.world_size",
        "app.gpus_used",
        "app.device_cpu",
        "model.gpu_share",
        "app.cuda_graphs_off",
        *DISPATCH_FACTS,
        *WEIGHT_FACTS,
    ),
    stated_facts=(BUSY_SHARE, "decode.weight_gbps"),  # the latter a person's sum (an MoE's)
    fractions=("train.data_share", BUSY_SHARE),  # not app.dispatch_share, a ratio passing 1
    percentages=("model.gpu_share",),  # of the layers, as llama.cpp and Ollama print it
    needs_load=True,
    timeout_s=3600.0,
    recognises=looks_like_app_log,
)
