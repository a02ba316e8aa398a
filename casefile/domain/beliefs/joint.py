"""The information in the joint outcome of one run's rules, and what it costs per belief state.

A probe's worth is the mutual information between the hypothesis and the joint outcome of the
rules one run feeds (see ``ranking.joint_information_bits``), the rules' outcomes independent
given the hypothesis: P(o₁…oₖ | h) = Πᵣ tᵣ[oᵣ][h]. Written as I = H(O) − H(O | H):

* H(O | H) factors over the rules: Σₒ q log q of a product is Σᵣ (Σ tᵣ log tᵣ)·Πᵣ'≠ᵣ (Σ tᵣ')
  for each class, a few dozen terms per class;
* H(O) needs the marginal of every joint outcome, mₒ = Σₕ pₕ Πᵣ tᵣ[oᵣ][h], and one ``log2``
  each. The marginals are built a rule at a time, and after each rule the classes that the
  rules still to come treat alike are summed into one (their remaining factors are the same),
  so the last rules multiply a handful of sums, not every class.

This is the same quantity as the per-term sum Σₒ Σₕ pₕ·q·log₂(q / mₒ), computed in another
order: the figures agree to about 10⁻¹⁵ bits (each formula rounds its own terms), and like
every float of the engine they are the same on every run and machine: only ``*``, ``+``, ``/``,
``math.log2`` and ``math.fsum``, in an order fixed by the inputs. That order is what a replay's
figures depend on to the last bit, so work on speed keeps it:
``tests/engine/test_joint_same_floats.py`` writes it out plainly and compares every bit.

The module also remembers a probe's figure for the belief it was computed on, so that showing
the same fold again (``status`` twice, the TUI redrawing its Next steps tab, a replay landing on
a step whose belief has not moved) does not compute it again."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from functools import wraps
from itertools import chain
from operator import getitem, itemgetter, mul, neg
from typing import Protocol

#: How many figures are remembered; past it the memo starts again. One belief state of a
#: large playbook fills a few hundred (every probe and every probe/rule pair, each whole and
#: about the leaders); a whole probe's key holds its tables, about 10 KB with eight rules
MEMO_LIMIT = 1 << 11

Tables = Sequence[Sequence[Sequence[float]]]
#: one rule's likelihoods under one class: P(outcome | class) for each of its outcomes
Column = tuple[float, ...]


class JointBits(Protocol):
    """The shape of ``ranking.joint_information_bits``."""

    def __call__(self, probs: Sequence[float], tables: Tables, budget: int = ...) -> float: ...


def probe_information_bits(probs: Sequence[float], tables: Tables, budget: int) -> float:
    """The information in the joint outcome of two or more rules' ``tables`` (see
    ``ranking.joint_information_bits``): exact while the joint outcomes × hypothesis classes
    stay within ``budget``, past it the most informative rules that fit (a lower bound), and
    never less than the best single rule.

    Leaves alike under every table are one class (their outcomes depend on the leaf only
    through its columns) and the budget counts those classes. Each rule's own information
    orders the rules for the budget; it is computed here like the joint figure."""
    rules, by_leaf = _columns(len(probs), tables)
    classes: dict[tuple[int, ...], float] = {}
    for prob, key in zip(probs, zip(*by_leaf, strict=True), strict=True):
        classes[key] = classes.get(key, 0.0) + prob
    if not classes:  # no leaf: nothing to tell apart
        return 0.0
    weights = list(classes.values())
    singles = _single_bits(weights, list(zip(*classes, strict=True)), rules)
    chosen: list[int] = []
    size = 1
    # the most informative first, ties in the tables' order (kept by a stable sort reversed)
    for index in sorted(range(len(tables)), key=singles.__getitem__, reverse=True):
        grown = size * len(tables[index])
        if grown * len(weights) > budget:
            continue
        chosen.append(index)
        size = grown
    if len(chosen) < 2:  # one rule is what its own figure says
        return max(singles)
    chosen.sort()
    project = itemgetter(*chosen)
    together = _information(weights, list(map(project, classes)), list(project(rules)))
    return max(together, *singles)


def product_information_bits(prior: Sequence[float], tables: Tables) -> float:
    """I(H; O) in bits, O the joint outcome of ``tables`` (``table[o][h]`` = P(o | class h)),
    the tables independent given the class, every table enumerated.

    A ``prior`` that does not sum to 1 is taken as its total times a distribution: the figure
    is that total times the information under the distribution (as the per-term sum is, on
    every outcome that some class tells apart)."""
    rules, by_leaf = _columns(len(prior), tables)
    return _information(prior, list(zip(*by_leaf, strict=True)), rules)


def _columns(width: int, tables: Tables) -> tuple[list[list[Column]], list[list[int]]]:
    """Each table's distinct columns (in the order of the first leaf holding each), and for
    each table which of them each leaf holds."""
    rules: list[list[Column]] = []
    by_leaf: list[list[int]] = []
    for table in tables:
        if any(len(row) != width for row in table):
            raise ValueError("a likelihood row and the prior differ in length")
        seen: dict[Column, int] = {}
        by_leaf.append([seen.setdefault(column, len(seen)) for column in zip(*table, strict=True)])
        rules.append(list(seen))
    return rules, by_leaf


def _single_bits(
    weights: Sequence[float], ids: Sequence[Sequence[int]], rules: Sequence[Sequence[Column]]
) -> list[float]:
    """Each rule's own information, H(O) − H(O | H), over the classes ``weights`` holding its
    columns ``ids`` (for each rule, each class's index into its columns ``rules``)."""
    total = math.fsum(weights)
    log2, fsum = math.log2, math.fsum
    bits: list[float] = []
    for of_rule, columns in zip(ids, rules, strict=True):
        held = [0.0] * len(columns)
        for weight, index in zip(weights, of_rule, strict=True):
            held[index] += weight
        shares: list[float] = []
        used: list[Column] = []
        for weight, column in zip(held, columns, strict=True):
            if weight > 0.0:
                shares.append(weight / total)
                used.append(column)
        if len(shares) < 2:  # every class holds the same column: the outcome tells nothing
            bits.append(0.0)
            continue
        terms = [
            share * (t * log2(t))
            for share, column in zip(shares, used, strict=True)
            for t in column
            if t > 0.0
        ]
        for row in zip(*used, strict=True):
            marginal = fsum(map(mul, shares, row))
            if marginal > 0.0:
                terms.append(-(marginal * log2(marginal)))
        bits.append(max(0.0, total * fsum(terms)))
    return bits


def _information(
    weights: Sequence[float], keys: Sequence[tuple[int, ...]], rules: Sequence[Sequence[Column]]
) -> float:
    """I(H; O) over classes ``weights`` holding columns ``keys`` (for each rule, an index into
    its columns ``rules``): H(O) − H(O | H), scaled from the distribution to the weights'
    total. Classes alike under these rules are summed first; one without mass adds nothing."""
    total = math.fsum(weights)
    if not rules or not total > 0.0:
        return 0.0
    classes: dict[tuple[int, ...], float] = {}
    for weight, key in zip(weights, keys, strict=True):
        if weight > 0.0:
            classes[key] = classes.get(key, 0.0) + weight / total
    if len(classes) < 2:  # every outcome is as likely under every class: nothing to tell
        return 0.0
    merged = list(classes)
    shares = list(classes.values())
    # −H(O) and −H(O | H): the information is the second less the first
    log2 = math.log2
    outcomes = [m * log2(m) for m in _marginals(shares, merged, rules) if m > 0.0]
    conditional = map(neg, _conditional_terms(shares, merged, rules))
    return max(0.0, -total * math.fsum(chain(outcomes, conditional)))


def _conditional_terms(
    weights: Sequence[float], keys: Sequence[tuple[int, ...]], rules: Sequence[Sequence[Column]]
) -> list[float]:
    """The terms of −H(O | H) = Σₕ pₕ Σₒ q log₂ q, q the product of the rules' values:
    Σₒ q log₂ q = Σᵣ (Σₒ tᵣ log₂ tᵣ) · Πᵣ'≠ᵣ (Σₒ tᵣ'), so for each rule and each of its
    columns, the weight of the classes holding it (pₕ · Πᵣ'≠ᵣ Σ tᵣ') times each t log₂ t
    (t = 0 adds nothing). A rule's outcomes sum to about 1 under each class; the sums are
    kept for tables whose do not."""
    log2, fsum, prod = math.log2, math.fsum, math.prod
    sums = [[fsum(column) for column in columns] for columns in rules]
    held = [[0.0] * len(columns) for columns in rules]
    for weight, key in zip(weights, keys, strict=True):
        totals = list(map(getitem, sums, key))  # the class's Σ t under each rule
        whole = prod(totals)
        if whole == 0.0:
            continue  # a class under which no joint outcome can happen: no terms
        for of_rule, i, own in zip(held, key, totals, strict=True):
            of_rule[i] += weight * (whole / own)
    return [
        weight * (t * log2(t))
        for columns, of_rule in zip(rules, held, strict=True)
        for column, weight in zip(columns, of_rule, strict=True)
        if weight
        for t in column
        if t > 0.0
    ]


#: one step of the marginals: a rule's columns, and for each group of classes alike under it
#: and the rules after it (in the order the groups first appear among the classes), which
#: column of the rule the group holds and which group of the next step it is summed into
_Step = tuple[Sequence[Column], list[tuple[int, int]]]


def _steps(keys: Sequence[tuple[int, ...]], rules: Sequence[Sequence[Column]]) -> list[_Step]:
    """The order the marginals take the rules in, and the groups of each step (see
    :data:`_Step`), built from the last rule back: the groups before a rule are the distinct
    pairs (column of that rule, group after it), numbered as they first appear among the
    classes. That numbering is the order :func:`_marginals` sums a group's members in, so it
    is part of every figure's last bits (``tests/engine/test_joint_same_floats.py``).

    The rules that tell the most classes apart come first, so the last rules, which meet the
    most joint outcomes, meet a handful of groups."""
    ids = list(zip(*keys, strict=True))  # for each rule, each class's column
    told = [len(set(of_rule)) for of_rule in ids]
    order = sorted(range(len(rules)), key=lambda r: (-told[r], len(rules[r][0]), r))
    steps: list[_Step] = []
    label = [0] * len(keys)  # each class's group among those alike under the rules after
    for rule in reversed(order[1:]):
        numbers: dict[tuple[int, int], int] = {}  # numbered as first met
        pairs = zip(ids[rule], label, strict=True)
        label = [numbers.setdefault(pair, len(numbers)) for pair in pairs]
        steps.append((rules[rule], list(numbers)))
    # before the first rule every class is a group of its own (the caller merged alike ones)
    steps.append((rules[order[0]], list(zip(ids[order[0]], label, strict=True))))
    steps.reverse()
    return steps


def _marginals(
    weights: Sequence[float], keys: Sequence[tuple[int, ...]], rules: Sequence[Sequence[Column]]
) -> list[float]:
    """mₒ = Σₕ pₕ Πᵣ tᵣ[oᵣ][h] for every joint outcome, built a rule at a time (the order
    and groups of :func:`_steps`).

    Before each rule the state is, for every group of classes alike under that rule and the
    ones after it, the list over the joint outcomes of the rules before it of Σ pₕ Πᵣ tᵣ[oᵣ][h]
    over the group's classes (at first, each class alone with its weight). The rule
    multiplies each group by its value of each outcome and sums the groups that the rules
    after it no longer tell apart, in the order they first appear among the classes; after
    the last rule one group is left, holding the marginals."""
    steps = _steps(keys, rules)
    values: list[list[float]] = [[weight] for weight in weights]
    for (columns, groups), following in zip(steps, [*steps[1:], None], strict=True):
        # each group of this step, with its column of the rule, in the group it joins
        members: list[list[tuple[Column, list[float]]]] = [
            [] for _ in (following[1] if following else (None,))
        ]
        for (column, into), xs in zip(groups, values, strict=True):
            members[into].append((columns[column], xs))
        values = [
            [a * x for a in parts[0][0] for x in parts[0][1]]  # one group: no sum
            if len(parts) == 1
            else _weighted_sum(parts)
            for parts in members
        ]
    (marginals,) = values
    return marginals


def _weighted_sum(parts: Sequence[tuple[Column, list[float]]]) -> list[float]:
    """For each outcome of a rule (outer) and each joint outcome so far (inner), Σ cᵢ·xᵢ over
    the groups ``(column c, list x)`` summed into one, left to right: each group's values
    times its likelihood of the outcome.

    This is the inner loop of the whole ranking, so the sums of up to five groups are
    written out (one comprehension, no list in between); more are summed five at a time."""
    count = len(parts)
    if count == 1:
        ((ca, xs),) = parts
        return [a * x for a in ca for x in xs]
    if count > 5:
        head = _weighted_sum(parts[:5])
        tail = _weighted_sum(parts[5:])
        return [u + v for u, v in zip(head, tail, strict=True)]
    columns = list(zip(*(column for column, _ in parts), strict=True))
    values = list(zip(*(xs for _, xs in parts), strict=True))
    if count == 2:
        return [a * x + b * y for a, b in columns for x, y in values]
    if count == 3:
        return [a * x + b * y + c * z for a, b, c in columns for x, y, z in values]
    if count == 4:
        return [a * x + b * y + c * z + d * w for a, b, c, d in columns for x, y, z, w in values]
    return [
        a * x + b * y + c * z + d * w + e * v
        for a, b, c, d, e in columns
        for x, y, z, w, v in values
    ]


def _key(probs: Sequence[float], tables: Tables, budget: int | None) -> tuple[object, ...]:
    return (budget, tuple(probs), tuple(tuple(map(tuple, table)) for table in tables))


_MEMO: dict[tuple[object, ...], float] = {}
_MEMO_LOCK = threading.Lock()


def memoised(compute: JointBits) -> JointBits:
    """``compute`` remembered by the exact numbers it reads (the belief, every table, the
    budget): a figure is reused only for the very same inputs, so it is the same float."""

    @wraps(compute)
    def remembered(probs: Sequence[float], tables: Tables, budget: int | None = None) -> float:
        key = _key(probs, tables, budget)
        found = _MEMO.get(key)
        if found is not None:
            return found
        value = compute(probs, tables) if budget is None else compute(probs, tables, budget)
        with _MEMO_LOCK:
            if len(_MEMO) >= MEMO_LIMIT:
                _MEMO.clear()
            _MEMO[key] = value
        return value

    return remembered


def forget() -> None:
    """Drop every remembered figure (benchmarks time the cold computation with it)."""
    with _MEMO_LOCK:
        _MEMO.clear()
