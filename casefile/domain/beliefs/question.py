"""One question's hypothesis tree and its confidences, updated incrementally.

Every hypothesis node owns one *leaf* of the distribution: for a node without children that is
the node itself; for a parent it is the parent's own "other mechanism" (the share its children
leave over). The question's catch-all is one more leaf. Each leaf's score is its log-prior plus
the sum of the (quantised, tempered) log-likelihoods of all active evidence; a node's confidence
is the sum of the leaves beneath it.

Evidence is applied to *every* node's own leaf, retired ones included, so that proposing a
hypothesis late, adding a child, or reinstating a retired hypothesis is O(1): a new top-level
hypothesis has seen exactly what the catch-all has seen (evidence could not have named it), and a
new child has seen exactly what its parent's own leaf has seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from casefile.domain.beliefs.arithmetic import SCALE, quantised_log, softmax, tempered

CATCH_ALL = "catch-all"


def catch_all_id(question_id: str) -> str:
    return f"{question_id}/{CATCH_ALL}"


@dataclass
class HypothesisNode:
    id: str
    question_id: str
    parent_id: str | None
    text: str
    prior: float  # absolute for top-level nodes, a share of the parent's for children
    meaning: str | None = None
    retired: bool = False
    retired_reason: str | None = None
    proposed_seq: int = 0
    children: list[str] = field(default_factory=list)
    evidence_sum: int = 0  # Σ quantised log P'(E | own leaf) over active evidence


@dataclass(frozen=True)
class EvidenceEffect:
    """The per-leaf log-likelihoods one piece of evidence contributes, kept for removal."""

    node_deltas: dict[str, int]
    catch_all_delta: int
    leaf_likelihoods: dict[str, float]  # tempered P'(E | leaf) by leaf key
    catch_all_likelihood: float


@dataclass
class QuestionState:
    id: str
    text: str
    catch_all_reserve: float
    playbook: str | None = None
    proposed_seq: int = 0
    top: list[str] = field(default_factory=list)
    nodes: dict[str, HypothesisNode] = field(default_factory=dict)
    catch_all_sum: int = 0
    evidence_count: int = 0
    #: top-level hypothesis → evidence kind → number of active evidence events favouring it
    support: dict[str, dict[str, int]] = field(default_factory=dict)
    # cached distribution, rebuilt when anything changes
    _leaf_keys: list[str] = field(default_factory=list)
    _leaf_probs: list[float] = field(default_factory=list)
    _confidences: dict[str, float] = field(default_factory=dict)
    _log_priors: dict[str, int] = field(default_factory=dict)

    # --- structure -------------------------------------------------------------------------

    @property
    def catch_all_id(self) -> str:
        return catch_all_id(self.id)

    def catch_all_prior(self) -> float:
        return 1.0 - math.fsum(self.nodes[h].prior for h in self.top)

    def children_share(self, node_id: str) -> float:
        return math.fsum(self.nodes[c].prior for c in self.nodes[node_id].children)

    def add(self, node: HypothesisNode) -> None:
        """Insert a node; the new own-leaf inherits the evidence its mass was carved from."""
        if node.parent_id is None:
            node.evidence_sum = self.catch_all_sum
            self.top.append(node.id)
        else:
            parent = self.nodes[node.parent_id]
            node.evidence_sum = parent.evidence_sum
            parent.children.append(node.id)
        self.nodes[node.id] = node
        self.refresh_priors()

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

    def is_active(self, node_id: str) -> bool:
        return not any(self.nodes[n].retired for n in self.path(node_id))

    def subtree(self, node_id: str) -> list[str]:
        out = [node_id]
        for child in self.nodes[node_id].children:
            out.extend(self.subtree(child))
        return out

    def refresh_priors(self) -> None:
        """Recompute each leaf's log-prior from the tree (after any structural change)."""
        log_priors: dict[str, int] = {}

        def walk(node_id: str, mass: float) -> None:
            node = self.nodes[node_id]
            if node.retired:
                return
            own = mass * max(0.0, 1.0 - self.children_share(node_id))
            if own > 0.0:
                log_priors[node_id] = round(math.log(own) * SCALE)
            for child in node.children:
                walk(child, mass * self.nodes[child].prior)

        for top in self.top:
            walk(top, self.nodes[top].prior)
        catch_all = self.catch_all_prior()
        if catch_all > 0.0:
            log_priors[self.catch_all_id] = round(math.log(catch_all) * SCALE)
        self._log_priors = log_priors
        self.recompute()

    # --- evidence --------------------------------------------------------------------------

    def effect(
        self, likelihoods: dict[str, float], otherwise: float, reliability: float
    ) -> EvidenceEffect:
        """What one piece of evidence does to every node's own leaf and to the catch-all."""
        node_deltas: dict[str, int] = {}
        leaf_likelihoods: dict[str, float] = {}
        for node_id in self.nodes:
            raw = otherwise
            for ancestor in self.path(node_id):
                if ancestor in likelihoods:
                    raw = likelihoods[ancestor]
                    break
            value = tempered(raw, otherwise, reliability)
            leaf_likelihoods[node_id] = value
            node_deltas[node_id] = quantised_log(value)
        catch_all = tempered(otherwise, otherwise, reliability)
        return EvidenceEffect(node_deltas, quantised_log(catch_all), leaf_likelihoods, catch_all)

    def apply(self, effect: EvidenceEffect, sign: int = 1) -> None:
        for node_id, delta in effect.node_deltas.items():
            self.nodes[node_id].evidence_sum += sign * delta
        self.catch_all_sum += sign * effect.catch_all_delta
        self.evidence_count += sign
        self.recompute()

    def predictive(self, effect: EvidenceEffect) -> float:
        """P(E) under the current belief: Σ_leaf P(leaf) · P'(E | leaf)."""
        terms = []
        for key, prob in zip(self._leaf_keys, self._leaf_probs, strict=True):
            if key == self.catch_all_id:
                terms.append(prob * effect.catch_all_likelihood)
            else:
                terms.append(prob * effect.leaf_likelihoods[key])
        return math.fsum(terms)

    def best_explanation(self, effect: EvidenceEffect) -> float:
        """The largest P'(E | leaf) among the leaves currently in the distribution."""
        return max(
            effect.catch_all_likelihood
            if key == self.catch_all_id
            else effect.leaf_likelihoods[key]
            for key in self._leaf_keys
        )

    # --- the distribution ------------------------------------------------------------------

    def leaf_scores(self, without: EvidenceEffect | None = None) -> tuple[list[str], list[int]]:
        keys = list(self._log_priors)
        scores = []
        for key in keys:
            if key == self.catch_all_id:
                score = self._log_priors[key] + self.catch_all_sum
                if without is not None:
                    score -= without.catch_all_delta
            else:
                score = self._log_priors[key] + self.nodes[key].evidence_sum
                if without is not None:
                    score -= without.node_deltas[key]
            scores.append(score)
        return keys, scores

    def recompute(self) -> None:
        keys, scores = self.leaf_scores()
        probs = softmax(scores)
        self._leaf_keys = keys
        self._leaf_probs = probs
        self._confidences = self.confidences_from(dict(zip(keys, probs, strict=True)))

    def confidences_from(self, leaf_probs: dict[str, float]) -> dict[str, float]:
        """Node confidences (a parent is the sum of its subtree) from leaf probabilities."""
        confidences: dict[str, float] = {}

        def total(node_id: str) -> float:
            parts = [leaf_probs.get(node_id, 0.0)]
            parts.extend(total(child) for child in self.nodes[node_id].children)
            value = 0.0 if self.nodes[node_id].retired else math.fsum(parts)
            confidences[node_id] = value
            return value

        for top in self.top:
            total(top)
        confidences[self.catch_all_id] = leaf_probs.get(self.catch_all_id, 0.0)
        return confidences

    @property
    def confidences(self) -> dict[str, float]:
        return self._confidences

    @property
    def leaf_distribution(self) -> tuple[list[str], list[float]]:
        return self._leaf_keys, self._leaf_probs

    def leader(self) -> str:
        """The top-level hypothesis (or the catch-all) with the highest confidence.

        Ties go to the one proposed first, so the leader is deterministic.
        """
        candidates = [h for h in self.top if not self.nodes[h].retired] + [self.catch_all_id]
        return max(candidates, key=lambda h: (self._confidences.get(h, 0.0), -candidates.index(h)))

    def leading_leaf(self) -> str:
        """The most specific hypothesis under the leader that holds the most mass."""
        current = self.leader()
        while current != self.catch_all_id and self.nodes[current].children:
            kids = [c for c in self.nodes[current].children if not self.nodes[c].retired]
            if not kids:
                break
            best = max(kids, key=lambda c: self._confidences.get(c, 0.0))
            own = self._confidences[current] - math.fsum(self._confidences[c] for c in kids)
            if self._confidences[best] < own:
                break
            current = best
        return current
