"""One question's hypothesis tree and its confidences, updated incrementally.

Every hypothesis node owns one *leaf* of the distribution: for a node without children that is
the node itself; for a parent it is the parent's own "other mechanism" (the share its children
leave over). The question's catch-all is one more leaf. A leaf's score is its log-prior plus the
sum of the (quantised, tempered) log-likelihoods of all active evidence; a node's confidence is
the sum of the leaves beneath it.

Two observations keep folding fast without changing a single bit of the result:

- A piece of evidence gives every leaf the same likelihood ``o`` except the subtrees of the
  hypotheses it names. So each evidence adds its ``o`` term to one shared ``offset`` (which the
  softmax cancels) and only the named subtrees get a per-node correction. Applying evidence costs
  the size of the subtrees it names, not the size of the tree.
- Evidence is applied to every node, retired ones included, so proposing a hypothesis late,
  adding a child or reinstating is O(1): a new top-level hypothesis has seen exactly what the
  catch-all has seen (evidence could not have named it), and a new child exactly what its
  parent's own leaf has seen.

The tree's shape lives in an immutable :class:`Structure`, replaced on every structural change,
so snapshots taken earlier keep the shape they were taken under; the nodes it is built from,
and the building, are :mod:`casefile.domain.beliefs.nodes`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from casefile.domain.beliefs.nodes import HypothesisNode, build_structure
from casefile.domain.beliefs.tree import (
    CATCH_ALL,
    CATCH_ALL_LEAF,
    INVERSE_SCALE,
    EvidenceEffect,
    QuestionSnapshot,
    Structure,
    Surprise,
    catch_all_id,
    evidence_effect,
    leading_leaf,
)
from casefile.domain.rules import contradicted

__all__ = [
    "CATCH_ALL",
    "CATCH_ALL_LEAF",
    "EvidenceEffect",
    "QuestionSnapshot",
    "QuestionState",
    "Structure",
    "Surprise",
    "catch_all_id",
    "leading_leaf",
]


@dataclass
class QuestionState:
    id: str
    text: str
    catch_all_reserve: float
    playbook: str | None = None
    proposed_seq: int = 0
    top: list[str] = field(default_factory=list)
    nodes: dict[str, HypothesisNode] = field(default_factory=dict)
    evidence_count: int = 0
    #: intake question id → (answer in force, the seq that recorded it)
    answers: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: intake question id → the evidence that withdrew its last answer as moot, while no answer
    #: has come since and nothing has superseded the withdrawal (what may be offered back)
    withdrawn: dict[str, str] = field(default_factory=dict)
    #: top-level hypothesis → evidence kind → number of active evidence events favouring it
    support: dict[str, dict[str, int]] = field(default_factory=dict)
    _index: dict[str, int] = field(default_factory=dict)
    _sums: list[int] = field(default_factory=list)  # per node, relative to the catch-all
    _structure: Structure | None = None
    _weights: tuple[float, ...] = ()
    _scores: list[int] = field(default_factory=list)  # per leaf: log-prior + evidence
    _top_score: int = 0
    _top_leaf: int = 0
    _total: float = 1.0
    _probs: tuple[float, ...] | None = None
    _top_weights: list[float] = field(default_factory=list)
    _leader: str = ""

    # --- structure -------------------------------------------------------------------------

    def __post_init__(self) -> None:
        self._catch_all_id = catch_all_id(self.id)

    @property
    def catch_all_id(self) -> str:
        return self._catch_all_id

    @property
    def structure(self) -> Structure:
        if self._structure is None:
            self.refresh_priors()
        assert self._structure is not None
        return self._structure

    def catch_all_prior(self) -> float:
        return 1.0 - math.fsum(self.nodes[h].prior for h in self.top)

    def children_share(self, node_id: str) -> float:
        return math.fsum(self.nodes[c].prior for c in self.nodes[node_id].children)

    def add(self, node: HypothesisNode) -> None:
        """Insert a node; its own leaf inherits the evidence its mass was carved from."""
        if node.parent_id is None:
            inherited = 0  # what the catch-all has seen, relative to the catch-all
            self.top.append(node.id)
        else:
            inherited = self._sums[self._index[node.parent_id]]
            self.nodes[node.parent_id].children.append(node.id)
        self._index[node.id] = len(self._sums)
        self._sums.append(inherited)
        self.nodes[node.id] = node
        self.refresh_priors()

    def reweigh(self, priors: dict[str, float], least_catch_all: float) -> None:
        """Give the named nodes new priors (absolute for top-level ones, a share of the
        parent's for children) and rebuild the structure; the evidence each has seen stays.

        Raises ``ValueError`` naming the problem for priors that would leave an impossible
        tree — the catch-all under ``least_catch_all``, children above their parent's whole —
        and then changes nothing (an imported case may hold what the commands never write).
        """
        unknown = sorted(h for h in priors if h not in self.nodes)
        if unknown:
            raise ValueError(f"question {self.id!r} has no hypothesis {unknown[0]!r}")
        for hid, value in priors.items():
            if not 0.0 < value <= 1.0:
                raise ValueError(f"prior {value!r} of {hid!r} is not within (0, 1]")

        def prior_of(hid: str) -> float:
            return priors.get(hid, self.nodes[hid].prior)

        catch_all = 1.0 - math.fsum(prior_of(h) for h in self.top)
        if catch_all < least_catch_all:
            raise ValueError(f"these priors leave the catch-all of {self.id!r} nothing")
        for node in self.nodes.values():
            if node.children and math.fsum(prior_of(c) for c in node.children) > 1.0 + 1e-9:
                raise ValueError(f"children of {node.id!r} would have shares above 1")
        for hid, value in priors.items():
            self.nodes[hid].prior = value
        self.refresh_priors()

    @classmethod
    def restored(
        cls,
        *,
        id: str,
        text: str,
        catch_all_reserve: float,
        playbook: str | None,
        proposed_seq: int,
        nodes: list[HypothesisNode],
        sums: list[int],
        evidence_count: int,
        support: dict[str, dict[str, int]],
        answers: dict[str, tuple[str, int]] | None = None,
        withdrawn: dict[str, str] | None = None,
    ) -> QuestionState:
        """A question rebuilt from saved state (see ``fold_codec``): its nodes in proposal
        order (childless; children are linked here), and the per-node evidence sums.

        The weights are recomputed from the sums, which gives the same bits the fold held: a
        weight only ever depends on the integer scores (see :meth:`apply`).
        """
        if len(sums) != len(nodes):
            raise ValueError(f"question {id!r}: {len(sums)} sums for {len(nodes)} nodes")
        question = cls(
            id=id,
            text=text,
            catch_all_reserve=catch_all_reserve,
            playbook=playbook,
            proposed_seq=proposed_seq,
        )
        for position, node in enumerate(nodes):
            if node.id in question.nodes or node.children:
                raise ValueError(f"question {id!r}: node {node.id!r} given twice or with children")
            if node.parent_id is None:
                question.top.append(node.id)
            else:
                question.nodes[node.parent_id].children.append(node.id)
            question._index[node.id] = position
            question.nodes[node.id] = node
        question._sums = list(sums)
        question.evidence_count = evidence_count
        question.support = support
        question.answers = dict(answers or {})
        question.withdrawn = dict(withdrawn or {})
        question.refresh_priors()
        return question

    @property
    def node_sums(self) -> list[int]:
        """Per node, in index order: the evidence it has seen, relative to the catch-all."""
        return list(self._sums)

    def path(self, node_id: str) -> list[str]:
        """The node and its ancestors, most specific first."""
        chain = []
        current: str | None = node_id
        while current is not None:
            chain.append(current)
            current = self.nodes[current].parent_id
        return chain

    def top_of(self, node_id: str) -> str:
        return self.path(node_id)[-1]

    def top_id(self, node_id: str) -> str:
        """Like :meth:`top_of`, from the indexed structure (for the fold's hot path)."""
        structure = self.structure
        return structure.ids[structure.top[self._index[node_id]]]

    def is_active(self, node_id: str) -> bool:
        return not any(self.nodes[n].retired for n in self.path(node_id))

    def record_answer(self, intake: str, answer: str, seq: int) -> bool:
        """Hold an intake answer in force and settle which hypotheses apply; whether any
        changed (the caller then has a new structure)."""
        before = self.answers.get(intake)
        self.answers[intake] = (answer, seq)
        if self.settle_requirements():
            return True
        if before is None or before[0] != answer:
            self.refresh_priors()  # the structure carries the answers the ranking reads
        return False

    def forget_answer(self, intake: str) -> bool:
        """An answer no longer in force (its evidence superseded by evidence that is not an
        answer to the same question): what it ruled out applies again."""
        if self.answers.pop(intake, None) is None:
            return False
        if not self.settle_requirements():
            self.refresh_priors()  # the structure carries the answers the ranking reads
        return True

    def track_withdrawals(
        self, evidence_id: str, moot: str | None, answers: str | None, supersedes: str | None
    ) -> None:
        """Keep :attr:`withdrawn` as evidence is folded: ``moot``, the intake question whose
        answer this evidence withdraws as moot; ``answers``, the one it answers; ``supersedes``,
        the evidence it supersedes (a withdrawal superseded is no withdrawal to undo)."""
        if supersedes is not None and supersedes in self.withdrawn.values():
            self.withdrawn = {q: e for q, e in self.withdrawn.items() if e != supersedes}
        if moot is not None:
            self.withdrawn[moot] = evidence_id
        if answers is not None:
            self.withdrawn.pop(answers, None)

    def settle_requirements(self) -> bool:
        """Mark each hypothesis whose requirement an answer in force contradicts, clear the
        mark where the answer changed, and rebuild the structure if anything moved."""
        changed = False
        # children before parents: a parent that keeps no share of its own and none of whose
        # children applies does not apply either
        for node in reversed(list(self.nodes.values())):
            reason = self.contradiction((need.intake, need.answers) for need in node.requires)
            kids = [self.nodes[c] for c in node.children]
            if (
                reason is None
                and kids
                and self.children_share(node.id) >= 1.0 - 1e-12
                and all(k.inapplicable is not None for k in kids)
            ):
                reason = f"none of its children applies ({kids[0].inapplicable})"
            if reason != node.inapplicable:
                node.inapplicable = reason
                changed = True
        if changed:
            self.refresh_priors()
        return changed

    def contradiction(self, requires: Iterable[tuple[str, Collection[str]]]) -> str | None:
        """The answer in force that contradicts one of ``requires`` (intake question, answers
        it allows), as status and intake show it: ``gpu-count = one (seq 27)``."""
        intake = contradicted(requires, self.answer_in_force)
        if intake is None:
            return None
        answer, seq = self.answers[intake]
        return f"{intake} = {answer} (seq {seq})"

    def answer_in_force(self, intake: str) -> str | None:
        held = self.answers.get(intake)
        return None if held is None else held[0]

    def inapplicable_reason(self, node_id: str) -> str | None:
        """Why this hypothesis (or an ancestor that carries it) does not apply, if it does not."""
        for hid in self.path(node_id):
            reason = self.nodes[hid].inapplicable
            if reason is not None:
                return reason if hid == node_id else f"{reason}, through {hid}"
        return None

    def subtree(self, node_id: str) -> list[str]:
        out = [node_id]
        for child in self.nodes[node_id].children:
            out.extend(self.subtree(child))
        return out

    def refresh_priors(self) -> None:
        """Rebuild the structure (shape, leaves, log-priors) after any structural change."""
        self._structure = build_structure(self, self._index)
        self.recompute()

    # --- evidence --------------------------------------------------------------------------

    def effect(
        self, likelihoods: dict[str, float], otherwise: float, reliability: float
    ) -> EvidenceEffect:
        """What one piece of evidence does to every leaf, on today's tree (see
        :func:`~casefile.domain.beliefs.tree.evidence_effect`)."""
        return evidence_effect(self.structure, likelihoods, otherwise, reliability)

    def apply(self, effect: EvidenceEffect, sign: int = 1) -> None:
        """Add (or with ``sign=-1`` remove) one piece of evidence.

        Only the leaves under the named hypotheses change score. While the highest score stays
        where it was, only their weights are recomputed — with the same reference, so each
        weight is bit-for-bit what a full recompute would give.
        """
        sums = self._sums
        scores = self._scores
        position = self.structure.leaf_position
        changed: list[int] = []
        for index, _, delta in effect.corrections:
            step = sign * delta
            sums[index] += step
            k = position.get(index)
            if k is not None:
                scores[k] += step
                changed.append(k)
        self.evidence_count += sign
        top = self._top_score
        if not changed:
            return
        if self._top_leaf in changed or max(scores[k] for k in changed) > top:
            self.recompute()
            return
        exp = math.exp
        weights = list(self._weights)
        for k in changed:
            weights[k] = exp((scores[k] - top) * INVERSE_SCALE)
        self._settle(tuple(weights))

    def predictive(self, effect: EvidenceEffect) -> float:
        """P(E) under the current belief (see :class:`Surprise`)."""
        return Surprise(self.structure, self._weights, self._total, effect).predictive

    def best_explanation(self, effect: EvidenceEffect) -> float:
        """The largest P'(E | leaf) among the leaves currently in the distribution."""
        return Surprise(self.structure, self._weights, self._total, effect).best

    def surprise(self, effect: EvidenceEffect) -> Surprise:
        """How surprising ``effect`` is under the belief held now, worked out when asked."""
        return Surprise(self.structure, self._weights, self._total, effect)

    # --- the distribution ------------------------------------------------------------------

    def leaf_scores(self, without: EvidenceEffect | None = None) -> tuple[list[str], list[int]]:
        """Leaf keys and scores (log-prior + evidence, relative to the catch-all's evidence)."""
        structure = self.structure
        sums = list(self._sums)
        if without is not None:
            for index, _, delta in without.corrections:
                sums[index] -= delta
        scores = [
            prior + (0 if leaf == CATCH_ALL_LEAF else sums[leaf])
            for leaf, prior in zip(structure.leaves, structure.log_priors, strict=True)
        ]
        return [structure.leaf_key(leaf) for leaf in structure.leaves], scores

    def recompute(self) -> None:
        """The softmax weights and the leader after a change (the fold's hot path).

        Weights are summed with a plain ``sum`` in leaf order, so the same scores always give
        the same bits; probabilities (weight / total) are divided out only when asked for.
        """
        structure = self.structure
        sums = self._sums
        pairs = structure.leaf_priors
        scores = [prior + sums[leaf] if leaf >= 0 else prior for leaf, prior in pairs]
        top = max(scores)
        self._scores = scores
        self._top_score = top
        self._top_leaf = scores.index(top)
        exp = math.exp
        self._settle(tuple([exp((score - top) * INVERSE_SCALE) for score in scores]))

    def _settle(self, weights: tuple[float, ...]) -> None:
        """Totals, top-level sums and the leader from a fresh set of weights."""
        structure = self.structure
        total = sum(weights)
        tops = [0.0] * len(structure.tops)
        for position, weight in zip(structure.leaf_top, weights, strict=True):
            tops[position] += weight
        self._weights = weights
        self._total = total
        self._probs = None
        self._top_weights = tops
        # the leader: ties go to the one proposed first (the catch-all is last)
        best, best_value = len(tops) - 1, -1.0
        for position, value in enumerate(tops):
            if value > best_value:
                best, best_value = position, value
        self._leader = structure.tops[best]

    @property
    def probs(self) -> tuple[float, ...]:
        if self._probs is None:
            total = self._total
            self._probs = tuple([weight / total for weight in self._weights])
        return self._probs

    def snapshot(self) -> QuestionSnapshot:
        snap = QuestionSnapshot(self.structure, self._weights, self._total, self.leader())
        snap._probs = self._probs
        return snap

    @property
    def confidences(self) -> dict[str, float]:
        return self.structure.node_confidences(self.probs)

    @property
    def leaf_distribution(self) -> tuple[list[str], list[float]]:
        structure = self.structure
        return [structure.leaf_key(leaf) for leaf in structure.leaves], list(self.probs)

    def catch_all_confidence(self) -> float:
        if not self._top_weights or self.structure.leaves[-1] != CATCH_ALL_LEAF:
            return 0.0
        return self._weights[-1] / self._total

    def leader(self) -> str:
        """The top-level hypothesis (or the catch-all) with the highest confidence.

        Ties go to the one proposed first, so the leader is deterministic.
        """
        if self._structure is None:
            self.refresh_priors()
        return self._leader

    def leading_leaf(self) -> str:
        return leading_leaf(self.structure, self.confidences, self.leader())

    def likeliest_leaf(self) -> tuple[str, float]:
        """The single most probable explanation: the leaf (a childless hypothesis, a parent's
        own "other mechanism", or the catch-all) holding the most probability, ties to the
        first in the tree's order, with the probability it holds on its own (a parent's own
        share, not its class's). It differs from :meth:`leading_leaf` when a class of several
        leaves leads by their sum while a leaf elsewhere holds more than any one of them."""
        keys, probs = self.leaf_distribution
        best = max(range(len(probs)), key=probs.__getitem__)
        return keys[best], probs[best]
