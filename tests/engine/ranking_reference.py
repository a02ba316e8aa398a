"""The whole-probe ranking's plain arithmetic: a reference that the tests and
``benchmarks/bench_ranking.py`` run beside the shipped code.

``mutual_information_bits`` is the element-by-element loop over Σ p·q·log₂(q/m),
``joint_information_bits`` merges alike leaves (:func:`collapse`), builds every joint row with
nested comprehensions and remembers nothing. :func:`reference_ranking` swaps them into
``ranking`` for the length of a ``with`` block, so ``rank_probes`` and ``rank_next_steps``
compute the plain way. The shipped whole-probe figure is the same quantity computed as
H(O) − H(O | H): it agrees with this one to about 1e-15, not to the last bit, and the tests
compare it so (``test_ranking_fast_path.agree``); the probe/rule pairs are still this sum.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from casefile.domain.beliefs import joint, ranking
from casefile.domain.beliefs.arithmetic import tempered
from casefile.domain.rules import Rule


def table(paths: Sequence[Sequence[str]], rule: Rule) -> list[list[float]]:
    """P(outcome | leaf): each leaf's path walked up to the first node the rule names."""
    rows = []
    for outcome in rule.outcome_names:
        other = rule.otherwise[outcome]
        row = []
        for path in paths:
            value = other
            for node in path:
                if node in rule.likelihoods:
                    value = rule.likelihoods[node][outcome]
                    break
            row.append(tempered(value, other, rule.reliability))
        rows.append(row)
    return rows


def mutual_information_bits(prior: Sequence[float], table: Sequence[Sequence[float]]) -> float:
    total = 0.0
    terms: list[float] = []
    for row in table:
        if max(row) == min(row):
            continue
        marginal = math.fsum(p * q for p, q in zip(prior, row, strict=True))
        if marginal <= 0.0:
            continue
        terms.extend(
            p
            * q
            * (
                math.log2(q / marginal)
                if q / marginal > 0.0
                else math.log2(q) - math.log2(marginal)
            )
            for p, q in zip(prior, row, strict=True)
            if p * q > 0.0
        )
    total = math.fsum(terms)
    return max(0.0, total)


def collapse(
    probs: Sequence[float], tables: Sequence[Sequence[Sequence[float]]]
) -> tuple[list[float], list[list[list[float]]]]:
    """Leaves that every table treats alike, merged into one class with their summed prior."""
    classes: dict[tuple[float, ...], float] = {}
    for leaf, prob in enumerate(probs):
        key = tuple(row[leaf] for table in tables for row in table)
        classes[key] = classes.get(key, 0.0) + prob
    keys = list(classes)
    merged: list[list[list[float]]] = []
    offset = 0
    for table in tables:
        merged.append([[key[offset + o] for key in keys] for o in range(len(table))])
        offset += len(table)
    return [classes[key] for key in keys], merged


def joint_information_bits(
    probs: Sequence[float],
    tables: Sequence[Sequence[Sequence[float]]],
    budget: int = ranking.MAX_JOINT_WORK,
) -> float:
    if len(tables) == 1:
        return mutual_information_bits(probs, tables[0])
    prior, merged = collapse(probs, tables)
    singles = [mutual_information_bits(prior, table) for table in merged]
    order = sorted(range(len(merged)), key=lambda i: -singles[i])
    chosen: list[int] = []
    size = 1
    for index in order:
        grown = size * len(merged[index])
        if grown * len(prior) > budget:
            continue
        chosen.append(index)
        size = grown
    rows: list[list[float]] = [[1.0] * len(prior)]
    for index in sorted(chosen):
        table = merged[index]
        rows = [
            [a * b for a, b in zip(row, outcome, strict=True)] for row in rows for outcome in table
        ]
    return max(mutual_information_bits(prior, rows), max(singles))


@contextmanager
def reference_ranking() -> Iterator[None]:
    """``ranking`` computing with the functions above (and nothing remembered) inside."""
    saved = ranking.mutual_information_bits, ranking.joint_information_bits
    ranking.mutual_information_bits = mutual_information_bits
    ranking.joint_information_bits = joint_information_bits
    joint.forget()
    try:
        yield
    finally:
        ranking.mutual_information_bits, ranking.joint_information_bits = saved
        joint.forget()
