"""Whether a run's throughput falls while it runs, from the log's own interval readings:
``app.throughput_trend`` for :mod:`casefile_probes.app_log`; and the two rates that feed it
besides steps, samples and iterations: TFLOP/s and requests per second.

A GPU that heats up lowers its clocks minutes into a steady run, and one held at its power cap
settles below the boost it started at: both show in a log that prints a rate (or a step time)
every interval as a fall from its early best to its end, where nearly every other cause is as
slow in the first minute as in the last. That is the intake question "does it get slower over
time under steady load?" answered by the log instead of by memory.

Only series whose readings time the same work each interval are read: a training loop's
samples per second (not a dataset's map or tokenize bar), tqdm's it/s, step times (as their
inverse), and TFLOP/s on lines that count iterations or steps (a kernel benchmark's blocks of
iterations; a sweep over shapes times other work on each line). A server's token rate moves
with what was asked (the load, the context a decode has grown: one stream slows as it
lengthens), and llama.cpp's rate per generation with each generation's length, not with how
fast the GPU ran: they are left out.

The trend is the median of the last third of the longest such series (four readings or more;
the end never fewer than two readings, so one slow last step is no trend) over the median of
its early best: the three consecutive readings of its first half with the
fastest median (its fastest reading where it holds fewer than three). The early best skips a
warm-up's slow first steps (compilation, autotuning, a cold page cache), so a warm-up is never
a fall. A move of more than 5 % counts only where at least 85 % of the (late, early) reading
pairs agree with it: a noisy loop (per-iteration img/s swinging from 4 to 32) or the slow steps
an evaluation or a checkpoint adds say nothing either way, and give no trend. Below 1 the end
ran slower than the start; the playbook says how far is far.

A meter that prints its mean since a start (ms-swift's ``train_speed(iter/s)``, the mean since
the run began; fairseq's ``wps`` up to 0.9, the mean since its epoch began) is no series at all:
it rises or falls as it settles whatever the GPU does, and its last reading is the figure, as it
averages the most of the run. Such readings are kept in a :class:`RunningMean`, the one home of
that rule, and never reach a series (vLLM's progress bar, a mean since its bar began, keeps its
bars' last readings the same way in :mod:`casefile_probes.app_log_rates`).

A series is one printer's: readings are kept apart by the first three words of their lines (a
YOLOX line against an mmengine line, a sampling bar against its "Total progress" bar), so two
logs pasted one after the other are two series, not one run that slowed down. Two runs of one
script pasted together give no trend where the step counter starts again
(:mod:`casefile_probes.app_log_steps`); where it only climbs they are not told apart.

TFLOP/s is read as the log prints it: ``avg=1425 TFLOPS``, ``523.4 TFLOPS``, ``TFLOP/s: 36.7``
(MaxText), ``tflops: 312.45`` (torchtitan), ``TFLOPs/s``, ``TFLOP/s/GPU``, thousands grouped
with commas, GFLOP/s as thousandths; not ``GFLOPs`` alone, a model's count of operations. A
rate its label (the words just before it) calls peak, theoretical or the hardware's maximum is a
specification, not a reading. Training loops print
it per device, so it is never the job's ``throughput``. Requests per second (the ``Throughput:
1.03 requests/s`` older vLLM throughput benchmarks print alone, the serving benchmark's
``Request throughput (req/s):``) is the job's rate where the log gives no token, sample or
iteration rate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import median

__all__ = ["FLOPS_WORDS", "REQUEST_WORDS", "RunRates", "RunningMean", "inverse", "trend"]

_N = r"(\d{1,12}(?:\.\d{1,12})?)"
#: a number, thousands grouped with commas or not ("1,425", "1425.5")
_V = r"\d{1,3}(?:,\d{3}){1,4}(?:\.\d{1,12})?|\d{1,12}(?:\.\d{1,12})?"
#: a rate's unit: TFLOPS, TFLOP/s, TFLOPs/s, with a "/GPU" or "/device" after it at most; not
#: "FLOPs" alone, the count of a model's operations ("8.9 GFLOPs" in a model summary)
_UNIT = r"(?:FLOPS|FLOP/s|FLOPs/s|flops|flop/s)(?:/(?:GPU|gpu|device))?"
#: a number before its unit ("1425 TFLOPS", "36.5 TFLOP/s") or after its label ("TFLOP/s: 36.7",
#: "tflops: 312.45", "TFLOPS=523", "throughput per GPU (TFLOP/s/GPU): 402.5")
_FLOPS = re.compile(
    rf"(?<![\w.,])(?P<x>{_V})\s{{0,2}}(?P<a>[TG]){_UNIT}(?![\w/])"
    rf"|(?<![\w/])(?P<b>[TtGg]){_UNIT}\)?\s{{0,2}}[:=]\s{{0,4}}(?P<y>{_V})(?![\w.])"
)
#: words that make a rate a specification: in the label just before the number
_SPEC = re.compile(r"(?i)\b(?:peak|theoretical|spec|max(?:imum)?|hardware)\b")
#: how far before a rate its label reaches (the words the specification test reads)
_LABEL = 24
_REQUESTS = (
    re.compile(rf"^\s{{0,8}}Throughput:\s{{0,4}}{_N}\s{{0,2}}requests/s\b"),
    re.compile(rf"^\s{{0,8}}Request throughput \(req/s\):\s{{0,40}}{_N}"),
)
#: a line is offered to :meth:`RunRates.read` only when it holds one of these
FLOPS_WORDS = ("FLOP", "flop")
REQUEST_WORDS = ("requests/s", "req/s")

#: fewer readings than this say nothing about a trend
MIN_READINGS = 4
#: the early best is the fastest median of this many consecutive readings
WINDOW = 3
#: the end is the last third of the readings, and never fewer than this: one last reading
#: (a step with a checkpoint in it) is no trend
LATE = 2
#: a move this small (a share of the early best) is read as it is, however noisy the series
STEADY = 0.05
#: a larger move is read only where this share of (late, early) reading pairs agree with it
CONSISTENT = 0.85


#: how many of a line's first words name its printer (see :func:`printer`)
_OPENING_WORDS = 3
_WORD = re.compile(r"[A-Za-z]{2,40}")
#: words of a time stamp, which change over a run and name no printer
_CLOCK_WORDS = frozenset(
    [
        "am",
        "pm",
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "jan",
        "feb",
        "mar",
        "apr",
        "may",
        "jun",
        "jul",
        "aug",
        "sep",
        "oct",
        "nov",
        "dec",
    ]
)


def printer(line: str) -> str:
    """The first words (two letters or more) of a line: the same for every line one logger or
    progress bar prints, whatever its numbers, bar glyphs and spacing, and the remarks some
    lines carry after their figures ("(peak)", "(throttling begins)")."""
    words = []
    for match in _WORD.finditer(line):
        if match.group(0).lower() in _CLOCK_WORDS:
            continue
        words.append(match.group(0))
        if len(words) == _OPENING_WORDS:
            break
    return " ".join(words)


@dataclass
class RunRates:
    """TFLOP/s and request rates in reading order, and every rate a trend may read, kept by
    the series it belongs to: (what it is, the printer of its line)."""

    tflops: list[float] = field(default_factory=list)
    requests: list[float] = field(default_factory=list)
    series: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def keep(self, kind: str, line: str, values: list[float], count: int) -> None:
        """Add the readings a line added to ``values`` past ``count`` to their series, times
        (a kind ending in "time") as their rates."""
        if len(values) > count:
            fresh = values[count:]
            rates = inverse(fresh) if kind.endswith("time") else fresh
            self.series.setdefault((kind, printer(line)), []).extend(rates)

    def read(self, line: str) -> None:
        """Take a line's TFLOP/s or request rate, if it gives one (callers pass lines holding
        one of :data:`FLOPS_WORDS` or :data:`REQUEST_WORDS`)."""
        if "FLOP" in line or "flop" in line:
            match = _FLOPS.search(line)
            label = max(0, match.start() - _LABEL) if match is not None else 0
            if match is not None and _SPEC.search(line, label, match.end()) is None:
                value = float((match.group("x") or match.group("y")).replace(",", ""))
                giga = (match.group("a") or match.group("b")).upper() == "G"
                self.tflops.append(value / 1000.0 if giga else value)
        if "req" in line:
            for pattern in _REQUESTS:
                found = pattern.search(line)
                if found is not None:
                    self.requests.append(float(found.group(1)))
                    break


@dataclass
class RunningMean:
    """The readings of a meter that prints its mean since a start: its last reading is the
    figure, and no reading of it feeds a trend (see the module's docstring). ``what`` names
    the meter and ``since`` its start, for the word on readings passed over; ``unit`` is the
    readings' unit."""

    what: str
    since: str
    unit: str
    readings: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        """Keep a reading (the latest stands for the run)."""
        self.readings.append(value)

    def last(self) -> float | None:
        """The figure: the latest reading, or None where there is none."""
        return self.readings[-1] if self.readings else None

    def word(self) -> str | None:
        """Why the figure is the last reading and not the median, where readings were passed
        over (None for one reading or none)."""
        if len(self.readings) < 2:
            return None
        return (
            f"{self.what} is a mean since {self.since}: its last reading is given "
            f"({self.readings[-1]:g} {self.unit}), not the median of its {len(self.readings)} "
            "readings, and it feeds no throughput trend (it drifts as it settles)"
        )


def trend(series: Iterable[Sequence[float]]) -> float | None:
    """How far the longest series of rates (higher is faster) with :data:`MIN_READINGS` or
    more moved from its early best to its end (see the module's docstring), the first listed
    among equals; None where none is that long, or where it moved by more than
    :data:`STEADY` but not consistently: noise, which says nothing either way."""
    longest: Sequence[float] = ()
    for rates in series:
        if len(rates) > len(longest):
            longest = rates
    if len(longest) < MIN_READINGS:
        return None
    early = _early_best(longest[: len(longest) // 2])
    late = longest[-max(LATE, len(longest) // 3) :]
    start = median(early)
    if not start > 0:
        return None
    moved = median(late) / start
    if abs(moved - 1.0) <= STEADY:
        return moved
    pairs = [(after, before) for after in late for before in early]
    agree = sum((after < before) == (moved < 1.0) for after, before in pairs)
    return moved if agree >= CONSISTENT * len(pairs) else None


def _early_best(half: Sequence[float]) -> Sequence[float]:
    """The fastest :data:`WINDOW` consecutive readings of a series' first half, by their
    median (where the half holds fewer, its fastest reading: a short series' first reading is
    often its warm-up)."""
    if len(half) < WINDOW:
        return [max(half)] if half else half
    windows = [half[k : k + WINDOW] for k in range(len(half) - WINDOW + 1)]
    return max(windows, key=median)


def inverse(times: Sequence[float]) -> list[float]:
    """Step times as rates (steps per second), leaving out zero times."""
    return [1.0 / t for t in times if t > 0]
