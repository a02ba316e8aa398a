"""The plugin contract for probes.

A probe says *what* to collect and *how to read it*; it never says where it runs (that is a
runner's job) and never imports paramiko. A plugin module exposes a :class:`Probe` object and
registers it in the ``casefile.probes`` entry-point group::

    [project.entry-points."casefile.probes"]
    nvidia-smi-topo = "casefile_probes.topo:PROBE"

``parse`` is a pure function from raw text to a :class:`~casefile.domain.facts.ParseResult`;
it must never raise on bad input (the fuzz tests hold every built-in to that).
"""

from __future__ import annotations

import dataclasses
import math
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from casefile.domain.environment import MACHINE_ENVIRONMENT
from casefile.domain.environment import values as environment_values
from casefile.domain.facts import ParseResult, Scale

if TYPE_CHECKING:
    from casefile.probes.patterns import FactPattern

Where = Literal["local", "ssh", "pasted", "sampler"]


def statable(facts: Sequence[str], stated_facts: Sequence[str]) -> tuple[str, ...]:
    """What ``--stated`` may name for a probe: the facts a run gives and those only a person
    states; empty (any fact) where it declares none, as a third-party probe may not."""
    return (*facts, *stated_facts) if facts else ()


#: What running a probe takes, the one scale its ``cost`` is read on (next steps weigh what a
#: step tells by it, as an A/B's cost is weighed by what making its change takes):
#: ``instant``, a query of the machine's state that needs no workload (nvidia-smi, lspci, the
#: topology); ``cheap``, reading what the job prints or sampling it while it runs, or rerunning
#: it with one variable set (its log, dmon, py-spy, ``NCCL_DEBUG=INFO``); ``moderate``, a
#: profiled run or a benchmark tool's own run of minutes (the PyTorch profiler, nsys,
#: bandwidthTest, the P2P test, nccl-tests, nvbandwidth); ``expensive``, hours, or the machine
#: taken from its users (a soak test, a burn-in).
CostClass = Literal["instant", "cheap", "moderate", "expensive"]

# Line ends of every convention, kept (a paste's CRLF stays CRLF for the parser to read).
_LINE_END = re.compile(r"(\r\n?|\n)")
# A Markdown code fence (``` or ~~~, at least three), with an optional info word (```text).
# Possessive throughout: a long line of tildes that is not a fence fails in one pass.
_FENCE = re.compile(r"(?:`{3,}+|~{3,}+)[ \t]*+(?:[^`~\s][^`\s]*+)?[ \t\r]*+")
# Markdown escapes a quote's converter may have put in (as the parsers' clean_paste undoes).
_QUOTED_ESCAPE = re.compile(r"\\([#*_|\[\]])")
# What a line's decoration is made of: indentation and blockquote markers.
_DECORATION = " \t>"

#: A sampler collects in-process (e.g. through NVML) for ``window_s`` seconds and returns the
#: raw text it gathered (JSON lines, say); that text is stored and parsed like any output.
Sampler = Callable[[float], str]


@dataclass(frozen=True, slots=True)
class RunOutput:
    """Everything a run gave, for a probe whose facts need more than its stdout (the generic
    ``command`` probe: how long the command took, how it exited, what went to stderr)."""

    argv: tuple[str, ...]
    stdout: str
    stderr: str = ""
    exit_status: int | None = None
    #: None where nobody timed it (pasted output)
    duration_s: float | None = None
    source: str = "local"


#: ``--env`` keys under which a case states the software it runs (``software=vLLM 0.4.2``)
SOFTWARE_ENVIRONMENT = ("software", "framework", "application", "app")


@dataclass(frozen=True)
class Probe:
    name: str
    summary: str
    parse: Callable[[str], ParseResult]
    argv: tuple[str, ...] = ()
    #: where it can run; a sampler-only probe (NVML) cannot be sent over SSH or pasted live
    where: frozenset[Where] = frozenset({"local", "ssh", "pasted"})
    cost: CostClass = "cheap"
    #: fact names (or ``fnmatch`` patterns, e.g. ``"pci.acs.*"``) this probe can produce: for
    #: rule authors and `casefile plugins`, and for the ranking, which credits a probe only with
    #: the rules (named in their own ``probes`` list) whose facts it can give. Empty: not
    #: declared, so taken to feed any rule that names it (third-party probes keep working).
    facts: tuple[str, ...] = ()
    #: facts a person may state for this probe (``--stated``) that no run of it gives: a
    #: profiler's summaries sum kernel time, but the share of the step it fills is read off
    #: the timeline by eye. Never credited to the probe in the ranking, which would offer a
    #: run for a rule the run cannot feed.
    stated_facts: tuple[str, ...] = ()
    #: facts among both that are fractions from 0 to 1 (``train.data_share``): a statement of
    #: one in percent ("32 %") or above 1 is refused, since a rule comparing fractions would
    #: read 32 as thirty-two times the whole
    fractions: tuple[str, ...] = ()
    #: facts it gives in percent, 0 to 100 (``utilization.gpu``): a statement of one as a
    #: fraction ("0.9" for 90 %) is refused, since it would read as a GPU idle below 1 %
    percentages: tuple[str, ...] = ()
    #: whether its readings mean something only under load (utilisation, throughput): rules
    #: that read them require ``under-load`` and set aside readings taken otherwise
    needs_load: bool = False
    sampler: Sampler | None = None
    #: how long a run may take before the runner gives up, unless the user says otherwise
    timeout_s: float = 60.0
    extra: dict[str, str] = field(default_factory=dict)
    #: reads the whole run instead of ``parse`` when the recorder has one (see RunOutput)
    parse_run: Callable[[RunOutput], ParseResult] | None = None
    #: probes whose output this one's parser reads in full from the same command (nccl-tests
    #: reads the NCCL_DEBUG log nccl-debug reads, and its table besides): given a command line
    #: both could have read, ``casefile ingest`` and ``record`` record it as this probe
    covers: tuple[str, ...] = ()
    #: whether a text looks like this probe's output (cheap, never raises): a paste recorded
    #: under ``command`` or under another probe is offered to every probe that recognises it,
    #: because people paste a profiler table or a training log from whatever command ran it.
    #: It is given the paste without its Markdown (:func:`unwrap_paste`).
    recognises: Callable[[str], bool] | None = None
    #: the software this probe's tool belongs to, as a pattern over what the case states it
    #: runs (``--env software=…``; see :data:`SOFTWARE_ENVIRONMENT`): ``ollama ps`` is worth
    #: suggesting only to an Ollama user. Empty: any software.
    only_for: str = ""
    #: software this probe's tool cannot look inside (a PyTorch profiler on llama.cpp, py-spy
    #: on a C++ server): not suggested where the case states such software. Empty: none.
    not_for: str = ""
    #: the hardware this probe's tool exists on, as a pattern over what the case states its
    #: GPUs and platform are (see :data:`MACHINE_ENVIRONMENT`): ``tegrastats`` runs only on a
    #: Jetson. Unlike software, a case that states no such hardware is not offered the probe,
    #: since the tool is missing on every other machine. Empty: any hardware.
    only_on: str = ""
    #: hardware whose machines lack this probe's tool or leave its readings empty, as a
    #: pattern like :attr:`only_on` (nvidia-smi on a Jetson before Thor: absent, or ``N/A`` in
    #: every field): not offered where the case states such hardware. Empty: none.
    not_on: str = ""
    #: whether next steps offer it: a reader of what people paste whose reading speaks one
    #: way only (a PyTorch environment report says a build cannot use the GPU, never that the
    #: job does) would be ranked on outcomes it cannot give. It still reads every run.
    offered: bool = True

    def __post_init__(self) -> None:
        # a plugin's mistake here would otherwise turn every match into a plain command run
        if not isinstance(self.covers, tuple) or not all(isinstance(c, str) for c in self.covers):
            raise TypeError(f"probe {self.name}: covers must be a tuple of probe names")
        if self.name in self.covers:
            raise ValueError(f"probe {self.name}: a probe cannot cover itself")
        for pattern in (self.only_for, self.not_for, self.only_on, self.not_on):
            re.compile(pattern)  # a plugin's bad pattern fails when it loads, not mid-ranking
        # a list of names is taken as the tuple it means; one name alone is refused, since
        # ``in`` would test its letters
        for field_name in ("facts", "stated_facts", "fractions", "percentages"):
            names = getattr(self, field_name)
            if isinstance(names, str):
                raise TypeError(f"probe {self.name}: {field_name} is a tuple of names, not one")
            object.__setattr__(self, field_name, tuple(names))
        both = set(self.fractions) & set(self.percentages)
        if both:
            raise ValueError(f"probe {self.name}: {sorted(both)[0]} is a fraction and a percentage")

    def suits(self, environment: Mapping[str, str]) -> bool:
        """Whether this probe's tool exists on the machine the case states and can read the
        software it states: the machine names what :attr:`only_on` asks (if anything) and
        nothing :attr:`not_on` excludes; the software names what :attr:`only_for` asks and
        nothing :attr:`not_for` excludes, and a case that states no software passes that half.
        A run recorded under a probe not offered is still read."""
        if self.only_on or self.not_on:
            machine = " ".join(environment_values(environment, MACHINE_ENVIRONMENT))
            if self.only_on and not re.search(self.only_on, machine, re.IGNORECASE):
                return False
            if self.not_on and re.search(self.not_on, machine, re.IGNORECASE):
                return False
        stated = " ".join(environment_values(environment, SOFTWARE_ENVIRONMENT))
        if not stated.strip():
            return True
        if self.only_for and not re.search(self.only_for, stated, re.IGNORECASE):
            return False
        return not (self.not_for and re.search(self.not_for, stated, re.IGNORECASE))

    @property
    def statable(self) -> tuple[str, ...]:
        """What ``--stated`` may name for it (:func:`statable`)."""
        return statable(self.facts, self.stated_facts)

    def scale_of(self, name: str) -> Scale | None:
        """The scale this probe gives ``name`` on, where it declares one."""
        if name in self.fractions:
            return "fraction"
        return "percentage" if name in self.percentages else None

    def with_facts(self, patterns: Sequence[FactPattern]) -> Probe:
        """This probe, also pulling ``patterns`` out of the output (stdout, then stderr).

        A run where a pattern matched taught what was asked of it, so it counts as parsed even
        if the probe's own parser found nothing; a pattern that matched nothing says so.
        """
        if not patterns:
            return self
        inner_text, inner_run = self.parse, self.parse_run

        def add(result: ParseResult, *texts: str) -> ParseResult:
            for pattern in patterns:
                scale = self.scale_of(pattern.name)
                if not sum(pattern.add_to(result, text, scale) for text in texts):
                    result.problems.append(f"--fact {pattern.name}: no match in the output")
                elif not result.parsed:
                    result.parsed = True
            return result

        def parse(text: str) -> ParseResult:
            return add(inner_text(text), text)

        def parse_run(run: RunOutput) -> ParseResult:
            base = inner_run(run) if inner_run is not None else inner_text(run.stdout)
            return add(base, run.stdout, run.stderr)

        names = tuple(p.name for p in patterns if p.name not in self.facts)
        return dataclasses.replace(
            self, parse=parse, parse_run=parse_run, facts=(*self.facts, *names)
        )

    def _with_command_line(self, text: str, run: RunOutput) -> ParseResult | None:
        """Pasted output that did not parse on its own, read again after a ``$ COMMAND``
        prompt line naming the command the user said produced it (``-- ARGV``, with a shell's
        quoting): a parser that names columns from the command line (``--query-gpu=…`` with
        ``noheader``) can then read a paste holding only the output. None if that does not
        parse either, or there is no such command to give. Output that parsed alone is kept
        as it was read: the command line only helps where the output alone could not."""
        if run.source != "pasted" or len(run.argv) < 2:
            return None
        retried = self.parse(f"$ {shlex.join(run.argv)}\n{text}")
        return retried if isinstance(retried, ParseResult) and retried.parsed else None

    def _read(self, text: str, run: RunOutput | None) -> ParseResult:
        """The parser's reading of ``text``: the whole run with ``text`` for its stdout for a
        probe that reads runs, else the text, retried with the run's command line."""
        if run is not None and self.parse_run is not None:
            if text is not run.stdout:
                run = dataclasses.replace(run, stdout=text)
            return self.parse_run(run)
        result = self.parse(text)
        if isinstance(result, ParseResult) and not result.parsed and run is not None:
            result = self._with_command_line(text, run) or result
        return result

    def safe_parse(self, text: str, run: RunOutput | None = None) -> ParseResult:
        """Parse, turning any parser bug into an unparsed result instead of an exception.

        With ``run`` (what a recorder has), a probe that reads whole runs reads it; every other
        probe parses ``text``. Facts that could not be stored (NaN, infinities, values that are
        not a number, string or boolean) are dropped with a problem each, so a parser bug can
        never cost the raw output.

        The parser reads the output (``text``, or the run's stdout) as it was before a
        paste wrapped it in Markdown, so that an indented, quoted or fenced paste reads as the
        plain one does (:func:`readings`). Only what the parser is given changes: the stored
        output never does.
        """
        whole = run is not None and self.parse_run is not None
        try:
            given = run.stdout if whole and run is not None else text
            texts = readings(given)
            result = self._read(texts[0], run)
            if len(texts) > 1:
                results = [result, *(self._read(other, run) for other in texts[1:])]
                result = max(results, key=_taught)  # the first of the best
                as_given = results[-1]
                if _same_facts(as_given, result):
                    result = as_given  # the parser's own problems with the text as given
        except Exception as error:  # a parser bug must never lose the output
            return ParseResult.unparsed(
                f"parser {self.name} failed: {type(error).__name__}: {error}"
            )
        if not isinstance(result, ParseResult):
            return ParseResult.unparsed(f"parser {self.name} returned {type(result).__name__}")
        kept = []
        for fact in result.facts:
            value = fact.value
            storable = isinstance(value, str | bool | int) or (
                isinstance(value, float) and math.isfinite(value)
            )
            if storable and isinstance(fact.name, str) and isinstance(fact.subject, str):
                kept.append(fact)
            else:
                result.problems.append(
                    f"dropped fact {fact.name!r} for {fact.subject!r}: {value!r} cannot be stored"
                )
        if len(kept) != len(result.facts):
            result.facts = kept
            result.parsed = result.parsed and bool(kept)
        return result


def _same_facts(one: ParseResult, other: ParseResult) -> bool:
    """Whether two readings taught the same (a parser that returned no result taught none)."""
    if not isinstance(one, ParseResult) or not isinstance(other, ParseResult):
        return False
    return one.parsed == other.parsed and one.facts == other.facts


def _taught(result: ParseResult) -> tuple[bool, int]:
    """How much a reading taught: whether it parsed, then how many facts."""
    if not isinstance(result, ParseResult):
        return (False, -1)
    return (result.parsed, len(result.facts))


def unwrap_paste(text: str) -> str:
    """``text`` without the Markdown a paste may have wrapped it in: fence lines, a quote
    prefix and the indentation every non-blank line shares (see :func:`unquote_paste` and
    :func:`dedent_paste`)."""
    return dedent_paste(unquote_paste(text))


def readings(text: str) -> list[str]:
    """The texts a parser is to read for ``text``, the most unwrapped first.

    Fences and quote markers always go (no tool starts every line with ``>``). Indentation
    shared by every line may be Markdown's (a code block's four spaces or tab) or the
    output's own (a fragment of ``nvidia-smi -q`` starts four spaces in, one of ``lspci -vv``
    a tab in), and nothing in the text tells which: then the text without any of it, without
    one level of it, and with all of it (the text as given, last) are all read, and the
    reading that taught most is kept; of equals, the first, unless the text as given taught
    exactly the same facts. One text when no indentation is shared.
    """
    unquoted = unquote_paste(text)
    dedented = dedent_paste(unquoted)
    if dedented is unquoted:
        return [unquoted]
    level = dedent_paste(unquoted, one_level=True)
    return [dedented, *([level] if level != dedented else []), unquoted]


def unquote_paste(text: str) -> str:
    """``text`` without a Markdown fence or blockquote around it.

    People paste output from Markdown notes and issue threads, as a fenced block (```` ``` ````
    or ``~~~`` lines around it) or a quote (``> ``, nested ``> > ``). A fence line first or
    last is dropped, and the quote markers every non-blank line starts with are taken off (with
    one blank after the last), nothing else: what follows them is the output's own. A line of
    quote markers alone is the quote's blank line. A quote's Markdown escapes (``\\#``) are
    undone too, as the parsers' own cleaning does for a quote it finds. Linear in the length of
    the text; the text itself when there is nothing to take off.
    """
    if not text:
        return text
    lines, ends = _split_lines(text)
    significant = [i for i, line in enumerate(lines) if line.strip(_DECORATION)]
    if not significant:
        return text
    ends_at = (significant[0], significant[-1])
    fences = {i for i in ends_at if _FENCE.fullmatch(lines[i].lstrip(_DECORATION))}
    prefix = _shared_start(lines, [i for i in significant if i not in fences], _DECORATION)
    marker = prefix.rfind(">")
    if marker < 0:
        prefix = ""
    elif prefix[marker + 1 : marker + 2] in (" ", "\t"):
        prefix = prefix[: marker + 2]
    else:
        prefix = prefix[: marker + 1]
    if not prefix and not fences:
        return text
    return _rejoin(lines, ends, prefix, fences, unescape=bool(prefix))


def dedent_paste(text: str, *, one_level: bool = False) -> str:
    """``text`` without the indentation every non-blank line starts with (a Markdown code
    block's four spaces or tab), or only one level of it (a tab, or up to four spaces) with
    ``one_level``. Indentation within the output survives: only what *all* lines share goes.
    Linear in the length of the text; the text itself when no indentation is shared."""
    if not text:
        return text
    lines, ends = _split_lines(text)
    prefix = _shared_start(lines, [i for i, line in enumerate(lines) if line.strip(" \t")], " \t")
    if one_level and prefix:
        prefix = "\t" if prefix[0] == "\t" else prefix[: len(prefix) - len(prefix.lstrip(" "))][:4]
    if not prefix:
        return text
    return _rejoin(lines, ends, prefix, set(), unescape=False)


def _split_lines(text: str) -> tuple[list[str], list[str]]:
    """The lines of ``text`` and, for each, the line end that followed it ("" for the last)."""
    parts = _LINE_END.split(text)
    return parts[0::2], [*parts[1::2], ""]


def _shared_start(lines: list[str], indexes: list[int], chars: str) -> str:
    """The longest run of ``chars`` that every line of ``indexes`` starts with. Each line
    costs at most its own length (the run only shrinks), so the whole is linear."""
    if not indexes:
        return ""
    first = lines[indexes[0]]
    prefix = first[: len(first) - len(first.lstrip(chars))]
    for index in indexes[1:]:
        if not prefix:
            break
        prefix = _common_start(prefix, lines[index])
    return prefix


def _common_start(prefix: str, line: str) -> str:
    """The longest start of ``prefix`` that ``line`` starts with too."""
    n = 0
    for a, b in zip(prefix, line, strict=False):
        if a != b:
            break
        n += 1
    return prefix[:n]


def _rejoin(
    lines: list[str], ends: list[str], prefix: str, dropped: set[int], *, unescape: bool
) -> str:
    """The lines again, less ``dropped`` ones and as much of ``prefix`` as each starts with."""
    out: list[str] = []
    for index, (line, end) in enumerate(zip(lines, ends, strict=True)):
        if index in dropped:
            continue
        line = line[len(_common_start(prefix, line)) :]
        if unescape:
            line = _QUOTED_ESCAPE.sub(r"\1", line)
        out.append(line + end)
    return "".join(out)
