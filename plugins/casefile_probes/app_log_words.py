"""fairseq's words (target tokens) per second, read for
:class:`~casefile_probes.app_log_rates.TokenRates` into ``tokens_per_s``.

fairseq prints ``wps=962`` on its progress lines, ``| wps 12876 |`` on its epoch summaries and
``| words/s    961 |`` on fairseq-py's (2017): target tokens a second summed over every worker,
the job's rate. A ``wps=0`` of the first intervals and a reading above 1e9, an overflowed meter,
are left out, and so are validation lines (forward-only speed, several times the training rate).
A ``wps`` is read only beside another of fairseq's meters: alone it could be anything's.

Which meter the number is depends on the version, and the lines show which:

- Up to 0.9 (2019), ``train.py`` started its words-per-second meter again only when an epoch
  began (after the epoch's first batch), so each reading within an epoch is the mean since the
  epoch began, and the summary the epoch's mean. These lines open with the progress bar's
  prefix ``| epoch 001`` (``| epoch 001:    450 / 1891 loss=…``, fairseq-py's ``| epoch 010
  2000 / 8223 loss=…``, the tqdm bar ``| epoch 001:   3%|…``, the summary ``| epoch 008 | loss
  … | wps 12876 |``). Their median leans to the epoch's first readings, and their rise or fall
  is the mean settling: the last reading is the run's rate, a
  :class:`~casefile_probes.app_log_trend.RunningMean`.
- From March 2020 (fairseq commit 244835d, "Reset mid-epoch stats every log-interval steps",
  released in 0.10) the meters within an epoch start again every log interval, and the lines
  come through Python's logging, the prefix after the logger's tag and without its pipe of its
  own: ``2020-07-17 07:11:02 | INFO | train_inner | epoch 001:   2800 / 160368 … wps=57.3``.
  Each reading is its interval's rate; their median is the run's. (In the week between the move
  to logging and that reset, 27 February to 3 March 2020, lines of the new shape still held
  running means; no release carried it.)

The old prefix is told from the new by the logger's tag: the new one follows it (``| INFO |
train_inner | epoch 001:``); the old stands alone, whatever came before it (a launcher's
``0: ``, a timestamp of ``docker logs -t``, or the text of a bar drawn before it, where a
terminal's redraws ran together in the paste: ``…, gnorm=0.406, clip=| epoch 014:   6%|…``).
On such a run-together line the last reading is the latest.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from .app_log_trend import RunningMean

__all__ = ["FairseqWords"]

#: a reading, in fairseq's three layouts; the exponent is what ``{:g}`` prints past a million
_E = r"(\d{1,12}(?:\.\d{1,12})?(?:e[+-]?\d{1,3})?)"
_WPS = re.compile(
    rf"(?<![\w])wps={_E}(?![\w.])|\|\s{{0,4}}(?:wps|words/s)\s{{1,8}}{_E}\s{{0,4}}(?:\||$)"
)
#: another of fairseq's meters on the same line: a ``wps`` alone could be anything's
_BESIDE = re.compile(r"(?<![\w])(?:wpb|ups|bsz|num_updates|gnorm|train_wall|loss)\b")
#: fairseq's validation lines: forward-only speed, several times the training rate
_VALID = re.compile(r"valid on '|\|\s{0,4}valid\s{0,4}\|")
#: no training job moves this many tokens a second: a fairseq meter that overflowed
_CEILING = 1e9
#: the prefix of fairseq up to 0.9, whose readings are means since the epoch began: "| epoch
#: NNN" anywhere (a launcher's prefix, "0: " of srun -l or a timestamp of docker logs, may
#: stand before it) but after the logger's tag of later versions (below)
_SINCE_EPOCH = re.compile(r"\|\s{0,4}epoch\s{1,4}\d{1,6}(?![\d.])")
#: the logger's tag fairseq 0.10 and later print before "| epoch": its readings are the
#: interval's ("| INFO | train_inner | epoch 001:")
_LOGGER_TAG = re.compile(r"\|\s{0,4}(?:train_inner|train|valid\w*)\s{0,4}\|\s{0,4}epoch\b")


def _since_epoch() -> RunningMean:
    return RunningMean(
        "fairseq's wps on '| epoch …' lines (up to 0.9)", "its epoch began", "tokens/s"
    )


@dataclass
class FairseqWords:
    """fairseq's readings: the means since an epoch began (``running``), how many interval
    readings went to the caller's token rates (``intervals``), and how many overflowed."""

    running: RunningMean = field(default_factory=_since_epoch)
    intervals: int = 0
    overflowed: int = 0

    def read(self, line: str, tokens: list[float]) -> bool:
        """Whether ``line`` is one of fairseq's lines with a ``wps``; its interval rate, if it
        gives one, is appended to ``tokens`` (a mean since the epoch began goes to
        :attr:`running` instead)."""
        if not ("wps" in line or "words/s" in line) or _BESIDE.search(line) is None:
            return False
        latest = deque(_WPS.finditer(line), maxlen=1)  # on a run-together line, the last
        if not latest:
            return False
        found = latest[0]
        if _VALID.search(line):
            return True
        rate = float(found.group(1) or found.group(2))
        if rate > _CEILING:
            self.overflowed += 1
        elif (
            rate > 0
            and "epoch" in line
            and _SINCE_EPOCH.search(line)
            and not _LOGGER_TAG.search(line)
        ):
            self.running.add(rate)
        elif rate > 0:
            self.intervals += 1
            tokens.append(rate)
        return True

    def problems(self) -> list[str]:
        """What was left out or read otherwise, for the result's problems."""
        problems = []
        if self.overflowed:
            problems.append(
                f"{self.overflowed} fairseq wps reading(s) above 1e9 tokens/s (an overflowed "
                "meter) left out of tokens_per_s"
            )
        if (word := self.running.word()) is not None:
            problems.append(word)
        return problems
