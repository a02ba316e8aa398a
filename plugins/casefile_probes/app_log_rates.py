"""Token rates: what inference servers, LLM tools and LLM training loops print about tokens per
second, read into ``tokens_per_s`` for :mod:`casefile_probes.app_log`.

Read, one rate a line: vLLM's ``Avg generation throughput`` (intervals with ``Running: 0 reqs``
left out: an idle server says nothing about speed), benchmark_throughput's output tokens/s (its
total tokens/s where that is all it prints), the serving benchmarks' ``Output token throughput
(tok/s)``, sglang's ``gen throughput (token/s)``, llama.cpp's ``eval time`` (not ``prompt
eval``; a line cut before "tokens per second", or from a 2023 build that printed only ms per
token, gives 1000 / its ms per token), TGI's
``time_per_token``, vLLM's progress bar ``output: … toks/s`` (each bar by its last reading: it
prints the mean since the bar began), koboldcpp's ``Generate:15.54s
(2.12T/s)`` (not its ``Process:`` rate, the prompt's), torchtitan's ``tps: 7,282`` (tokens per
second per GPU, thousands grouped with commas), and plain ``… tok/s`` / ``tokens/sec`` /
``tokens/second`` rates (Ollama's ``eval rate:``, ExLlamaV2's ``Response generated in …``,
MLC's ``decode: 5.4 tok/s``), or the rate after its label (``tok/sec=46.3``,
trtllm-bench's ``Total Output Throughput (tokens/sec):  7517.2``), llama-server's running
``print_timing`` lines (``tg =  30.51 t/s, tg_3s =  42.89 t/s``: the mean since the generation
began, not the last three seconds' window, which swings with a single slow step), TensorRT-LLM's
``[BENCHMARK] … tokens_per_sec 43.09`` (gptSessionBenchmark and benchmark.py: output tokens over
the whole run's latency, batch included, the figure NVIDIA's own tables compare, as
benchmark_throughput's; not its ``generation_tokens_per_second``, which leaves the context phase
out), and fairseq's ``wps=962`` / ``| wps 12876 |`` (:mod:`casefile_probes.app_log_words`: the
last reading where fairseq up to 0.9 printed a mean since the epoch began).

text-generation-webui's ``Output generated in 163.82 seconds (0.39 tokens/s, …)`` times the
prompt's processing too; beside llama.cpp's own ``eval time`` for the same generation it would
pull the median toward a rate nobody printed, so it is used only where the log gives no other
token rate.

Run summaries (llama.cpp's ``eval time``, Ollama's ``eval rate``, a benchmark's result) are one
per run. A job's runs agree, or differ a little (a long prompt decodes slower); summaries twice
apart or more (two of them, or the quartiles of more) are different setups pasted together, two
machines or two engines, whose median is no run's rate: no ``tokens_per_s`` is given, with a
problem that says so. A generation of fewer than 16 tokens times its first tokens only and is
no run's summary.

A rate per GPU (torchtitan's ``tps:``, ``tokens/gpu/sec: 9378.4``, ``tokens/sec/gpu`` and
``tok/s/gpu`` as TensorRT-LLM and training reports print it) is not the job's: a
job on eight GPUs at 2,120 each moves more than one GPU at 7,300, and taken as the job's rate it
read as a 3.4x gain from fewer GPUs. It goes to ``per_gpu`` (``tokens_per_s_per_gpu``), which
no throughput comparison reads. A benchmark's ``Peak`` rate (vLLM's ``Peak output token
throughput``) is the best second, not the rate, and is not read.

A plain rate is about prompt, input, prefill, total or sampled tokens when the words since the
line's previous rate say so: "prefill: 1.0 tok/s, decode: 5.4 tok/s" gives 5.4, and
"Prompt processed in 0.12 seconds, 15 tokens, 125.00 tokens/second" gives nothing (the whole
line was skipped before, so MLC's decode rate was lost with its prefill rate).

SGLang's ``gen throughput`` is the tokens generated since its previous decode line over the time
since then; after an idle spell (a ``Prefill batch`` with ``#running-req: 0``: nothing was
running when the request came in) that time includes the idle gap, so the next decode line's
rate is left out, with a problem, as vLLM's idle intervals are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median, quantiles

from .app_log_words import FairseqWords

__all__ = ["RATE_WORDS", "TokenRates", "shown_values"]

_N = r"(\d{1,12}(?:\.\d{1,12})?)"
_LN = rf"(?<![\d.]){_N}"
_SCALE = {"ms": 1e-3, "us": 1e-6, "µs": 1e-6, "s": 1.0}

_VLLM = re.compile(rf"Avg generation throughput:\s{{0,4}}{_N}\s{{0,2}}tokens/s")
_RUNNING = re.compile(r"Running:\s{0,4}(\d{1,9})\s{0,2}reqs")
_BENCH = re.compile(
    rf"^\s{{0,8}}Throughput:\s{{0,4}}{_N}\s{{0,2}}requests/s,\s{{0,4}}{_N}\s{{0,2}}"
    rf"(?:total\s)?tokens/s(?:,\s{{0,4}}{_N}\s{{0,2}}output tokens/s)?"
)
_SERVING = re.compile(rf"^\s{{0,8}}Output token throughput \(tok/s\):\s{{0,40}}{_N}")
_SGLANG = re.compile(rf"gen throughput \(token/s\):\s{{0,4}}{_N}")
_SGLANG_IDLE = re.compile(r"Prefill batch[^\n]{0,300}?#running-req:\s{0,4}0\b")
_BAR_OUTPUT = re.compile(rf"output:\s{{0,4}}{_N}\s{{0,2}}toks/s")
#: the bar's count: "| 1055/3273 ["
_BAR_COUNT = re.compile(r"(?<![\d/])(\d{1,12})/(\d{1,12})\s{0,2}\[")
#: the bar's time so far: "20791/152671 [15:38<1:23:11, …" (hours before the minutes past an
#: hour)
_BAR_ELAPSED = re.compile(r"\[(?:(\d{1,4}):)?(\d{1,2}):(\d{2})<")
#: tqdm's own rate on the bar: ", 310.52it/s,"
_BAR_IT = re.compile(rf"{_LN}\s{{0,2}}it/s")
#: fewer output tokens a prompt than this: the job scores prompts (log-likelihoods, one token
#: each) instead of generating, and its output rate is no decode rate
PREFILL_ONLY_TOKENS = 2.0
#: koboldcpp: "Generate:15.54s (2.12T/s)", older builds "Generate:0.00s (3.0ms/T = 333.33T/s)"
_KOBOLD = re.compile(
    rf"(?<![\w.])Generate:\s{{0,4}}{_N}\s{{0,2}}s\s{{0,4}}\((?:[^()=\n]{{0,40}}=\s{{0,4}})?"
    rf"{_N}\s{{0,2}}T/s\)"
)
#: torchtitan's "tps: 7,282" (the comma groups thousands; "tps/gpu" is trtllm's, not this)
_TPS = re.compile(
    r"(?<![\w/])tps:\s{0,4}((?:\d{1,3}(?:,\d{3}){1,4}|\d{1,12})(?:\.\d{1,6})?)(?![\d,.])"
)
_EVAL = re.compile(r"(?<![\w.])eval time\s{0,4}=")
_PER_TOKEN = re.compile(rf"{_LN}\s{{0,4}}ms per token(?:,\s{{0,8}}{_N}\s{{0,4}}tokens per second)?")
_TGI = re.compile(rf"time_per_token=\"?{_N}\s{{0,2}}(ms|us|µs|s)\b")
# a rate after its label ("tok/sec=46.3", "tokens/s: 12.5", "tokens/gpu/sec: 9378.4") or before
# it ("46.3 tok/s"); a number before such a label belongs to the field before it
# ("reward_avg=0.125 tok/sec=46.3"), so the plain form skips it
# a per-GPU suffix may come before the time unit ("tokens/gpu/sec") or after it
# ("tokens/sec/gpu", "tok/s/GPU")
_GPU = r"(?:/(?:gpu|GPU))"
_UNIT = rf"(?:tokens|toks|tok){_GPU}?(?:/s(?:ec(?:ond)?)?{_GPU}?| per second)"
#: a number after a label, thousands grouped or not ("tok/sec: 529,882" is 529882, not 529)
_GROUPED = (
    r"(\d{1,3}(?:,\d{3}){1,4}(?:\.\d{1,6})?(?!\d|,\d)|\d{1,12}(?:\.\d{1,12})?(?!\d|\.\d|,\d{3}))"
)
_ANY_RATE = re.compile(
    rf"(?<![\w/])\(?{_UNIT}\)?\s{{0,2}}[:=]\s{{0,40}}{_GROUPED}"
    rf"|{_LN}\s{{0,2}}(?:tokens|toks|tok)(?:/s(?:ec(?:ond)?)?{_GPU}?\b| per second\b)"
    rf"(?!\s{{0,2}}[:=]\s{{0,4}}\d)"
)
#: llama-server's running "print_timing" line: "tg =  30.51 t/s" (not "tg_3s = …")
_LLAMA_SERVER = re.compile(rf"(?<![\w])tg\s{{0,4}}=\s{{0,4}}{_N}\s{{0,2}}t/s\b")
#: TensorRT-LLM's "[BENCHMARK] … tokens_per_sec 43.09 …" (key and value apart by a space)
_TRT_BENCH = re.compile(rf"(?<![\w])tokens_per_sec\s{{1,4}}{_N}(?![\w.])")
#: text-generation-webui's summary: the prompt's processing is inside its seconds
_WEBUI = re.compile(
    rf"Output generated in\s{{0,4}}{_N}\s{{0,2}}seconds\s{{0,4}}\(\s{{0,4}}{_N}\s{{0,2}}tokens/s"
)
#: Ollama's ``--verbose`` summary line, "eval rate:            10.63 tokens/s" (one per
#: generation; "prompt eval rate:" is the prompt's and is not read)
_OLLAMA_EVAL = re.compile(r"^\s{0,8}eval rate:")
#: a generation this short times its first tokens, not the run: its summary is no run's rate
#: (a request stopped after one token reads 41,666 tokens/s)
SHORT_RUN_TOKENS = 16
#: Ollama's "eval count:           9 token(s)", just above its "eval rate:"
_EVAL_COUNT = re.compile(r"^\s{0,8}eval count:\s{0,20}(\d{1,9})\s{0,2}token")
#: llama.cpp's "eval time = 1075.76 ms /    19 tokens (" or "/   127 runs   ("
_EVAL_TOKENS = re.compile(r"ms\s{0,4}/\s{0,12}(\d{1,9})\s{0,4}(?:tokens|runs)\b")
#: run summaries this many times apart are different setups, not one job's runs
RUNS_APART = 2.0
#: run summaries this many times apart may be: their median is kept, with a word
RUNS_DIFFER = 1.3
_NOT_OUTPUT = re.compile(r"(?i)prompt|input|prefill|total tok|sampl|peak")
#: a line is offered to :meth:`TokenRates.read` only when it holds one of these
RATE_WORDS = (
    "/s",
    "per second",
    "_per_second",
    "eval time",
    "time_per_token",
    "PerSec",
    "tps:",
    "tokens_per_sec",
    "wps",
)


@dataclass
class TokenRates:
    """The token rates of a log, in reading order, and what was left out."""

    tokens: list[float] = field(default_factory=list)
    #: rates per GPU (torchtitan's ``tps``, ``tokens/gpu/sec``): not the job's
    per_gpu: list[float] = field(default_factory=list)
    #: vLLM's rates with one request running (the decode roofline's one-stream rate)
    one_stream: list[float] = field(default_factory=list)
    #: text-generation-webui's rates, which time the prompt too: used only where no other
    #: token rate was read
    end_to_end: list[float] = field(default_factory=list)
    idle_intervals: int = 0
    cut_eval: int = 0
    #: fairseq's words a second (its interval readings go to ``tokens``)
    words: FairseqWords = field(default_factory=FairseqWords)
    after_idle: int = 0
    #: an SGLang prefill found the server idle: its next decode interval includes the gap
    sglang_idle: bool = False
    #: how many of vLLM's bar readings a later one of the same bar replaced
    bar_readings: int = 0
    #: the rates of run summaries (llama.cpp's eval time, Ollama's eval rate, a benchmark's
    #: result): one per run, so two far apart are two runs, not one
    summaries: list[float] = field(default_factory=list)
    #: how many tokens the summary being read generated, where the log says
    generated: int | None = None
    #: vLLM's bars: each finished bar's last rate, and the bar being read (its total, its
    #: count so far, its last rate)
    bar_finals: list[BarReading] = field(default_factory=list)
    bar_now: BarReading | None = None

    def read(self, line: str) -> None:
        """Take the line's token rate, if it gives one (callers pass lines holding one of
        :data:`RATE_WORDS`, SGLang's prefill lines and Ollama's eval counts)."""
        if "eval count" in line and (count := _EVAL_COUNT.match(line)) is not None:
            self.generated = int(count.group(1))
            return
        if "Prefill batch" in line:
            self.sglang_idle = self.sglang_idle or _SGLANG_IDLE.search(line) is not None
        rate = self._rate(line)
        if rate is not None:
            self.tokens.append(rate)

    def _rate(self, line: str) -> float | None:
        if (vllm := _VLLM.search(line)) is not None:
            return self._vllm(line, float(vllm.group(1)))
        if (bench := _BENCH.search(line)) is not None:
            return self._summary(float(bench.group(3) or bench.group(2)))
        if (sglang := _SGLANG.search(line)) is not None:
            if self.sglang_idle:
                self.sglang_idle = False
                self.after_idle += 1
                return None
            return float(sglang.group(1))
        if self.words.read(line, self.tokens):
            return None
        if "Output generated in" in line and (webui := _WEBUI.search(line)) is not None:
            self.end_to_end.append(float(webui.group(2)))
            return None
        if "[BENCHMARK]" in line and (trt := _TRT_BENCH.search(line)) is not None:
            return self._summary(float(trt.group(1)))
        if "t/s" in line and (server := _LLAMA_SERVER.search(line)) is not None:
            return float(server.group(1))
        if (bar := _BAR_OUTPUT.search(line)) is not None:
            self._bar(line, float(bar.group(1)))
            return None
        for pattern in (_SERVING, _KOBOLD):
            if (match := pattern.search(line)) is not None:
                return float(match.group(match.lastindex or 1))
        if (tps := _TPS.search(line)) is not None:
            self.per_gpu.append(float(tps.group(1).replace(",", "")))
            return None
        if "eval time" in line:
            rate = self._eval_rate(line)
            if rate is not None and (tokens := _EVAL_TOKENS.search(line)) is not None:
                self.generated = int(tokens.group(1))
            return None if rate is None else self._summary(rate)
        if (tgi := _TGI.search(line)) is not None:
            seconds = float(tgi.group(1)) * _SCALE[tgi.group(2)]
            return 1.0 / seconds if seconds > 0 else None
        found = _output_rate(line)
        if found is not None and found[1]:
            self.per_gpu.append(found[0])
            return None
        if found is not None and _OLLAMA_EVAL.search(line):
            return self._summary(found[0])
        return None if found is None else found[0]

    def _summary(self, rate: float) -> float:
        """A run's summary rate, counted among the runs unless its generation was too short to
        time (the count the summary gives, or Ollama's line above it)."""
        if self.generated is None or self.generated >= SHORT_RUN_TOKENS:
            self.summaries.append(rate)
        self.generated = None
        return rate

    def only_words(self) -> bool:
        """Whether every token rate read is fairseq's ``wps``: its first intervals print 0 and
        its progress bar may cut it off, so it comes and goes between pastes of one job, where
        the bar's it/s stays (``throughput`` then keeps to it/s)."""
        words = self.words
        return bool(self.tokens or words.running.readings) and words.intervals == len(self.tokens)

    def job_rates(self) -> list[float]:
        """The token rates ``tokens_per_s`` is the median of: the webui's end-to-end rates only
        where the log gives no other, vLLM's bar by its last reading, and none where the run
        summaries disagree (:meth:`mixed_runs`)."""
        if self.mixed_runs() is not None:
            return []
        bars = self._bar_finals()
        since_epoch = self.words.running.last()
        rates = self.tokens + ([median(bars)] if bars else [])
        rates += [] if since_epoch is None else [since_epoch]
        return rates or self.end_to_end

    def mixed_runs(self) -> str | None:
        """Why no token rate is given for the log's run summaries, or None: summaries
        :data:`RUNS_APART` times apart or more are runs of different setups (two machines, two
        engines, before and after a change) pasted together, and their median is no run's
        rate. (One job's runs differ too, a long context decoding slower than a short one, but
        their quartiles seldom twofold: see :meth:`_spread`.)"""
        spread = self._spread()
        if spread is None or spread < RUNS_APART:
            return None
        return (
            f"{self._runs()} differ {spread:.1f}-fold: several setups pasted together; no "
            "tokens_per_s is given (paste each run on its own, or record them as an A/B with "
            "`casefile experiment`)"
        )

    def _spread(self) -> float | None:
        """How far apart the run summaries are: the two of two, else the upper quartile
        against the lower (one outlier, a long prompt's slower decode, is not a second setup)."""
        rates = sorted(self.summaries)
        if len(rates) < 2 or rates[0] <= 0:
            return None
        if len(rates) == 2:
            low, high = rates
        else:
            low, _, high = quantiles(rates, n=4, method="inclusive")
        return high / low if low > 0 else None

    def _runs(self) -> str:
        return f"{len(self.summaries)} runs' token rates ({shown_values(self.summaries)} tokens/s)"

    def _bar(self, line: str, rate: float) -> None:
        """vLLM's bar prints the output tokens so far over the time so far, so a bar's last
        reading is its run's rate and supersedes the ones before; a count that starts again
        (or another total) is the next bar, a run of its own. A reading in the bar's first
        second (``[00:00<``) before it is done says nothing yet, nor does a zero before any
        prompt is done."""
        count = _BAR_COUNT.search(line)
        done, total = (int(count.group(1)), int(count.group(2))) if count else (0, 0)
        previous = self.bar_now
        finished = previous is not None and previous.total and previous.done == previous.total
        if previous is not None and (total != previous.total or done < previous.done or finished):
            self.bar_finals.append(previous)
            self.bar_now = None
        reading = _bar_reading(line, rate, total, done)
        if reading is None or ("[00:00<" in line and not (total and done == total)):
            return
        if self.bar_now is not None:
            self.bar_readings += 1
        self.bar_now = reading

    def _bars(self) -> list[BarReading]:
        """Each bar's last reading, the one being read included."""
        return self.bar_finals + ([self.bar_now] if self.bar_now is not None else [])

    def _bar_finals(self) -> list[float]:
        """Each generating bar's last output rate."""
        return [bar.rate for bar in self._bars() if not bar.prefill_only]

    def prompt_rates(self) -> list[float]:
        """Each bar's prompts a second, of the bars whose job generates next to nothing (it
        scores or embeds prompts): that job's speed is its prompts, not its output tokens."""
        return [bar.prompts for bar in self._bars() if bar.prefill_only and bar.prompts]

    def _vllm(self, line: str, rate: float) -> float | None:
        running = _RUNNING.search(line)
        if running is not None and int(running.group(1)) == 0:
            self.idle_intervals += 1
            return None
        if running is not None and int(running.group(1)) == 1:
            self.one_stream.append(rate)
        return rate

    def _eval_rate(self, line: str) -> float | None:
        """llama.cpp's generation rate from an ``eval time`` line (not ``prompt eval time``)."""
        found = _EVAL.search(line)
        if found is None or line[: found.start()].rstrip().endswith("prompt"):
            return None
        per_token = _PER_TOKEN.search(line, found.end())
        if per_token is None:
            return None
        if per_token.group(2) is not None:
            return float(per_token.group(2))
        milliseconds = float(per_token.group(1))
        if milliseconds <= 0:
            return None
        self.cut_eval += 1
        return 1000.0 / milliseconds

    def problems(self) -> list[str]:
        """Why some rates were left out, for the result's problems."""
        problems = []
        if self.idle_intervals:
            problems.append(
                f"{self.idle_intervals} interval(s) with no running request left out of "
                "tokens_per_s"
            )
        if self.after_idle:
            problems.append(
                f"{self.after_idle} SGLang decode interval(s) right after an idle server left "
                "out of tokens_per_s: their time includes the idle gap"
            )
        if self.cut_eval:
            problems.append(
                f"{self.cut_eval} eval line(s) without 'tokens per second' (cut short, or a "
                "build that printed only ms per token): 1000 / ms per token used"
            )
        problems.extend(self.words.problems())
        if (mixed := self.mixed_runs()) is not None:
            problems.append(mixed)
        elif (spread := self._spread()) is not None and spread >= RUNS_DIFFER:
            problems.append(
                f"{self._runs()} differ {spread:.1f}-fold: their median is given; if they are "
                "different setups, paste each run on its own"
            )
        scoring = [bar for bar in self._bars() if bar.prefill_only]
        if scoring:
            last = scoring[-1]
            problems.append(
                f"vLLM's progress bar: {last.rate:g} output tokens/s over {last.done} prompts "
                f"done, under {PREFILL_ONLY_TOKENS:g} tokens a prompt: a job that scores or "
                "embeds prompts, or generates next to nothing; its speed is prompts a second "
                "(requests_per_s), and its output rate is no tokens_per_s"
            )
        if self.bar_readings:
            problems.append(
                f"vLLM's progress bar: each bar's last output rate kept "
                f"({shown_values(self._bar_finals())} tokens/s), not "
                f"the {self.bar_readings} earlier reading(s): each is the mean since its bar "
                "began"
            )
        if self.tokens and self.end_to_end:
            problems.append(
                f"{len(self.end_to_end)} 'Output generated in' rate(s) left out of tokens_per_s: "
                "they time the prompt's processing too, and the log gives the generation's own "
                "rate"
            )
        return problems


@dataclass(frozen=True)
class BarReading:
    """One reading of a vLLM bar: its total and count, its output rate, its prompts a second
    (None where it does not say its time), and whether its job generates next to nothing."""

    total: int
    done: int
    rate: float
    prompts: float | None
    prefill_only: bool


def _bar_reading(line: str, rate: float, total: int, done: int) -> BarReading | None:
    """A bar's reading, or None where it says nothing yet (no prompt done, and no output).

    Output tokens a prompt are the output rate times the time over the prompts done; the bar
    shows its time in whole seconds, so a second more is the most it can be, and a job is
    counted as generating next to nothing only where even that most is under
    :data:`PREFILL_ONLY_TOKENS`. Prompts a second are the count over the time (its middle,
    half a second on), tqdm's own it/s within the first second."""
    elapsed = _BAR_ELAPSED.search(line)
    if done <= 0 or elapsed is None:
        return None if rate <= 0 else BarReading(total, done, rate, None, False)
    hours, minutes, seconds = (int(part or 0) for part in elapsed.groups())
    spent = hours * 3600 + minutes * 60 + seconds
    most = rate * (spent + 1) / done
    prompts: float | None = done / (spent + 0.5)
    if spent == 0:
        tqdm = _BAR_IT.search(line)
        prompts = float(tqdm.group(1)) if tqdm is not None else None
    prefill_only = most < PREFILL_ONLY_TOKENS
    if rate <= 0 and not prefill_only:
        return None
    return BarReading(total, done, rate, prompts, prefill_only)


def shown_values(rates: Sequence[float]) -> str:
    """The first six values, for a problem's words."""
    return ", ".join(f"{rate:g}" for rate in rates[:6]) + (", …" if len(rates) > 6 else "")


def _output_rate(line: str) -> tuple[float, bool] | None:
    """The line's first plain rate whose own words (those since the previous rate) are not
    about prompt, input, prefill, total, sampled or peak tokens, and whether it is per GPU."""
    previous = 0
    for count, match in enumerate(_ANY_RATE.finditer(line)):
        if count == 8:  # a bound on the work one line can cost
            break
        if _NOT_OUTPUT.search(line, previous, match.end()) is None:
            value = (match.group(1) or match.group(2)).replace(",", "")
            return float(value), "/gpu" in match.group(0).lower()
        previous = match.end()
    return None
