"""The rules a case's evidence has read: by rule id, the last active evidence that read it.

What a warm ``status`` asks most of a long case's evidence: which rules have been read (an
experiment or intake question whose rule was read is not offered again) and which intake
answer is in force (the last active evidence its rule wrote). It is kept in the fold's
indexes and updated as evidence is folded: only new evidence is read (evidence is only ever
added, and only new evidence supersedes old), and a rule is read again in full only when its
last evidence was superseded. A fold restored from a snapshot starts it from the saved
evidence columns (``fold_evidence``), so a warm status never walks the evidence for it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection

#: the key of :class:`RulesRead` in ``Projection.indexes``
INDEX = "rules-read"


@dataclass
class RulesRead:
    """The last active evidence (id, outcome) of each rule read, over the first ``count``
    pieces of evidence."""

    count: int = 0
    by_rule: dict[str, tuple[str, str]] = field(default_factory=dict)


def rules_read(projection: Projection) -> dict[str, tuple[str, str]]:
    """Rule id → (evidence id, outcome) of the last active evidence that read the rule."""
    index: RulesRead = projection.indexes.setdefault(INDEX, RulesRead())
    evidence = projection.evidence
    new = len(evidence) - index.count
    if new <= 0:
        return index.by_rule
    # the newest, back to those already read (a dict iterates in reverse at no cost)
    for state in reversed(list(islice(reversed(evidence.values()), new))):
        rule = state.rule
        rule_id = rule.get("id") if rule is not None else None
        if isinstance(rule_id, str) and state.active:
            index.by_rule[rule_id] = (state.id, str(state.outcome))
    for rid, (eid, _) in list(index.by_rule.items()):
        if not evidence[eid].active:  # superseded since: the last answer still in force
            found = None
            for state in evidence.values():
                rule = state.rule
                if state.active and rule is not None and rule.get("id") == rid:
                    found = (state.id, str(state.outcome))
            if found is None:
                del index.by_rule[rid]
            else:
                index.by_rule[rid] = found
    index.count = len(evidence)
    return index.by_rule


def rules_read_at(projection: Projection, seq: int | None = None) -> Collection[str]:
    """The rules read right after event ``seq`` (``None`` or the last seq: now): by evidence
    folded by then and not yet superseded then, as :func:`rules_read` keeps them for now. A
    replay or a report asks it at a past step to offer what was still open there (an A/B run
    later was still to run), never what the case came to read afterwards."""
    if seq is None or seq >= projection.last_seq:
        return rules_read(projection).keys()
    evidence = projection.evidence
    read: set[str] = set()
    for state in evidence.values():
        if state.seq > seq:
            break  # folded in order
        newer = state.superseded_by
        if newer is not None and evidence[newer].seq <= seq:
            continue
        rule = state.rule
        rule_id = rule.get("id") if rule is not None else None
        if isinstance(rule_id, str):
            read.add(rule_id)
    return read
