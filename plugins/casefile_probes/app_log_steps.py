"""A step's time on a line of its own, and which run and which step of it each reading is.

A training log's step times are what an A/B compares and what tells a slow step from a slow
host, so one figure stands for the run: the median of its readings. Two things a person
reading the log sets aside, and so does this module:

- **The first step.** Step 1 (or iteration 0) carries the run's start-up: CUDA context,
  cuDNN's autotuning, ``torch.compile``, the allocator's first growth. Megatron-DeepSpeed's
  first ``iter time (s)`` is twice its second; nanoGPT's iteration 0 often ten times the
  next. A reading on a line whose own step counter is 0 or 1 is left out where later steps
  were read (a paste of the first step alone keeps it).
- **Another run.** A step counter that goes back by half or more ("step = 401200", then
  "step = 62400") starts another run: the same script pasted twice, before and after a
  change, or on other GPUs. Runs whose medians are
  :data:`~casefile_probes.app_log_rates.RUNS_APART` times apart are different setups, and
  their pooled median is neither's, so none is given; closer than that, the median of all is
  given with a word, as for the run summaries of token rates.

A counter that only climbs cannot show a second run: OpenSeq2Seq's two lines under two
labels ("with 4 GPUs: Global step 73968", "with 1 GPU: Global step 138432") are pooled.

A rate of steps that is a mean since the run began (ms-swift's ``train_speed(iter/s)``) is kept
apart, in :attr:`StepRuns.running`: its last reading stands where nothing else was read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median

from ._text import first_match
from .app_log_rates import RUNS_APART, RUNS_DIFFER, shown_values
from .app_log_trend import RunningMean

__all__ = [
    "FIRST_STEPS_LEFT_OUT",
    "FIRST_STEP_ALONE",
    "SCALE",
    "WITHHELD",
    "StepRuns",
    "may_count",
    "ms_swift_speed",
    "read_per_step",
]

_N = r"(\d{1,12}(?:\.\d{1,12})?)"
#: a step's time alone (no data time beside it): the value ``v`` in the unit ``u`` (seconds
#: where none is given)
_V = r"(?<![\d.])(?P<v>\d{1,12}(?:\.\d{1,12})?)"
_PER_STEP = (
    re.compile(rf"per-step time\s{{0,4}}{_V}\s{{0,2}}(?P<u>ms|s)\b"),
    # Megatron-LM: "elapsed time per iteration (ms): 126995.3", the unit before the number
    re.compile(rf"(?i)time per iter(?:ation)?\s{{0,4}}\((?P<u>ms|s)\):\s{{0,8}}{_V}"),
    # Megatron-DeepSpeed: "steps: 2 loss: 12.6157 iter time (s): 2.673 samples/sec: 95.775"
    re.compile(rf"(?<![\w.])iter time\s{{0,4}}\((?P<u>ms|s)\):\s{{0,8}}{_V}"),
    # "time per step = 1.39": not the hours of "0:00:1.390", which _CLOCK_PER_STEP reads
    re.compile(
        rf"(?i)time per (?:step|iter(?:ation)?)\s{{0,4}}[:=]?\s{{0,4}}{_V}(?![\d:])"
        rf"\s{{0,2}}(?P<u>ms|s)?"
    ),
    # "50ms/step", TensorFlow's cifar10 "(821.9 examples/sec; 0.156 sec/batch)"
    re.compile(rf"{_V}\s{{0,2}}(?P<u>ms|us|µs|s|sec)/(?:step|batch)\b"),
    # nanochat: "step 00004/21400 (0.02%) | loss: 8.893647 | lrm: 1.00 | dt: 989.44ms" (a
    # loss before it: a simulation's "step 100 | dt: 0.01s" is its time step, not a run's)
    re.compile(rf"\bloss\b[^\n]{{0,200}}?(?<![\w.])dt:\s{{0,4}}{_V}\s{{0,2}}(?P<u>ms|s)\b"),
    # nanoGPT: "iter 10: loss 3.2202, time 893.76ms, mfu 16.68%"
    re.compile(
        rf"^\s{{0,8}}iter\s{{1,4}}\d{{1,12}}:[^\n]{{0,200}}?(?<![\w.])time\s{{1,4}}{_V}\s{{0,2}}(?P<u>ms|s)\b"
    ),
    # llama2.c: "490 | loss 5.7543 | lr 4.900000e-05 | 8060.78ms | mfu 0.21%"
    re.compile(
        rf"^\s{{0,8}}\d{{1,12}}\s{{1,4}}\|\s{{1,4}}loss\s[^|\n]{{1,40}}\|[^|\n]{{1,60}}\|\s{{0,4}}{_V}"
        r"\s{0,2}(?P<u>ms)\s{0,4}\|"
    ),
    # NeMo / Megatron-Core: "iteration 120/149 | … | train_step_timing in s: 0.03146 |"
    re.compile(rf"(?<![\w.])train_step_timing in (?P<u>ms|s)\s{{0,2}}[:=]\s{{0,4}}{_V}"),
    # MaxText: "completed step: 15107, seconds: 2.167, TFLOP/s: 36.722, loss: 2.191"
    re.compile(rf"completed step:\s{{0,4}}\d{{1,12}},\s{{0,4}}seconds:\s{{0,4}}{_V}"),
)
SCALE = {"ms": 1e-3, "us": 1e-6, "µs": 1e-6, "s": 1.0, "sec": 1.0, None: 1.0}
#: OpenSeq2Seq's "time per step = 0:00:1.390": hours, minutes and seconds
_CLOCK_PER_STEP = re.compile(
    r"(?i)time per (?:step|iter(?:ation)?)\s{0,4}[:=]?\s{0,4}(?<![\d.:])(\d{1,4}):(\d{1,2}):"
    r"(\d{1,2}(?:\.\d{1,9})?)(?![\d:])"
)
#: a rate of steps rather than a time per step: TensorFlow Estimator's "global_step/sec:
#: 1.09456", Model Garden's "train | step: 160 | steps/sec: 0.1"
_STEPS_PER_SECOND = re.compile(
    rf"(?<![\w.])(?<!env )(?:global_)?steps?/sec(?:ond)?:?\s{{0,8}}{_N}"
)  # not an RL loop's "env steps/sec: 12000", its environment's rate

#: a line's step counter: "step = 401200", "Global step 73968:", "steps: 1", "iter 10:",
#: "step 00004/21400", "[Rank 0] step=2,", "iteration      100/  500000", "Iter [50/1000]",
#: "completed step: 15107", "step 1,000 |"; not "time per step = 0:00:1.390", "steps/sec:
#: 1.09", "max_steps=10", LeRobot's rounded "step:1K" nor a bar titled "Steps:  45%|"
_COUNTER = re.compile(
    r"(?i)(?<![\w./])(?<!per )(?:global[ _])?(?:step|iter(?:ation)?)s?(?![A-Za-z_/])"
    r"\s{0,8}[:=]?\s{0,8}\[?\s{0,4}(\d{1,3}(?:,\d{3}){1,4}|\d{1,12})"
    r"(?![\d.%]|:\d|,\d|\s?[KMBkmb]\b)"
)
#: an epoch's number beside a counter ("Epoch [2/10], Step [100/600]", "Epoch 2 iter 10"):
#: a counter that starts again with the epoch is the same run going on
_EPOCH = re.compile(r"(?i)(?<![\w.])epoch\s{0,4}[:=]?\s{0,4}\[?\s{0,4}(\d{1,9})(?![\d.])")
#: how the two words on first steps begin (one of each is said, whichever list says it)
FIRST_STEPS_LEFT_OUT = "a run's first step is left out of the"
FIRST_STEP_ALONE = "only a run's first step gives the"
#: what a word on readings withheld says
WITHHELD = "so none is given"
#: the counter of a run's first step: what it times includes the run's start-up
FIRST_STEP = 1


#: ms-swift's dict lines: "'train_speed(iter/s)': 0.193983", steps a second since the start
#: (a running mean)
_ITER_SPEED = re.compile(rf"train_speed\(iter/s\)['\"]?\s{{0,4}}:\s{{0,4}}['\"]?{_N}")


def ms_swift_speed() -> RunningMean:
    """Where ms-swift's steps a second since the run began are kept."""
    return RunningMean("ms-swift's train_speed(iter/s)", "the run began", "it/s")


def read_per_step(
    line: str, per_step: list[float], iterations: list[float], running: RunningMean
) -> None:
    """A step's time on ``line`` (appended to ``per_step``), and a rate of steps (appended to
    ``iterations`` too), where the line gives one; a rate of steps that is a mean since the
    run began goes to ``running`` alone (its last reading is the run's, and its rise as it
    settles is no trend)."""
    if (clock := _CLOCK_PER_STEP.search(line)) is not None:
        hours, minutes, seconds = clock.groups()
        per_step.append(int(hours) * 3600 + int(minutes) * 60 + float(seconds))
        return
    if (mean := _ITER_SPEED.search(line)) is not None:
        running.add(float(mean.group(1)))
        return
    if (rate := _STEPS_PER_SECOND.search(line)) is not None:
        value = float(rate.group(1))
        if value > 0:
            iterations.append(value)
            per_step.append(1.0 / value)
        return
    match = first_match(_PER_STEP, line)
    if match is not None:
        per_step.append(float(match.group("v")) * SCALE[match.groupdict().get("u")])


def may_count(line: str) -> bool:
    """Whether ``line`` may state a step counter ("step", "iter": a cheap look before the
    pattern, spelt out because a generator's ``any()`` costs three times as much, on every
    line of a log)."""
    return "tep" in line or "ter" in line or "TEP" in line or "TER" in line


def step_counter(line: str) -> int | None:
    """The step (or iteration) number ``line`` states, if it states one."""
    match = _COUNTER.search(line)
    return None if match is None else int(match.group(1).replace(",", ""))


def epoch_of(line: str) -> int | None:
    """The epoch ``line`` names, if it names one."""
    match = _EPOCH.search(line)
    return None if match is None else int(match.group(1))


@dataclass
class StepRuns:
    """Where runs start and which readings are a run's first step, for each list of readings
    a log keeps (by name: ``step``, ``per-step``, ``iterations``)."""

    #: the last counter read, its epoch, and how many readings each list held right after its
    #: line
    counter: int | None = None
    epoch: int | None = None
    counted: dict[str, int] = field(default_factory=dict)
    #: the largest step forward between two counter lines of the run: the log's interval
    stride: int = 0
    #: the run's first counter (lines at it, where it is 0 or 1, are the run's first step),
    #: and whether the run has gone past it
    run_first: int | None = None
    run_on: bool = False
    #: per list, the indices where a later run starts
    starts: dict[str, list[int]] = field(default_factory=dict)
    #: per list, the indices of readings on a run's first step's line
    first_steps: dict[str, list[int]] = field(default_factory=dict)
    #: steps a second as a mean since the run began (ms-swift's): the last one is the run's
    running: RunningMean = field(default_factory=ms_swift_speed)

    def see(self, line: str, before: dict[str, int], after: dict[str, int]) -> None:
        """Take a line's counter into account, given each list's length before and after the
        line was read.

        A counter that goes back starts a run right after the last line that gave a counter:
        a log prints a step's counter on its last line about it (TensorFlow's "loss = …, step
        = N" after its "global_step/sec"), or on the one line that has it all. Back, that is,
        by half or more, or by more than two of the log's intervals: two ranks' lines an
        interval out of order ("step 100", then "step 90") are one run, and so is a counter
        that starts again with the next epoch. The lines at a run's first counter, where it is 0
        or 1, are its first step (DeepSpeed's "step=1" line and the "steps: 1" beside it; not
        nanoGPT's iteration 1 after its iteration 0)."""
        counter = step_counter(line)
        if counter is None:
            return
        epoch = epoch_of(line)
        starts_run = self.counter is None
        if self.counter is not None and counter < self.counter:
            back = self.counter - counter
            next_epoch = epoch is not None and self.epoch is not None and epoch > self.epoch
            if not next_epoch and (counter <= self.counter // 2 or back > 2 * self.stride):
                starts_run = True
                self.stride = 0
                for name, length in self.counted.items():
                    starts = self.starts.setdefault(name, [])
                    if length > 0 and (not starts or starts[-1] < length):
                        starts.append(length)
        elif self.counter is not None:
            self.stride = max(self.stride, counter - self.counter)
        if starts_run:
            self.run_first, self.run_on = counter, False
        self.run_on = self.run_on or counter != self.run_first
        # a paste from a later epoch starts mid-run: its first counter is no run's start
        started = epoch is None or epoch <= FIRST_STEP
        if not self.run_on and counter <= FIRST_STEP and started:
            self.first_step(before, after)
        self.counter, self.epoch = counter, epoch
        self.counted = dict(after)

    def figures(
        self,
        steps: tuple[str, Sequence[float]],
        iterations: Sequence[float],
        samples: Sequence[float],
        problems: list[str],
    ) -> tuple[float | None, float | None, float | None]:
        """The log's step time, rate of steps and sample rate, each settled (:meth:`settle`)
        from its readings (``steps``: the name and readings of the data-timed step times
        where the log gives them, else of the per-step ones), with the words on
        what was left out or withheld added to ``problems``, a first step said once. A rate
        of steps that is a mean since the start (:attr:`running`) stands where nothing else
        was read: its last reading is the run's."""
        step, said = self.settle(*steps, ("step time", "step times"), "s")
        running = self.running
        last = running.last()
        if not (steps[1] or iterations) and last is not None and last > 0:
            step = 1.0 / last
        rate, more = self.settle(
            "iterations", iterations, ("rate of steps", "rates of steps"), "it/s"
        )
        if not iterations and last is not None:
            rate = last
            if (word := running.word()) is not None:
                said.append(word)
        sampled, most = self.settle(
            "samples", samples, ("sample rate", "sample rates"), "samples/s"
        )
        problems.extend(_first_of_each([*said, *more, *most]))
        return step, rate, sampled

    def several_runs(self) -> bool:
        """Whether a counter started again anywhere: the log holds more than one run."""
        return any(self.starts.values())

    def first_step(self, before: dict[str, int], after: dict[str, int]) -> None:
        """The readings a line added (each list's length before and after it) are a run's
        first step: a counter's, or a progress bar's first iteration ("1/78")."""
        for name, length in after.items():
            self.first_steps.setdefault(name, []).extend(range(before.get(name, 0), length))

    def settle(
        self, name: str, values: Sequence[float], what: tuple[str, str], unit: str
    ) -> tuple[float | None, list[str]]:
        """The figure for one list of readings (the median of its runs' readings, first
        steps left out), or None where its runs are different setups; and the words that say
        what was left out and why (``what`` names a reading and readings, ``unit`` their unit)."""
        if not values:
            return None, []
        problems: list[str] = []
        one, several = what
        first = set(self.first_steps.get(name, ()))
        kept = [k for k in range(len(values)) if k not in first]
        shown = shown_values([values[k] for k in sorted(first)])
        if first and kept:
            problems.append(
                f"{FIRST_STEPS_LEFT_OUT} {one} ({len(first)} reading(s): {shown} {unit}): it "
                "includes the run's start-up"
            )
        else:
            kept = list(range(len(values)))
            if first:
                problems.append(
                    f"{FIRST_STEP_ALONE} {one} ({shown} {unit}): it includes the run's "
                    "start-up, and a later step's is the steadier figure"
                )
        runs = self._runs(name, kept, values)
        if len(runs) >= 2:
            medians = [median(run) for run in runs]
            low, high = min(medians), max(medians)
            spread = high / low if low > 0 else float("inf")
            shown = shown_values(medians)
            if spread >= RUNS_APART:
                problems.append(
                    f"{len(runs)} runs (the step counter starts again) whose {several} are "
                    f"{spread:.2f}-fold apart ({shown} {unit}): several setups pasted "
                    f"together, {WITHHELD} (paste each run on its own, or record them "
                    "as an A/B with `casefile experiment`)"
                )
                return None, problems
            if spread >= RUNS_DIFFER:
                problems.append(
                    f"{len(runs)} runs (the step counter starts again) whose {several} are "
                    f"{spread:.2f}-fold apart ({shown} {unit}): their median is given; if "
                    "they are different setups, paste each run on its own"
                )
        return median(values[k] for k in kept), problems

    def _runs(self, name: str, kept: list[int], values: Sequence[float]) -> list[list[float]]:
        """The kept readings, run by run (runs with none kept left out), in one pass."""
        starts = iter(self.starts.get(name, ()))
        next_start = next(starts, None)
        runs: list[list[float]] = [[]]
        for k in kept:
            while next_start is not None and k >= next_start:
                if runs[-1]:
                    runs.append([])
                next_start = next(starts, None)
            runs[-1].append(values[k])
        return [run for run in runs if run]


def _first_of_each(said: list[str]) -> list[str]:
    """The words, each word on first steps said once (every list of readings leaves a first
    step out alike)."""
    seen: set[str] = set()
    kept = []
    for word in said:
        kind = next(
            (k for k in (FIRST_STEPS_LEFT_OUT, FIRST_STEP_ALONE) if word.startswith(k)), None
        )
        if kind is not None:
            if kind in seen:
                continue
            seen.add(kind)
        kept.append(word)
    return kept
