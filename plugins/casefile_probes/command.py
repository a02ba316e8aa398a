"""Any command: keep its raw output, how long it took and how it exited; pull values out with
regexes where asked.

Not every reading has a parser. The generic probe records a command's output as evidence, with
two facts about the run itself — ``command.exit_status`` and ``command.duration`` (seconds;
none for pasted output, which nobody timed) — so that a responder can cite it, and a run that
printed nothing on stdout says where its output went ("nothing on stdout (3,847 bytes on
stderr)"). From the command line, ``casefile probe CASE command --fact NAME=REGEX -- CMD …``
pulls more facts out of any output (see :mod:`casefile.probes.patterns`).

``make_command_probe`` builds a probe whose facts come from regular expressions with *named
groups*: each group name is a fact name, each match a value (a number when it reads as one,
else the text), so::

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
import shlex
from collections.abc import Callable, Mapping

from casefile.domain.facts import FactValue, ParseResult
from casefile.probes.api import Probe, RunOutput
from casefile.probes.patterns import read_value

__all__ = ["PROBE", "make_command_probe", "parse_command", "parse_command_run", "regex_parser"]


def parse_command(text: str) -> ParseResult:
    """Any output is accepted as it is: parsed, with no facts (the raw output is the record)."""
    if not isinstance(text, str) or not text.strip():
        return ParseResult(problems=["the command printed nothing"])
    return ParseResult()


def _bytes(count: int) -> str:
    return f"{count:,} byte{'s' if count != 1 else ''}"


def parse_command_run(run: RunOutput) -> ParseResult:
    """The run's exit status and duration as facts; its stdout, if any, kept as it is.

    A run with nothing on stdout says how much went to stderr instead (where a tool's error,
    or a tool that reports on stderr, put it): the run still taught how it exited.
    """
    result = parse_command(run.stdout)
    if result.problems:
        stderr = len(run.stderr.encode("utf-8", errors="surrogateescape"))
        result.problems = [
            f"nothing on stdout ({_bytes(stderr)} on stderr)"
            if stderr
            else "nothing on stdout or stderr"
        ]
    if run.exit_status is not None:
        result.add("command.exit_status", run.exit_status)
    if run.duration_s is not None:
        result.add("command.duration", round(run.duration_s, 6), unit="s")
    return result


def _value(raw: str) -> FactValue:
    return read_value(raw)


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
        summary=summary or f"run {shlex.join(argv)}",
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
    summary="Any command; its raw output is kept as evidence, with its exit status and duration "
    "(--fact NAME=REGEX pulls out more)",
    parse=parse_command,
    parse_run=parse_command_run,
    argv=(),
    cost="cheap",
    facts=(),  # command.exit_status and command.duration are about the run, not its output
    needs_load=False,
)
