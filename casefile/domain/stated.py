"""Readings a person states: facts told in words, recorded as a probe's reading nobody ran.

Threads and handovers are full of readings without their output: "GPU e3:00.0 sat at Gen2
x16", "both cards run at x8", "the read kernel gets 231 GB/s". Kept as a note, such a reading
is read by no rule, so the one fact that decided an investigation moves nothing. Stated as the
facts a probe would have given (``pcie.link.gen.current[e3:00.0]=2``), it is read by the same
rules as a measured reading, but as *reported* evidence, with a reported reading's lower
reliability: a person's account is weaker than the output itself, and the case says which it had.

A statement is written one fact a line, ``NAME[SUBJECT]=VALUE [UNIT]``; that text is what the
probe run stores as its output, so the record shows exactly what was stated.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Collection, Iterable, Sequence

from casefile.domain.facts import (
    SCALE_RANGES,
    Fact,
    FactValue,
    ParseResult,
    Scale,
    fits_scale,
)
from casefile.domain.rules import (
    CLOCK_SHARE_BUSY,
    DERIVED_FROM,
    HOST_COPY_SHARE,
    LINK_GENERATIONS_BEHIND,
    Rule,
)
from casefile.errors import DomainError

#: the source a stated reading's probe run records: nothing ran, a person said it
SOURCE = "stated"

# NAME, then an optional [SUBJECT]; names are dotted words as the parsers give them
_KEY = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)(?:\[(?P<subject>[^\[\]=]+)\])?")
# a number, then an optional unit after it ("231 GB/s", "8GB/s", "2.5")
_NUMBER = re.compile(r"(?P<number>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(?P<unit>\S.*)?")
# "Active" / "Not Active" are how nvidia-smi -q prints a clock reason: stated as printed, a
# reason is the flag it names, not text no rule can read
_TRUE = frozenset({"true", "yes", "active"})
_FALSE = frozenset({"false", "no", "not active"})
#: the longest value a statement holds: a reading, not a paste
MAX_VALUE = 200
#: the longest subject: a GPU, a bus id, a pair
MAX_SUBJECT = 64
# digits grouped by thousands, as prose writes them ("1,365 MHz", "12,500 tokens/s")
_GROUPED = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?=\s|$)")


def stated_fact(key: str, value: str) -> Fact:
    """One stated fact from ``NAME[SUBJECT]`` and its value, typed as a parser would give it:
    a number (with the unit written after it), ``true``/``false`` (or yes/no), else text.
    Refused with a one-line reason when the key or the value cannot be a fact."""
    match = _KEY.fullmatch(key.strip())
    if match is None:
        raise DomainError(
            f"stated {key!r}: write NAME=VALUE or NAME[SUBJECT]=VALUE "
            "(e.g. pcie.link.gen.current[gpu0]=2)"
        )
    text = value.strip()
    if not text:
        raise DomainError(f"stated {key.strip()}: the value is empty")
    if len(text) > MAX_VALUE or not text.isprintable():
        raise DomainError(f"stated {key.strip()}: the value is one short line of printable text")
    subject = (match["subject"] or "host").strip() or "host"
    if len(subject) > MAX_SUBJECT or not subject.isprintable():
        raise DomainError(
            f"stated {match['name']}: the subject is one short line of printable text "
            f"(at most {MAX_SUBJECT} characters)"
        )
    typed, unit = _typed(text)
    if unit is not None and not unit[0].isalpha() and unit[0] not in "%°µ/":
        raise DomainError(f"stated {match['name']}: {text!r} is not a number and its unit")
    return Fact(name=match["name"], value=typed, subject=subject, unit=unit)


def _typed(text: str) -> tuple[FactValue, str | None]:
    lowered = " ".join(text.lower().split())
    if lowered in _TRUE or lowered in _FALSE:
        return lowered in _TRUE, None
    grouped = _GROUPED.match(text)
    if grouped is not None:  # the separators go; the number is the digits
        text = grouped[0].replace(",", "") + text[grouped.end() :]
    number = _NUMBER.fullmatch(text)
    if number is None:
        return text, None
    digits = number["number"]
    value: FactValue = float(digits) if any(c in digits for c in ".eE") else int(digits)
    if isinstance(value, float) and not math.isfinite(value):
        return text, None
    return value, (number["unit"] or None)


def statement(stated: Iterable[tuple[str, str]]) -> str:
    """The text a stated reading stores as its output: one ``KEY=VALUE`` a line, as given."""
    return "".join(f"{key.strip()}={value.strip()}\n" for key, value in stated)


def read_statement(text: str) -> ParseResult:
    """The facts of a statement (:func:`statement`'s text): the stated reading's parser."""
    result = ParseResult()
    for line in text.splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep:
            result.problems.append(f"not a stated fact: {line!r}")
            continue
        try:
            result.facts.append(stated_fact(key, value))
        except DomainError as error:
            result.problems.append(str(error))
    result.parsed = bool(result.facts)
    return result


#: how to state a value on each scale, said where a statement is refused
_STATING_HINTS: dict[Scale, str] = {
    "fraction": ", without a unit (write 0.32 for 32 %)",
    "percentage": " (write 90 for 90 %, and 0.5 % with its sign for half a percent)",
}


def check_statement(
    probe: str,
    declared: Sequence[str],
    stated: Iterable[tuple[str, str]],
    fractions: Collection[str] = (),
    percentages: Collection[str] = (),
) -> None:
    """Refuse, before anything is recorded, a statement that is empty, that states a fact
    twice, that names a fact the probe does not give (when the probe declares its facts): a
    reading the probe could not have given would be read by rules meant for another; or that
    states one of the probe's ``fractions`` as anything but a number from 0 to 1: "32 %" or 32
    would pass every band of a rule comparing fractions (0.4, 0.75), so a GPU busy a third of
    the time would read as busy all of it; or that states one of its ``percentages`` as a
    fraction ("0.9" for 90 %), which would read as a GPU idle below 1 %."""
    seen: set[tuple[str, str]] = set()
    for key, value in stated:
        fact = stated_fact(key, value)
        if (fact.name, fact.subject) in seen:
            raise DomainError(f"stated {fact.name} for {fact.subject} twice: state it once")
        seen.add((fact.name, fact.subject))
        if declared and not any(fnmatch.fnmatchcase(fact.name, p) for p in declared):
            parts = _derived_from(fact.name) if fact.name in DERIVED_FROM else ""
            derived = f" (derived: state {parts})" if parts and parts != fact.name else ""
            raise DomainError(
                f"probe {probe} gives no fact {fact.name!r}{derived}; it gives: "
                f"{', '.join(declared)}"
            )
        scale: Scale | None = (
            "fraction"
            if fact.name in fractions
            else "percentage"
            if fact.name in percentages
            else None
        )
        if scale is not None and not fits_scale(fact.value, fact.unit, scale):
            raise DomainError(
                f"stated {fact.name}: a {SCALE_RANGES[scale]}{_STATING_HINTS[scale]}, "
                f"not {value.strip()!r}"
            )
    if not seen:
        raise DomainError("a stated reading needs at least one NAME=VALUE")


def still_needs(rule: Rule, stated: Sequence[Fact], readable: Sequence[Fact]) -> list[str]:
    """What a rule that reads a stated fact, but could not read the statement, still needs:
    ``["power-headroom also needs power.limit"]``; empty when it reads none of them (a
    statement of one fact is no reading for the rules that read others). Pooled facts need
    one of them; a derived fact is read from what it is derived from, so a statement of one
    of those (a link's current generation) names the others it still needs (its maximum)."""
    names = {fact.name for fact in stated}
    if not names & _inputs(rule.reads):
        return []
    have = {fact.name for fact in readable} | names
    missing: list[str] = []
    if rule.statistic.aggregate == "active":  # none set is a reading only where all were read
        missing = [name for name in rule.statistic.facts if name not in have]
    elif not have & set(rule.statistic.facts):
        wanted = [_derived_from(n, have) for n in rule.statistic.facts]
        if all(wanted):  # a derived fact whose parts are all here wants what the case knows
            missing.append(" or ".join(wanted))
    per = rule.statistic.per
    if per is not None and per not in have and _derived_from(per, have):
        missing.append(_derived_from(per, have))
    missing = list(dict.fromkeys(missing))  # a fact and its ``per`` may want the same parts
    return [f"{rule.id} also needs {' and '.join(missing)}"] if missing else []


#: derived facts a rule reads alone whose parts one reading states (a link's generation and its
#: maximum; a clock, its maximum and the utilisation; a profile's memory-operation share and
#: the host copies' share of it): a statement of some parts names the rest. Others need the
#: case's context (a table's row, the ports' rate), which
#: :func:`casefile.app.recording.case_needs` names, or are pooled from many rows.
_STATED_IN_PARTS = frozenset({LINK_GENERATIONS_BEHIND, CLOCK_SHARE_BUSY, HOST_COPY_SHARE})


def _inputs(reads: Iterable[str]) -> set[str]:
    """The facts a rule reads, and the parts of those it reads through one reading's parts."""
    out = set(reads)
    for name in out & _STATED_IN_PARTS:
        out.update(n for group in DERIVED_FROM[name] for n in group)
    return out


def _derived_from(name: str, have: Collection[str] = ()) -> str:
    """A fact as a person can state it: ``pcie.link.capacity`` is a generation and a width;
    the parts already ``have`` are not asked for again. Empty where every part is here: what
    such a fact still wants is the case's (a GPU's row in a table, the ports' rate), which the
    case's own account of its needs says (:func:`casefile.app.recording.case_needs`)."""
    groups = DERIVED_FROM.get(name)
    if groups is None:
        return name
    wanted = [group for group in groups if not set(group) & set(have)]
    return " and ".join(" or ".join(group) for group in wanted)
