"""The joint outcomes of one run's rules, and what ranking them costs per belief state.

A probe's worth is the information in the joint outcome of the rules one run feeds (see
``ranking.joint_information_bits``). This module holds the steps that dominate that work:
enumerating the joint outcomes' likelihood rows and scoring them (for all rows at once, not a
Python step per row), and remembering a probe's figure for the belief it was computed on, so
that showing the same fold again (``status`` twice, the TUI redrawing its Next steps tab, a
replay landing on a step whose belief has not moved) does not enumerate again. Both give
exactly the floats of the plain computation: every product is multiplied in the same order,
every term is the same float, the terms are summed by ``fsum`` (exactly rounded, so the order
of the rows does not matter), and a remembered figure is keyed by every number it read."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from functools import wraps
from itertools import chain, compress, cycle
from operator import mul, ne, truediv
from typing import Protocol

from casefile.domain.beliefs.arithmetic import mutual_information_bits

#: How many figures are remembered; past it the memo starts again. One belief state of a
#: large playbook fills a few hundred (every probe and every probe/rule pair, each whole and
#: about the leaders); a whole probe's key holds its tables, about 10 KB with eight rules
MEMO_LIMIT = 1 << 11

Tables = Sequence[Sequence[Sequence[float]]]


class JointBits(Protocol):
    """The shape of ``ranking.joint_information_bits``."""

    def __call__(self, probs: Sequence[float], tables: Tables, budget: int = ...) -> float: ...


def product_rows(width: int, tables: Tables) -> list[list[float]]:
    """P(joint outcome | class) for every joint outcome of ``tables``, the first table's
    outcome varying slowest: each row is the running product of its outcomes' rows, multiplied
    left to right in table order (``((1·a)·b)·c``), so every value is the same float however
    the rows are then visited."""
    rows = [[1.0] * width]
    for table in tables:
        rows = [list(map(mul, row, outcome)) for row in rows for outcome in table]
    return rows


def _flat_product(width: int, tables: Tables) -> list[float]:
    """The rows of :func:`product_rows` laid end to end in one list, each the same products
    in the same order, but the rows themselves in another order (the last table's outcome
    varying slowest), which is what lets one ``map`` per outcome build them: the information
    sums over rows, so it does not depend on their order."""
    flat = [1.0] * width
    for table in tables:
        if any(len(outcome) != width for outcome in table):
            raise ValueError("a likelihood row and the prior differ in length")
        grown: list[float] = []
        for outcome in table:
            grown.extend(map(mul, flat, cycle(outcome)))
        flat = grown
    return flat


def _rows_of(flat: list[float], width: int) -> Iterable[tuple[float, ...]]:
    """The rows of a flat product, ``width`` values each."""
    return zip(*[iter(flat)] * width, strict=True)


def _all_positive(prior: Sequence[float], tables: Tables) -> bool:
    """Whether every ``p·q`` of the joint rows is above zero, from the smallest value of each
    table: rounding to nearest is monotonic, so no product is below the same chain of
    smallest values, multiplied in the same order."""
    lowest = 1.0
    for table in tables:
        lowest *= min(map(min, table))
    return min(prior) * lowest > 0.0


def product_information_bits(prior: Sequence[float], tables: Tables) -> float:
    """``mutual_information_bits(prior, product_rows(len(prior), tables))``, the same float.

    The joint outcomes of a probe's rules number in the thousands with a few dozen classes
    each, so the per-row steps of ``mutual_information_bits`` are done here for all rows at
    once, a class at a time: every term is the same ``(p·q)·log2(q / marginal)`` and ``fsum``
    sums the same terms (in another order, which an exactly rounded sum does not see). A
    belief or table with a zero where a term would be, or a product that underflows to one,
    takes the row-by-row path, which leaves those terms out."""
    width = len(prior)
    if not tables or width < 2:  # one class: every outcome is alike under it
        return mutual_information_bits(prior, product_rows(width, tables))
    flat = _flat_product(width, tables)
    if not flat or not _all_positive(prior, tables):
        return mutual_information_bits(prior, product_rows(width, tables))
    weighted = list(map(mul, cycle(prior), flat))
    marginals = list(map(math.fsum, _rows_of(weighted, width)))
    # an outcome equally likely under every class tells nothing: no terms (see arithmetic);
    # only a row whose first two values are equal can be one
    informative = list(map(ne, flat[::width], flat[1::width]))
    if not all(informative):
        rows = list(_rows_of(flat, width))
        informative = list(map(ne, map(max, rows), map(min, rows)))
    everywhere = all(informative)
    columns = []
    for leaf in range(width):
        q = flat[leaf::width]
        terms = map(mul, weighted[leaf::width], map(math.log2, map(truediv, q, marginals)))
        columns.append(terms if everywhere else compress(terms, informative))
    return max(0.0, math.fsum(chain.from_iterable(columns)))


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
