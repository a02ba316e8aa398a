"""Exact, order-independent Bayesian arithmetic.

Log-likelihoods are quantised to integers (units of 2⁻⁴⁰ nats) before they are added, so a
hypothesis's score is an exact integer sum: the same set of evidence gives the same score
whatever order it arrived in, and replay gives the same confidences to the last digit. The
quantum (≈ 9·10⁻¹³ nats) is far below any meaningful difference between two likelihoods.

Scores become probabilities only at the edge, through a softmax over the leaves in their fixed
order (see ``QuestionState.recompute``): identical scores always give identical bits, so that
step cannot reintroduce an order dependence either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import repeat
from operator import mul, truediv

SCALE_BITS = 40
SCALE = float(1 << SCALE_BITS)

#: Likelihoods are clamped here before the log, so a 0 never makes a hypothesis impossible
#: forever (one bad reading should not be unrecoverable).
MIN_LIKELIHOOD = 1e-9


def quantised_log(probability: float) -> int:
    """``log(p)`` as an integer number of quanta; ``p`` is clamped to [MIN_LIKELIHOOD, 1]."""
    clamped = min(1.0, max(MIN_LIKELIHOOD, probability))
    return round(math.log(clamped) * SCALE)


def tempered(likelihood: float, otherwise: float, reliability: float) -> float:
    """P'(E|h) = r·P(E|h) + (1 − r)·o: unreliable evidence fades toward saying nothing."""
    return reliability * likelihood + (1.0 - reliability) * otherwise


_TEMPERED_CACHE: dict[tuple[float, float, float], tuple[float, int]] = {}
_CACHE_LIMIT = 1 << 16


def tempered_log(likelihood: float, otherwise: float, reliability: float) -> tuple[float, int]:
    """``(P', quantised log P')`` for one likelihood, memoised: cases repeat the same numbers."""
    key = (likelihood, otherwise, reliability)
    found = _TEMPERED_CACHE.get(key)
    if found is None:
        value = tempered(likelihood, otherwise, reliability)
        found = (value, quantised_log(value))
        if len(_TEMPERED_CACHE) >= _CACHE_LIMIT:
            _TEMPERED_CACHE.clear()
        _TEMPERED_CACHE[key] = found
    return found


def softmax(scores: Sequence[int]) -> list[float]:
    """Probabilities from integer log-scores; deterministic and order-independent."""
    if not scores:
        return []
    top = max(scores)
    weights = [math.exp((score - top) / SCALE) for score in scores]
    total = math.fsum(weights)
    return [weight / total for weight in weights]


def entropy_bits(distribution: Sequence[float]) -> float:
    # max() so a certain distribution reads 0.0, not -0.0
    return max(0.0, -math.fsum(p * math.log2(p) for p in distribution if p > 0.0))


def kl_bits_from_scores(p_scores: Sequence[int], q_scores: Sequence[int]) -> float:
    """KL(softmax(p) ‖ softmax(q)) in bits, in log space from the integer log-scores.

    A leaf far enough below the top underflows to probability 0 in one distribution while it
    is a (denormal) non-zero in the other; working from the scores never divides by that 0.
    """
    if not p_scores:
        return 0.0

    def top_and_log_sum(scores: Sequence[int]) -> tuple[int, float]:
        top = max(scores)
        return top, math.log(math.fsum(math.exp((s - top) / SCALE) for s in scores))

    p_top, p_log_sum = top_and_log_sum(p_scores)
    q_top, q_log_sum = top_and_log_sum(q_scores)
    shift = (p_top - q_top) / SCALE + p_log_sum - q_log_sum  # log Z_p − log Z_q, nats
    terms = [
        a * ((s - t) / SCALE - shift)
        for a, s, t in zip(softmax(p_scores), p_scores, q_scores, strict=True)
        if a > 0.0
    ]
    return max(0.0, math.fsum(terms) / math.log(2.0))


def mutual_information_bits(prior: Sequence[float], table: Sequence[Sequence[float]]) -> float:
    """Expected entropy reduction of ``prior`` from observing one outcome.

    ``table[o][i]`` is P(outcome o | leaf i). An outcome whose probability is the same under
    every leaf carries no information and contributes exactly zero.

    Every term is ``(p·q)·log2(q / marginal)`` as one float, and the terms are summed by
    ``fsum`` (exactly rounded, so their order does not matter). The element-wise steps run as
    ``map`` over whole rows: the same floats as a loop, without a Python step per element.
    """
    terms: list[float] = []
    extend = terms.extend
    for row in table:
        if len(row) != len(prior):
            raise ValueError("a likelihood row and the prior differ in length")
        if max(row) == min(row):
            continue
        weighted = list(map(mul, prior, row))
        marginal = math.fsum(weighted)
        if marginal <= 0.0:
            continue
        ratios = list(map(truediv, row, repeat(marginal)))
        if min(weighted) > 0.0 and min(ratios) > 0.0:
            extend(map(mul, weighted, map(math.log2, ratios)))
        else:  # a leaf this outcome rules out (or one without mass) adds no term
            extend(
                w * log2_ratio(q, r, marginal)
                for w, q, r in zip(weighted, row, ratios, strict=True)
                if w > 0.0
            )
    return max(0.0, math.fsum(terms))


def log2_ratio(q: float, ratio: float, marginal: float) -> float:
    """log₂(q / marginal), given ``ratio`` = q / marginal as one float: that float's logarithm,
    unless a positive but denormal ``q`` made it round to 0 (a likelihood of 5e-324 against a
    marginal of 2), where the difference of the two logarithms is the finite answer."""
    return math.log2(ratio) if ratio > 0.0 else math.log2(q) - math.log2(marginal)
