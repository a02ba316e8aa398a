"""Any command: keep its raw output, and optionally pull named values out with regexes.

Not every reading has a parser. The generic probe records a command's output as evidence
(parsed, with no facts) so that a responder can still cite it. ``make_command_probe`` builds
a probe whose facts come from regular expressions with *named groups*: each group name is a
fact name, each match a value (a number when it reads as one, else the text), so::

    make_command_probe(
        "numa-hit",
        ("numastat", "-n"),
        {r"numa_hit\\s+(?P<numa_hit>[0-9.]+)": "pages"},
    )

gives a fact ``numa_hit`` on ``host`` with unit "pages". A group named ``subject`` in the
same pattern sets the subject of the match's facts instead (e.g. ``(?P<subject>gpu\\d+)``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from casefile.domain.facts import FactValue, ParseResult
from casefile.probes.api import Probe

__all__ = ["PROBE", "make_command_probe", "parse_command", "regex_parser"]

_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def parse_command(text: str) -> ParseResult:
    """Any output is accepted as it is: parsed, with no facts (the raw output is the record)."""
    if not isinstance(text, str) or not text.strip():
        return ParseResult(problems=["the command printed nothing"])
    return ParseResult()


def _value(raw: str) -> FactValue:
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


def regex_parser(patterns: Mapping[str, str | None]) -> Callable[[str], ParseResult]:
    """A parser that turns named groups of ``patterns`` (regex → unit) into facts."""
    compiled: list[tuple[re.Pattern[str], str | None]] = []
    invalid: list[str] = []
    for pattern, unit in patterns.items():
        try:
            compiled.append((re.compile(pattern, re.MULTILINE), unit))
        except re.error as error:
            invalid.append(f"invalid pattern {pattern!r}: {error}")

    def parse(text: str) -> ParseResult:
        result = ParseResult(problems=list(invalid))
        for pattern, unit in compiled:
            for match in pattern.finditer(text):
                groups = match.groupdict()
                subject = (groups.pop("subject", None) or "host").strip() or "host"
                for name, raw in groups.items():
                    if raw is not None and raw.strip():
                        result.add(name, _value(raw), subject, unit)
        if compiled and not result.facts:
            result.problems.append("none of the patterns matched the output")
        return result

    return parse


def make_command_probe(
    name: str,
    argv: tuple[str, ...],
    patterns: Mapping[str, str | None] | None = None,
    *,
    summary: str | None = None,
    needs_load: bool = False,
) -> Probe:
    """A probe running ``argv``; with ``patterns``, named groups become facts (see above)."""
    parse = regex_parser(patterns) if patterns else parse_command
    facts = tuple(
        group
        for pattern in (patterns or {})
        for group in _group_names(pattern)
        if group != "subject"
    )
    return Probe(
        name=name,
        summary=summary or f"run {' '.join(argv)}",
        parse=parse,
        argv=argv,
        cost="cheap",
        facts=facts,
        needs_load=needs_load,
    )


def _group_names(pattern: str) -> list[str]:
    try:
        return list(re.compile(pattern).groupindex)
    except re.error:
        return []


PROBE = Probe(
    name="command",
    summary="Any command; its raw output is kept as evidence (no facts unless configured)",
    parse=parse_command,
    argv=(),
    cost="cheap",
    facts=(),
    needs_load=False,
)
