"""Keras's epoch lines: a step time or a sample rate for :mod:`casefile_probes.app_log`.

Keras prints one line an epoch, at its end (read by :class:`KerasEpochs`): ``60000/60000
[=====] - 12s 200us/step - loss: …``, the count, the epoch's seconds and the time per counted
unit. Keras rounds both to whole units ("2s/step" for steps of 1.65 to 1.90 s), so the time per
unit is the middle of what both allow (1843 s over 1000 steps: 1.843 s), or the printed time
alone where they allow nothing in common (TensorFlow's Keras from 2.3 leaves the first step out
of the time per unit, not out of the seconds).

What it counts is not always steps: Keras up to 2.3 and TensorFlow's up to 2.1 count samples
when they fit on arrays, under a banner "Train on 60000 samples, validate on 10000 samples"
(or "Train on 60000 samples"), and Keras still calls the time a step's ("200us/step", where
tf.keras says "us/sample"). Those epochs give a sample rate, not a step time. Keras 2.0 and
before print the seconds alone ("- 290s - loss", "3083s - loss" with verbose=2): a sample rate
under the banner, nothing without one (Keras 2.0's fit_generator counted steps, its fit
samples). Without the banner a count of samples cannot be told from a count of steps (Keras
2.2 fit without validation data prints none, and its "600000/600000 [====] - 18s 30us/step" is
30 us a sample): such a line is read as steps, as before.

A bar right after another, with no "Epoch 3/10" header (or banner) between and another count,
is evaluate()'s over the test set: no epoch of training (tf.keras prints no header for a fit of
one epoch, so a loop of such fits gives bars of one count, each read). Each reading is kept
with the step times (or sample rates) of other printers, so runs, first steps and trends treat
it as theirs (:mod:`casefile_probes.app_log_steps`, :mod:`casefile_probes.app_log_trend`); an
epoch line's seconds include the validation Keras runs before printing it, as its time per unit
does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .app_log_steps import SCALE
from .app_log_trend import RunRates

__all__ = ["LOOKS_LIKE_KERAS", "KerasEpochs"]

#: a line's start, in a quote ("> ") or not
_QUOTED = r"\s{0,8}(?:>\s{0,2}){0,4}"
#: Keras's banner where it fits on arrays ("Train on 60000 samples, validate on 10000
#: samples", tf.keras's "Train on 60000 samples"): its bars count samples, not steps
_KERAS_SAMPLES = re.compile(rf"^{_QUOTED}Train on (\d{{1,12}}) samples\b")
#: Keras's header of an epoch: "Epoch 3/10", Keras 0.x's "Epoch 0"
_KERAS_EPOCH = re.compile(rf"^{_QUOTED}Epoch \d{{1,9}}(?:/\d{{1,9}})?\s{{0,8}}$")
#: Keras's bar at an epoch's end, its count at its total: "- 12s 200us/step - loss" (2.1
#: on: seconds and time per unit, both rounded), "- 290s - loss" (2.0 and before: the seconds
#: alone, cut to whole ones), tf.keras's "- 2s 36us/sample"
_KERAS_END = re.compile(
    r"(?<![\d/])(?P<n>\d{1,12})/(?P=n) \[=+\] - (?P<t>\d{1,9})s"
    r"(?: (?P<v>\d{1,9})(?P<u>us|ms|s)/(?P<per>step|sample)\b| - )"
)
#: Keras's epoch line with verbose=2, which gives no count: "3083s - loss: …" (2.0 and
#: before: cut to whole seconds), " - 12s - loss: …" (2.1 on: rounded)
_KERAS_QUIET = re.compile(rf"^{_QUOTED}(?P<dash>- )?(?P<t>\d{{1,9}})s - loss:")
#: what recognises a Keras epoch line that names no step (:func:`looks_like_app_log`)
LOOKS_LIKE_KERAS = (
    r"\[=+\] - \d{1,9}s(?: - loss| \d{1,9}(?:us|ms|s)/sample)"
    rf"|^{_QUOTED}(?:- )?\d{{1,9}}s - loss:"
)


@dataclass
class KerasEpochs:
    """Keras's epoch lines (see the module's docstring): the sample count of the last "Train
    on N samples" banner, and whether an "Epoch" header (or a banner: a fit of one epoch
    prints no header in tf.keras) came since the last epoch line read (a paste may start below
    its first header)."""

    samples: int | None = None
    header: bool = True
    #: what the last epoch line read counted (its count, or the banner's for verbose=2)
    count: int | None = None

    def read(self, line: str, per_step: list[float], samples: list[float], run: RunRates) -> bool:
        """Take a Keras epoch line's step time (into ``per_step``) or sample rate (into
        ``samples``, and its series in ``run``); True where ``line`` is a Keras line, read or
        passed over, that no other step pattern may read."""
        if "] - " in line and (end := _KERAS_END.search(line)) is not None:
            count, value = int(end.group("n")), end.group("v")
            by_sample = end.group("per") == "sample" or count == self.samples
            if self._evaluated(count) or (value is None and not by_sample):
                return True  # evaluate()'s bar, or a count of unknown kind
            printed = None if value is None else (int(value), SCALE[end.group("u")])
            unit = _per_unit(count, int(end.group("t")), value is not None, printed)
        elif "s - loss:" in line and (quiet := _KERAS_QUIET.search(line)) is not None:
            if self.samples is None or self._evaluated(count := self.samples):
                return True
            by_sample = True
            unit = _per_unit(count, int(quiet.group("t")), bool(quiet.group("dash")))
        else:
            if "Train on " in line and (banner := _KERAS_SAMPLES.search(line)) is not None:
                self.samples, self.header = int(banner.group(1)), True  # a fit begins
            elif "Epoch" in line and _KERAS_EPOCH.search(line) is not None:
                self.header = True
            return False
        self.header, self.count = False, count
        if unit is not None and by_sample:
            samples.append(1.0 / unit)
            run.keep("samples", line, samples, len(samples) - 1)
        elif unit is not None:
            per_step.append(unit)
        return True

    def _evaluated(self, count: int) -> bool:
        """Whether an epoch line of ``count`` units is evaluate()'s: it follows another with no
        header between and counts something else (the test set). A fit of one epoch prints no
        header in tf.keras, so a loop of such fits gives bars of one count, each read."""
        return not self.header and self.count is not None and count != self.count


def _per_unit(
    count: int, seconds: int, rounded: bool, printed: tuple[int, float] | None = None
) -> float | None:
    """The time per counted unit of an epoch of ``count`` units that Keras says took
    ``seconds`` (rounded, or cut to whole seconds before Keras 2.1), ``printed`` as a whole
    number of a unit (and that unit in seconds): the middle of the times both allow, the
    printed one where they allow none in common, None where nothing says enough to time."""
    if count <= 0:
        return None
    low, high = (seconds - 0.5, seconds + 0.5) if rounded else (seconds, seconds + 1.0)
    low, high = max(low, 0.0) / count, high / count
    if printed is None:
        return (low + high) / 2 if low > 0 else None
    value, scale = printed
    printed_low, printed_high = (value - 0.5) * scale, (value + 0.5) * scale
    if printed_high < low or printed_low > high:
        return value * scale if value > 0 else None
    low, high = max(low, printed_low), min(high, printed_high)
    return (low + high) / 2 if high > 0 else None
