"""The units people write experiment figures in: one spelling for each, and which way is
better.

Two questions are asked of a unit. Is this the unit an earlier A/B was told in
(``tokens/s``, ``tok/sec`` and ``Tokens per second`` are one: the repeat guard)? And is a
figure in it better higher or lower (a rate or a duration: the experiment's direction)? Both
read the unit through :func:`normal_unit`, so a spelling taught to one is taught to the other.
A metric with no unit is asked the second question by its name (``step_time``,
``tokens_per_s``): :func:`name_direction`.
"""

from __future__ import annotations

import re

__all__ = [
    "figure_kind",
    "figure_name",
    "name_direction",
    "names_bandwidth",
    "normal_unit",
    "unit_direction",
]

#: a unit's words in one spelling, the common long forms shortened
_SHORT = {
    "tokens": "tok", "token": "tok", "toks": "tok", "t": "tok",
    "second": "s", "seconds": "s", "sec": "s", "secs": "s",
    "minute": "min", "minutes": "min", "mins": "min",
    "hour": "h", "hours": "h", "hr": "h", "hrs": "h",
    "millisecond": "ms", "milliseconds": "ms", "msec": "ms", "msecs": "ms",
    "microsecond": "us", "microseconds": "us", "µs": "us", "μs": "us", "usec": "us",
    "usecs": "us", "nanosecond": "ns", "nanoseconds": "ns", "nsec": "ns", "nsecs": "ns",
    "day": "d", "days": "d", "week": "wk", "weeks": "wk",
    "images": "img", "image": "img", "imgs": "img",
    "iterations": "it", "iteration": "it", "iters": "it", "iter": "it",
    "samples": "sample", "steps": "step", "requests": "req", "request": "req",
    "hertz": "hz",
}  # fmt: skip

#: Units of time, in :func:`normal_unit`'s spelling: a figure in one of them (or per
#: something, ``s/step``) is better lower.
TIME_UNITS = frozenset({"ns", "us", "ms", "s", "min", "h", "d", "wk"})
#: Rates written without a ``/``: more of them is better.
RATE_UNITS = frozenset(
    {
        "fps", "flops", "gflops", "tflops", "pflops", "tops", "iops", "tps", "qps", "rps",
        "bps", "kbps", "mbps", "gbps", "tbps", "x", "×", "speedup",
        "hz", "khz", "mhz", "ghz",
    }
)  # fmt: skip
#: Words in a unit that name what it measures ("relative throughput", "p99 latency").
HIGHER_WORDS = ("throughput", "bandwidth", "speed", "rate", "score")
LOWER_WORDS = ("latency", "duration", "time", "elapsed")
#: Words of a metric's name that say it is a duration (``step_time``, ``ttft_ms``) or a rate
#: (``h2d_gbps``, ``nccl.busbw.large``): whole words, so ``timestamp`` or ``rated`` say
#: nothing. Not "score": a score may be a loss.
_NAME_LOWER = frozenset(
    {
        "time", "times", "latency", "latencies", "lat", "duration", "elapsed", "runtime",
        "walltime", "wall", "ttft", "tpot", "itl", "e2el", "delay",
    }
)  # fmt: skip
_NAME_HIGHER = frozenset({"throughput", "bandwidth", "bw", "busbw", "algbw", "speed", "rate"})
#: the units of a bandwidth: bytes or bits per unit of time (``GB/s``, ``Gbit/s``, ``MiB/s``)
_DATA = re.compile(r"[kmgtpe]?i?(?:b|bytes?|bits?)")
#: a note in brackets after a unit ("ms (p99)", "tokens/s (decode)"): not what it measures
_NOTE = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
#: counts per unit of time that the playbooks' metrics name (``tokens_per_s``)
_COUNTED = {"tok": "tokens_per_s", "sample": "samples_per_s", "it": "it_per_s"}


def _word(word: str) -> str:
    """One word of a unit in its short form, a closing full stop aside (``sec.``)."""
    word = word.strip()
    bare = word.rstrip(".") or word
    return _SHORT.get(bare, bare)


def normal_unit(unit: object) -> str:
    """A unit in one spelling: case, enclosing brackets and spaces aside, " per " as ``/``, and each
    word between slashes in its short form (``Tokens per second`` → ``tok/s``, ``GPU hours``
    → ``gpu h``)."""
    text = str(unit).strip()
    if len(text) > 1 and text[0] + text[-1] in ("()", "[]"):
        text = text[1:-1]  # "(Seconds)", "[tok/sec]"; not the bracket of "ms (p99)"
    text = " ".join(text.casefold().replace(" per ", "/").split())
    return "/".join(
        " ".join("-".join(map(_word, word.split("-"))) for word in part.split())
        for part in text.split("/")
    )


def unit_direction(unit: str | None) -> bool | None:
    """Whether a figure in ``unit`` is better higher (True) or lower (False); None when the
    unit says neither (or there is none). ``tok/s`` is a rate, ``s/it`` a duration; a note
    in brackets after it ("ms (p99)") and a word naming what was timed ("TTFT ms", "GPU
    hours") leave it the unit it is."""
    if unit is None:
        return None
    text = normal_unit(unit)
    while _NOTE.search(text) and _NOTE.sub("", text):
        text = _NOTE.sub("", text)
    if not text:
        return None
    if "/" in text:
        # "img/s per GPU" is img/s/gpu: what the first slash divides by decides
        above, below = (part.split() for part in text.split("/")[:2])
        if above and above[-1] in TIME_UNITS:
            return False  # time per step, per token, per iteration
        if below and below[0] in TIME_UNITS:
            return True  # things per unit of time (per GPU, per user after it)
    words = text.replace("-", " ").split()
    timed = any(w in TIME_UNITS for w in words)
    rated = any(w in RATE_UNITS for w in words)
    if timed != rated:
        return rated  # "TTFT ms", "GPU h": a time; "decode tflops": a rate
    words = re.findall(r"[a-z]+", text)
    higher = any(w.startswith(HIGHER_WORDS) for w in words)
    lower = any(w.startswith(LOWER_WORDS) for w in words)
    return higher if higher != lower else None


#: a statistic's name after a dot, at a metric name's end
_STATISTIC = re.compile(r"(?i)\.(?:min|max|mean|avg|median|p[0-9]{1,2})$")
#: words of a price: lower is better, but no rate's "per" says so
_MONEY = frozenset({"cost", "costs", "price", "usd", "dollar", "dollars", "eur"})


def name_direction(name: str | None) -> bool | None:
    """Whether a metric named ``name`` is better higher, by what its name says; None when it
    says neither. A name says a duration (``step_time``, ``latency_p99``, ``ttft``, a
    trailing ``_s`` or ``_ms``) or a rate (``tokens_per_s``, ``throughput``, ``h2d_gbps``)
    as a unit would: what ``per`` divides decides where it is said."""
    if not name:
        return None
    # a statistic after a dot is no unit ("nvbandwidth….min" is a minimum, not minutes)
    name = _STATISTIC.sub("", name)
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).casefold().replace("/", "_per_")
    words = [_word(w) for w in re.findall(r"[a-z0-9µμ]+", spaced)]
    if any(w in _MONEY for w in words):
        return None  # cost_per_hour: a price, whatever it is per
    for at, word in enumerate(words):
        if word != "per":
            continue
        if at and words[at - 1] in TIME_UNITS:
            return False  # s_per_step, ms_per_token
        if at + 1 < len(words) and words[at + 1] in TIME_UNITS:
            return True  # tokens_per_s, it_per_sec, tokens_per_gpu_per_s
    lower = any(w in _NAME_LOWER for w in words) or (
        len(words) > 1 and words[-1] in TIME_UNITS and words[-2] not in _COUNTED
    )
    higher = any(w in _NAME_HIGHER or w in RATE_UNITS for w in words) or (
        len(words) > 1 and words[-1] == "s" and words[-2] in _COUNTED  # tokens_s
    )
    return higher if higher != lower else None


def names_bandwidth(name: str) -> bool:
    """Whether a metric's name says it is a bandwidth (``bandwidth.h2d``, ``h2d_gbps``,
    ``nccl.busbw.large``)."""
    words = re.findall(r"[a-z0-9]+", name.casefold())
    return any(w in ("bandwidth", "bw", "busbw", "algbw") or w.endswith("bps") for w in words)


def figure_kind(unit: str | None) -> str | None:
    """What a figure in ``unit`` is, as a metric is named: ``time`` for a duration, a
    ``bandwidth`` for bytes or bits per second, ``tokens_per_s`` (``samples_per_s``,
    ``it_per_s``) for those counted per second, else ``throughput`` for a rate; None where
    the unit says neither way."""
    way = unit_direction(unit)
    if way is None:
        return None
    if way is False:
        return "time"
    text = normal_unit(unit)
    above = text.split("/")[0].split()
    if any(w in ("bps", "kbps", "mbps", "gbps", "tbps") for w in text.split()) or (
        "/" in text and above and _DATA.fullmatch(above[-1])
    ):
        return "bandwidth"
    if "/" in text and above and above[-1] in _COUNTED:
        return _COUNTED[above[-1]]
    return "throughput"


#: what a stated figure is called when nothing names it: by its unit's direction
_FIGURE_NAMES = {True: "throughput", False: "time", None: "figure"}


def figure_name(unit: str | None) -> str:
    """What figures a person states are called when no rule reads the change and no
    ``--metric`` names them: a rate is a throughput, a duration a time, anything else (or no
    unit) a figure. The name is a label; which way is better is the unit's (or asked)."""
    return _FIGURE_NAMES[unit_direction(unit)]
