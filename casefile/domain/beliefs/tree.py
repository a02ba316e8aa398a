"""The shape of one question's tree at one moment, and what is derived from it.

:class:`Structure` is immutable and indexed for folding; a new one replaces it on every
structural change (a hypothesis proposed, retired or reinstated), so everything built on an
older one — snapshots, evidence effects, surprise — keeps the shape it was taken under.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from casefile.domain.beliefs.arithmetic import SCALE, tempered_log

CATCH_ALL = "catch-all"
INVERSE_SCALE = 1.0 / SCALE  # exact: SCALE is a power of two
CATCH_ALL_LEAF = -1


def catch_all_id(question_id: str) -> str:
    return f"{question_id}/{CATCH_ALL}"


@dataclass(frozen=True)
class Structure:
    """The tree's shape at one moment, indexed for fast folding (never mutated)."""

    catch_all: str
    ids: tuple[str, ...]  # node ids by index, parents before children
    parent: tuple[int, ...]  # parent index, -1 for top-level
    subtree: tuple[tuple[int, ...], ...]  # node indices under each node, itself included
    depth: tuple[int, ...]
    top: tuple[int, ...]  # index of each node's top-level ancestor
    tops: tuple[str, ...]  # open top-level ids in proposal order, then the catch-all
    leaves: tuple[int, ...]  # node index of each leaf; CATCH_ALL_LEAF for the catch-all
    log_priors: tuple[int, ...]  # aligned with leaves
    leaf_top: tuple[int, ...]  # position in ``tops`` of each leaf's top-level hypothesis
    retired: tuple[bool, ...]
    #: per node, why it does not apply (its own or an ancestor's requirement), else None
    inapplicable: tuple[str | None, ...]
    #: intake question id → the answer in force when this shape was built
    answers: dict[str, str]
    leaf_position: dict[int, int]  # node index → its position among the leaves
    catch_all_prior: float
    leaf_priors: tuple[tuple[int, int], ...]  # (leaf, log-prior) pairs, for the hot loop
    index: dict[str, int]  # node id → its index (``ids`` inverted)

    def leaf_key(self, leaf: int) -> str:
        return self.catch_all if leaf == CATCH_ALL_LEAF else self.ids[leaf]

    def path(self, node: int) -> list[str]:
        """Node ``node`` and its ancestors, most specific first (empty for the catch-all)."""
        chain: list[str] = []
        while node >= 0:
            chain.append(self.ids[node])
            node = self.parent[node]
        return chain

    def leaf_keys(self) -> list[str]:
        return [self.leaf_key(leaf) for leaf in self.leaves]

    def leaves_under(self, hypothesis_id: str) -> list[int]:
        """Positions (among the leaves) of every leaf in a node's subtree, or of the catch-all
        for its id; a retired subtree holds none. Raises ``KeyError`` for an unknown id."""
        position = self.leaf_position
        if hypothesis_id == self.catch_all:
            return [k for k, leaf in enumerate(self.leaves) if leaf == CATCH_ALL_LEAF]
        members = self.subtree[self.index[hypothesis_id]]
        return sorted(position[m] for m in members if m in position)

    def node_confidences(self, probs: tuple[float, ...] | list[float]) -> dict[str, float]:
        """Every node's confidence (a parent is the sum of its subtree), plus the catch-all."""
        values = [0.0] * len(self.ids)
        catch_all = 0.0
        for leaf, prob in zip(self.leaves, probs, strict=True):
            if leaf == CATCH_ALL_LEAF:
                catch_all = prob
            else:
                values[leaf] += prob
        for index in range(len(values) - 1, -1, -1):
            parent = self.parent[index]
            if parent >= 0:
                values[parent] += values[index]
        out = dict(zip(self.ids, values, strict=True))
        out[self.catch_all] = catch_all
        return out

    def top_confidences(self, probs: tuple[float, ...] | list[float]) -> list[float]:
        sums = [0.0] * len(self.tops)
        for position, prob in zip(self.leaf_top, probs, strict=True):
            sums[position] += prob
        return sums


class QuestionSnapshot:
    """One question's confidences at one point of the case.

    Holds the softmax weights and their total; probabilities and node sums are computed when
    first asked for (most steps of a long replay are never looked at).
    """

    __slots__ = (
        "_confidences",
        "_leader_path",
        "_probs",
        "leader",
        "structure",
        "total",
        "weights",
    )

    def __init__(
        self, structure: Structure, weights: tuple[float, ...], total: float, leader: str
    ) -> None:
        self.structure = structure
        self.weights = weights
        self.total = total
        self.leader = leader
        self._probs: tuple[float, ...] | None = None
        self._confidences: dict[str, float] | None = None
        self._leader_path: tuple[str, ...] | None = None

    @property
    def probs(self) -> tuple[float, ...]:
        if self._probs is None:
            total = self.total
            self._probs = tuple([weight / total for weight in self.weights])
        return self._probs

    @property
    def confidences(self) -> dict[str, float]:
        if self._confidences is None:
            self._confidences = self.structure.node_confidences(self.probs)
        return self._confidences

    def passing_confidences(self) -> dict[str, float]:
        """:attr:`confidences` (the same numbers), neither they nor the probabilities kept on
        the snapshot: for a reader that passes over every step of a long case once, which
        would otherwise leave both on tens of thousands of snapshots. Not to be changed."""
        if self._confidences is not None:
            return self._confidences
        probs = self._probs
        if probs is None:
            total = self.total
            probs = tuple([weight / total for weight in self.weights])
        return self.structure.node_confidences(probs)

    @property
    def leader_path(self) -> tuple[str, ...]:
        """The leader, then the leading child at each depth down to the leading leaf."""
        if self._leader_path is None:
            self._leader_path = leader_path(self.structure, self.confidences, self.leader)
        return self._leader_path

    @property
    def leading_leaf(self) -> str:
        return self.leader_path[-1]

    def leads_a_subtree(self) -> bool:
        """Whether the leader has children (else its path is the leader alone)."""
        index = self.structure.index.get(self.leader)
        return index is not None and len(self.structure.subtree[index]) > 1

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, QuestionSnapshot)
            and self.structure.ids == other.structure.ids
            and self.probs == other.probs
            and self.leader == other.leader
        )

    def __hash__(self) -> int:
        return hash((self.structure.ids, self.probs, self.leader))


def leading_leaf(structure: Structure, confidences: dict[str, float], leader: str) -> str:
    """The most specific hypothesis under the leader that holds more than its siblings and
    more than its parent's own "other mechanism"."""
    return leader_path(structure, confidences, leader)[-1]


def leader_path(
    structure: Structure, confidences: dict[str, float], leader: str
) -> tuple[str, ...]:
    """``leader``, then at each depth the child that leads its siblings and its parent's own
    "other mechanism", down to the leading leaf (depth ``i`` of the tree is ``path[i]``)."""
    current = leader
    path = [leader]
    while current != structure.catch_all:
        index = structure.ids.index(current)
        kids = [
            structure.ids[j]
            for j in structure.subtree[index]
            if structure.parent[j] == index
            and not structure.retired[j]
            and structure.inapplicable[j] is None
        ]
        if not kids:
            break
        best = max(kids, key=lambda c: confidences[c])
        own = confidences[current] - math.fsum(confidences[c] for c in kids)
        if confidences[best] < own:
            break
        current = best
        path.append(current)
    return tuple(path)


def moved_depth(before: tuple[str, ...], after: tuple[str, ...]) -> int | None:
    """The shallowest depth at which two leader paths name different hypotheses, or ``None``.

    A path that only grows or shrinks (the leader at some depth gives way to its parent's own
    "other mechanism", or a child comes to lead it) is a change of precision, not of leader:
    no depth holds two different leaders, so it is not a pivot.
    """
    for depth, (old, new) in enumerate(zip(before, after, strict=False)):
        if old != new:
            return depth
    return None


def evidence_effect(
    structure: Structure, likelihoods: dict[str, float], otherwise: float, reliability: float
) -> EvidenceEffect:
    """What one piece of evidence does to every leaf of the tree ``structure`` describes.

    Each node takes the likelihood of its nearest named ancestor-or-self: named hypotheses
    are visited shallow first, so a deeper one overrides its ancestor within its subtree. On an
    older structure this is what the evidence did to that tree, since a node proposed later
    inherited its parent's numbers (see :mod:`casefile.domain.beliefs.question`); names the
    structure does not hold (proposed later) are ignored.
    """
    base, base_delta = tempered_log(otherwise, otherwise, reliability)
    index = structure.index
    named = [index[h] for h in likelihoods if h in index]
    subtree = structure.subtree
    if all(len(subtree[node]) == 1 for node in named):
        # the common case: evidence about leaves, no inheritance to work out
        corrections = tuple(
            [
                (node, value, delta - base_delta)
                for node in named
                for value, delta in (
                    tempered_log(likelihoods[structure.ids[node]], otherwise, reliability),
                )
            ]
        )
        return EvidenceEffect(base, base_delta, corrections, structure)
    if len(named) > 1:
        named.sort(key=structure.depth.__getitem__)
    assigned: dict[int, tuple[float, int]] = {}
    for node in named:
        value, delta = tempered_log(likelihoods[structure.ids[node]], otherwise, reliability)
        correction = (value, delta - base_delta)
        for member in subtree[node]:
            assigned[member] = correction
    corrections = tuple([(i, v, d) for i, (v, d) in assigned.items()])
    return EvidenceEffect(base, base_delta, corrections, structure)


@dataclass(frozen=True)
class EvidenceEffect:
    """What one piece of evidence does: ``o`` everywhere, corrections under what it names."""

    base: float  # tempered P'(E | h) for every leaf outside the named subtrees (and catch-all)
    base_delta: int
    corrections: tuple[tuple[int, float, int], ...]  # (node index, P'(E|leaf), delta − base)
    structure: Structure

    @property
    def leaf_likelihoods(self) -> dict[str, float]:
        values = dict.fromkeys(self.structure.ids, self.base)
        for index, value, _ in self.corrections:
            values[self.structure.ids[index]] = value
        return values

    @property
    def catch_all_likelihood(self) -> float:
        return self.base


class Surprise:
    """How unlikely a piece of evidence was under the belief held just before it.

    Holds that belief (immutable structure and weights) and the evidence's effect; the numbers
    are computed on first use, since most steps of a long fold are never displayed.
    """

    __slots__ = ("_bits", "_effect", "_structure", "_total", "_unexpected", "_weights")

    def __init__(
        self,
        structure: Structure,
        weights: tuple[float, ...],
        total: float,
        effect: EvidenceEffect,
    ) -> None:
        self._structure = structure
        self._weights = weights
        self._total = total
        self._effect = effect
        self._bits: float | None = None
        self._unexpected: float | None = None

    @property
    def predictive(self) -> float:
        """P(E) = Σ_leaf P(leaf) · P'(E | leaf). Every leaf gives ``base`` except those under
        the named hypotheses, so P(E) = base + Σ_named leaves P(leaf) · (P'(E | leaf) − base).
        """
        effect = self._effect
        position = self._structure.leaf_position
        weights, total = self._weights, self._total
        terms = [effect.base]
        for index, value, _ in effect.corrections:
            k = position.get(index)
            if k is not None:
                terms.append(weights[k] / total * (value - effect.base))
        return math.fsum(terms)

    @property
    def best(self) -> float:
        """The largest P'(E | leaf) among the leaves in the distribution."""
        position = self._structure.leaf_position
        best = self._effect.base
        for index, value, _ in self._effect.corrections:
            if value > best and index in position:
                best = value
        return best

    @property
    def bits(self) -> float:
        """−log₂ P(E)."""
        if self._bits is None:
            predictive = self.predictive
            self._bits = -math.log2(predictive) if predictive > 0.0 else math.inf
        return self._bits

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Surprise)
            and self.bits == other.bits
            and self.unexpected_bits == other.unexpected_bits
        )

    def __hash__(self) -> int:
        return hash((self.bits, self.unexpected_bits))

    @property
    def unexpected_bits(self) -> float:
        """log₂ (max_leaf P'(E | leaf) / P(E)): how much likelier the best explanation made it."""
        if self._unexpected is None:
            predictive = self.predictive
            ratio = math.log2(self.best / predictive) if predictive > 0.0 else math.inf
            self._unexpected = max(0.0, ratio)
        return self._unexpected
