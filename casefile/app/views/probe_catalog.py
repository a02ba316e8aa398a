"""The installed probes as a picker lists them: name, what it reads, what it costs and the
facts it gives, from the plugin registry (the probes' own declarations, never a copy)."""

from __future__ import annotations

from dataclasses import dataclass

from casefile.plugins import Registry
from casefile.probes.api import statable


@dataclass(frozen=True, slots=True)
class ProbeEntry:
    name: str
    summary: str
    cost: str
    #: fact names or ``fnmatch`` patterns it declares; empty where it declares none
    facts: tuple[str, ...]
    #: where it can run: a sampler-only probe runs on this machine and nowhere else
    where: tuple[str, ...]
    needs_load: bool
    #: facts only a person states for it (read off a timeline), and those that are fractions
    stated_facts: tuple[str, ...] = ()
    fractions: tuple[str, ...] = ()
    percentages: tuple[str, ...] = ()

    @property
    def statable(self) -> tuple[str, ...]:
        """What ``--stated`` may name for it, as for the probe itself (empty: any fact)."""
        return statable(self.facts, self.stated_facts)


def probe_catalog(registry: Registry) -> list[ProbeEntry]:
    """Every probe the registry can load, by name (a broken plugin is left out, as it is from
    every other list)."""
    return [
        ProbeEntry(
            name=name,
            summary=probe.summary,
            cost=probe.cost,
            facts=probe.facts,
            where=tuple(sorted(probe.where)),
            needs_load=probe.needs_load,
            stated_facts=probe.stated_facts,
            fractions=probe.fractions,
            percentages=probe.percentages,
        )
        for name, probe in sorted(registry.all_probes().items())
    ]


def facts_line(entry: ProbeEntry, width: int = 100) -> str:
    """The facts it gives on one line of at most ``width`` characters, the rest counted; the
    facts only a person states for it (``--stated``) are named first, since no list of what a
    run gives would show them."""
    if not entry.facts:
        return "facts: none declared (its output is kept as it is)"
    head = f"stated only: {', '.join(entry.stated_facts)}; " if entry.stated_facts else ""
    if len(head) + len("facts: … +999") > width and entry.stated_facts:
        head = f"stated only: {len(entry.stated_facts)}; "  # named in the probe's own docs
    shown: list[str] = []
    used = len(head) + len("facts: ")
    for index, fact in enumerate(entry.facts):
        rest = len(entry.facts) - index
        tail = len(f", … +{rest}")
        if used + len(fact) + 2 + (tail if rest > 1 else 0) > width and (shown or head):
            return f"{head}facts: {', '.join([*shown, f'… +{rest}'])}"
        shown.append(fact)
        used += len(fact) + 2
    return f"{head}facts: {', '.join(shown)}"
