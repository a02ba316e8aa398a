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
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from casefile.domain.facts import ParseResult

if TYPE_CHECKING:
    from casefile.probes.patterns import FactPattern

Where = Literal["local", "ssh", "pasted", "sampler"]
CostClass = Literal["instant", "cheap", "moderate", "expensive"]

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
    #: because people paste a profiler table or a training log from whatever command ran it
    recognises: Callable[[str], bool] | None = None

    def __post_init__(self) -> None:
        # a plugin's mistake here would otherwise turn every match into a plain command run
        if not isinstance(self.covers, tuple) or not all(isinstance(c, str) for c in self.covers):
            raise TypeError(f"probe {self.name}: covers must be a tuple of probe names")
        if self.name in self.covers:
            raise ValueError(f"probe {self.name}: a probe cannot cover itself")

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
                if not sum(pattern.add_to(result, text) for text in texts):
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

    def safe_parse(self, text: str, run: RunOutput | None = None) -> ParseResult:
        """Parse, turning any parser bug into an unparsed result instead of an exception.

        With ``run`` (what a recorder has), a probe that reads whole runs reads it; every other
        probe parses ``text``. Facts that could not be stored (NaN, infinities, values that are
        not a number, string or boolean) are dropped with a problem each, so a parser bug can
        never cost the raw output.
        """
        try:
            if run is not None and self.parse_run is not None:
                result = self.parse_run(run)
            else:
                result = self.parse(text)
                if not result.parsed and run is not None:
                    result = self._with_command_line(text, run) or result
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
