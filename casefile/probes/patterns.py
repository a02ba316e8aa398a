"""Facts pulled out of any output with regular expressions: ``--fact NAME=REGEX``.

Not every tool has a parser, and a responder often wants one number out of a run (tokens per
second from a benchmark's last line, a latency from a log). A :class:`FactPattern` names a fact
and the regex that finds it: the first capture group is the value (the whole match when the
regex has no group), a number when it reads as one, else the text. Every match is one fact on
``host``. :meth:`casefile.probes.api.Probe.with_facts` adds patterns to any probe; the
``command`` probe's ``make_command_probe`` uses the same reading of values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from casefile.domain.facts import SCALE_RANGES, FactValue, ParseResult, Scale, fits_scale

__all__ = ["FactPattern", "fact_pattern", "read_value"]

_SIGNED = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)\s?%")
#: how to capture a value on each scale, said where one is not kept
_CAPTURE_HINTS: dict[Scale, str] = {
    "fraction": "a share of 45 % is 0.45",
    "percentage": "90 % is 90, not 0.9; capture the sign with the figure, 0.5%, for half a percent",
}

_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
#: fact names as casefile writes them (nvidia-smi's ``--query-gpu`` style: ``power.draw``)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")


def read_value(raw: str) -> FactValue:
    """``raw`` as a fact value: an int when it is written as one, a float when it reads as a
    number, else the text (stripped)."""
    text = raw.strip()
    if _NUMBER.fullmatch(text):
        try:
            number = float(text)
        except ValueError:
            return text
        if number.is_integer() and re.fullmatch(r"[-+]?[0-9]+", text):
            return int(text)
        return number
    return text


@dataclass(frozen=True)
class FactPattern:
    """One fact to find in output: ``name`` and the compiled regex that finds its value."""

    name: str
    regex: re.Pattern[str]

    def add_to(self, result: ParseResult, text: str, scale: Scale | None = None) -> int:
        """Add a fact for every match in ``text``; returns how many matched. A value off the
        ``scale`` the probe gives the fact on is left out, with a problem: 45 pulled out of
        "45 %" for a fraction would read as forty-five times the whole, 0.9 for a percentage
        as a GPU idle below 1 %."""
        added = 0
        for match in self.regex.finditer(text):
            raw = match.group(1) if self.regex.groups else match.group(0)
            if raw is not None and raw.strip():
                added += 1
                value, unit = read_value(raw), None
                if scale is not None and _SIGNED.fullmatch(raw.strip()):
                    value, unit = read_value(raw.strip()[:-1]), "%"  # "90%": figure and sign
                if scale is not None and not fits_scale(value, unit, scale):
                    shown = repr(value) if unit is None else repr(raw.strip())  # its sign too
                    result.problems.append(
                        f"--fact {self.name}: {shown} is no {SCALE_RANGES[scale]} "
                        f"({_CAPTURE_HINTS[scale]}): not kept"
                    )
                    continue
                result.add(self.name, value, "host")
        return added


def fact_pattern(name: str, regex: str) -> FactPattern:
    """A :class:`FactPattern`; ``ValueError`` (a one-line message) for a name casefile cannot
    store or a regex that does not compile."""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"fact name {name!r}: start with a letter or '_', then letters, digits, '_', '.', "
            "':' or '-'"
        )
    try:
        compiled = re.compile(regex, re.MULTILINE)
    except re.error as error:
        raise ValueError(f"fact {name}: regex {regex!r} does not compile: {error}") from None
    if compiled.groups > 1:
        # one value per match: which of several groups would it be?
        raise ValueError(
            f"fact {name}: regex {regex!r} has {compiled.groups} groups; give at most one "
            "(its text is the value), using (?:…) for the others"
        )
    return FactPattern(name, compiled)
