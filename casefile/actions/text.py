"""From what a person typed to an action's values: one set of rules for every front end.

The CLI hands over its arguments as given (a repeated flag as a list), a form its fields'
text (a multi-line field split into lines); both get the same values and the same words when
something is wrong. A :class:`InputProblem` names the option in the action's words; each front
end adds its own (the CLI the flag, a form the field).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from casefile.actions.spec import ActionSpec, Option
from casefile.errors import CasefileError

#: the probability kinds and which ends each allows: a likelihood may be 1, a reliability 0 or
#: 1, a prior neither (certainty is what no evidence can move)
_ENDS = {"prior": (False, False), "likelihood": (False, True), "reliability": (True, True)}
_YES, _NO = ("yes", "y", "true", "on"), ("no", "n", "false", "off", "")

#: what a front end hands over for one option: text, several texts, or a flag's presence
Given = str | Sequence[str] | bool | None


class InputProblem(CasefileError, ValueError):
    """Input an action cannot take: which option, and what is wrong with it."""

    def __init__(self, option: Option, message: str) -> None:
        super().__init__(message)
        self.option = option


def parse(spec: ActionSpec, given: Mapping[str, Given | bytes]) -> Any:
    """The action ``spec`` describes, from the text given for its options."""
    values = {option.name: value_of(option, given.get(option.name)) for option in spec.options}
    return spec.build(values)


def value_of(option: Option, raw: Given | bytes) -> Any:
    """One option's value; absent or blank text takes the option's default."""
    if isinstance(raw, bytes):
        if option.from_file:
            return raw  # read from a file or stdin: kept as given, undecodable bytes too
        raise InputProblem(option, f"the {_noun(option)} is text, not bytes")
    if option.kind == "switch":
        return _switch(option, raw)
    if option.kind == "words":
        return _words(option, raw)
    if option.kind in ("lines", "table", "pairs"):
        items = _items(option, raw)
        if not items:
            if option.required:
                raise InputProblem(option, option.missing or f"give at least one {_noun(option)}")
            return option.default
        if option.kind == "lines":
            return tuple(items)
        return _table(option, items) if option.kind == "table" else _pairs(option, items)
    text = _text(raw)
    if option.kind == "note":
        if not (text or "").strip():
            if option.required:
                raise InputProblem(option, option.missing or f"the {_noun(option)} is empty")
            return option.default
        if option.from_file:
            return text  # output as it was pasted, to the last newline
        return (text or "").rstrip("\n")
    text = (text or "").strip()
    if not text:
        if option.required:
            raise InputProblem(option, option.missing or f"the {_noun(option)} is empty")
        return option.default
    if option.kind in _ENDS:
        return probability(option, text, *_ENDS[option.kind])
    if option.kind == "seq":
        return seq(option, text)
    if option.kind == "seconds":
        return seconds(option, text)
    if option.kind == "id" and len(text.split()) > 1:
        raise InputProblem(option, f"{text!r}: give one {_noun(option)}")
    if option.kind == "choice" and text not in option.choices:
        raise InputProblem(
            option, f"{_noun(option)} {text!r} is not one of {', '.join(option.choices)}"
        )
    return text


def probability(option: Option, text: str, low: bool, high: bool, what: str = "") -> float:
    what = what or f"the {_noun(option)}"
    try:
        value = float(text)
    except ValueError:
        raise InputProblem(option, f"{what}: {text!r} is not a number") from None
    above = value >= 0.0 if low else value > 0.0
    below = value <= 1.0 if high else value < 1.0
    if not math.isfinite(value) or not (above and below):
        ends = f"{'[' if low else '('}0, 1{']' if high else ')'}"
        raise InputProblem(option, f"{what} must be within {ends}, not {text}")
    return value


def seq(option: Option, text: str) -> int:
    """An event seq (``12`` or ``#12``); whether the case holds one is the case's to say."""
    digits = text.removeprefix("#")
    if not (digits.isascii() and digits.isdigit()):
        raise InputProblem(option, f"{_noun(option)}: {text!r} is not an event seq (1, 2, 3 …)")
    if int(digits) < 1:
        raise InputProblem(option, f"{_noun(option)}: {text!r}: event seqs start at 1")
    return int(digits)


def seconds(option: Option, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputProblem(option, f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise InputProblem(option, f"{text!r}: give a finite number of seconds above 0")
    return value


def _words(option: Option, raw: Given) -> tuple[str, ...]:
    """A command line's words: a list as given, or one line split as a shell would."""
    if raw is None or isinstance(raw, bool):
        return tuple(option.default or ())
    if not isinstance(raw, str):
        return tuple(str(word) for word in raw)
    try:
        return tuple(shlex.split(raw))
    except ValueError as error:
        raise InputProblem(option, f"the {_noun(option)} does not split: {error}") from None


def _noun(option: Option) -> str:
    return option.noun or option.name.replace("_", " ")


def _text(raw: Given) -> str | None:
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, str):
        return raw
    return "\n".join(raw)


def _items(option: Option, raw: Given) -> list[str]:
    if raw is None or isinstance(raw, bool):
        return []
    lines = raw.splitlines() if isinstance(raw, str) else list(raw)
    if option.kind == "table" and isinstance(raw, str):  # a form takes commas too
        lines = [part for item in lines for part in item.split(",")]
    return [item.strip() for item in lines if item.strip()]


def _switch(option: Option, raw: Given) -> bool:
    if raw is None:
        return bool(option.default)
    if isinstance(raw, bool):
        return raw
    text = _text(raw) or ""
    if text.strip().lower() in _YES:
        return True
    if text.strip().lower() in _NO:
        return False
    raise InputProblem(option, f"{_noun(option)}: yes or no")


def _table(option: Option, items: list[str]) -> dict[str, float]:
    table: dict[str, float] = {}
    for item in items:
        hid, sep, number = item.partition("=")
        hid = hid.strip()
        if not sep or not hid:
            raise InputProblem(option, f"{item!r}: write each likelihood as HYPOTHESIS=P")
        if hid in table:
            raise InputProblem(option, f"the likelihood of {hid!r} is given twice")
        table[hid] = probability(option, number.strip(), False, True, f"P(E | {hid})")
    return table


def _pairs(option: Option, items: list[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputProblem(option, f"{item!r}: write each as KEY=VALUE")
        if key.strip() in pairs:  # one would silently replace the other
            raise InputProblem(option, f"{key.strip()!r} is given twice: give it once")
        pairs[key.strip()] = value.strip()
    return pairs
