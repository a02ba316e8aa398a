"""The units people write experiment figures in: one spelling for each, and which way is
better.

Two questions are asked of a unit. Is this the unit an earlier A/B was told in
(``tokens/s``, ``tok/sec`` and ``Tokens per second`` are one: the repeat guard)? And is a
figure in it better higher or lower (a rate or a duration: the experiment's direction)? Both
read the unit through :func:`normal_unit`, so a spelling taught to one is taught to the other.
"""

from __future__ import annotations

import re

__all__ = ["figure_name", "normal_unit", "unit_direction"]

#: a unit's words in one spelling, the common long forms shortened
_SHORT = {
    "tokens": "tok", "token": "tok", "toks": "tok", "t": "tok",
    "second": "s", "seconds": "s", "sec": "s", "secs": "s",
    "minute": "min", "minutes": "min", "mins": "min",
    "hour": "h", "hours": "h", "hr": "h", "hrs": "h",
    "millisecond": "ms", "milliseconds": "ms", "msec": "ms",
    "microsecond": "us", "microseconds": "us", "µs": "us", "μs": "us",
    "nanosecond": "ns", "nanoseconds": "ns",
    "day": "d", "days": "d", "week": "wk", "weeks": "wk",
    "images": "img", "image": "img", "imgs": "img",
    "iterations": "it", "iteration": "it", "iters": "it", "iter": "it",
    "samples": "sample", "steps": "step", "requests": "req", "request": "req",
}  # fmt: skip

#: Units of time, in :func:`normal_unit`'s spelling: a figure in one of them (or per
#: something, ``s/step``) is better lower.
TIME_UNITS = frozenset({"ns", "us", "ms", "s", "min", "h", "d", "wk"})
#: Rates written without a ``/``: more of them is better.
RATE_UNITS = frozenset(
    {
        "fps", "flops", "gflops", "tflops", "pflops", "tops", "iops", "tps", "qps", "rps",
        "bps", "kbps", "mbps", "gbps", "tbps", "x", "×", "speedup",
    }
)  # fmt: skip
#: Words in a unit that name what it measures ("relative throughput", "p99 latency").
HIGHER_WORDS = ("throughput", "bandwidth", "speed", "rate", "score")
LOWER_WORDS = ("latency", "duration", "time", "elapsed")


def normal_unit(unit: object) -> str:
    """A unit in one spelling: case, enclosing brackets and spaces aside, " per " as ``/``, and each
    part between slashes in its short form (``Tokens per second`` → ``tok/s``)."""
    text = str(unit).strip()
    if len(text) > 1 and text[0] + text[-1] in ("()", "[]"):
        text = text[1:-1]  # "(Seconds)", "[tok/sec]"; not the bracket of "ms (p99)"
    text = " ".join(text.casefold().replace(" per ", "/").split())
    return "/".join(_SHORT.get(part.strip(), part.strip()) for part in text.split("/"))


def unit_direction(unit: str | None) -> bool | None:
    """Whether a figure in ``unit`` is better higher (True) or lower (False); None when the
    unit says neither (or there is none). ``tok/s`` is a rate, ``s/it`` a duration."""
    if unit is None:
        return None
    text = normal_unit(unit)
    if not text:
        return None
    if "/" in text:
        # "img/s per GPU" is img/s/gpu: what the first slash divides by decides
        above, below = text.split("/")[:2]
        if above in TIME_UNITS:
            return False  # time per step, per token, per iteration
        if below in TIME_UNITS:
            return True  # things per unit of time (per GPU, per user after it)
    if text in TIME_UNITS:
        return False
    if text in RATE_UNITS:
        return True
    words = re.findall(r"[a-z]+", text)
    higher = any(w.startswith(HIGHER_WORDS) for w in words)
    lower = any(w.startswith(LOWER_WORDS) for w in words)
    return higher if higher != lower else None


#: what a stated figure is called when nothing names it: by its unit's direction
_FIGURE_NAMES = {True: "throughput", False: "time", None: "figure"}


def figure_name(unit: str | None) -> str:
    """What figures a person states are called when no rule reads the change and no
    ``--metric`` names them: a rate is a throughput, a duration a time, anything else (or no
    unit) a figure. The name is a label; which way is better is the unit's (or asked)."""
    return _FIGURE_NAMES[unit_direction(unit)]
