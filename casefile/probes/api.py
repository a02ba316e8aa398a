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

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from casefile.domain.facts import ParseResult

Where = Literal["local", "ssh", "pasted", "sampler"]
CostClass = Literal["instant", "cheap", "moderate", "expensive"]

#: A sampler collects in-process (e.g. through NVML) for ``window_s`` seconds and returns the
#: raw text it gathered (JSON lines, say); that text is stored and parsed like any output.
Sampler = Callable[[float], str]


@dataclass(frozen=True)
class Probe:
    name: str
    summary: str
    parse: Callable[[str], ParseResult]
    argv: tuple[str, ...] = ()
    #: where it can run; a sampler-only probe (NVML) cannot be sent over SSH or pasted live
    where: frozenset[Where] = frozenset({"local", "ssh", "pasted"})
    cost: CostClass = "cheap"
    #: fact names this probe can produce (documentation for rule authors and `casefile plugins`;
    #: rules name the probes they read in their own ``probes`` list)
    facts: tuple[str, ...] = ()
    #: whether its readings mean something only under load (utilisation, throughput): rules
    #: that read them require ``under-load`` and set aside readings taken otherwise
    needs_load: bool = False
    sampler: Sampler | None = None
    #: how long a run may take before the runner gives up, unless the user says otherwise
    timeout_s: float = 60.0
    extra: dict[str, str] = field(default_factory=dict)

    def safe_parse(self, text: str) -> ParseResult:
        """Parse, turning any parser bug into an unparsed result instead of an exception.

        Facts that could not be stored (NaN, infinities, values that are not a number, string or
        boolean) are dropped with a problem each, so a parser bug can never cost the raw output.
        """
        try:
            result = self.parse(text)
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
