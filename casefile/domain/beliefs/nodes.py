"""A question's hypotheses as nodes, what each requires of the case, and the tree shape built
from them.

:class:`~casefile.domain.beliefs.question.QuestionState` holds its nodes mutably as the fold
proposes, retires and reweighs them; :func:`build_structure` turns them into the immutable,
indexed :class:`~casefile.domain.beliefs.tree.Structure` the fold's arithmetic runs on (leaves,
log-priors, which nodes hold probability), rebuilt after every structural change only, never
per piece of evidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casefile.domain.beliefs.arithmetic import SCALE
from casefile.domain.beliefs.tree import CATCH_ALL_LEAF, Structure

if TYPE_CHECKING:
    from casefile.domain.beliefs.question import QuestionState

__all__ = ["HypothesisNode", "Requirement", "build_structure", "holds"]


@dataclass(frozen=True)
class Requirement:
    """One thing a hypothesis needs the case to state: an intake answer among ``answers``.

    Structure before statistics: a peer-to-peer cause cannot hold for a job on one GPU, so
    once the case says it runs on one, that hypothesis holds no probability at all rather
    than a small one that evidence for unrelated causes could lift again."""

    intake: str
    answers: tuple[str, ...]


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
    #: what the case must state for it to apply at all: (intake question id, the answers
    #: under which it can hold); an answer in force outside them leaves it without mass
    requires: tuple[Requirement, ...] = ()
    #: why it does not apply now ("gpu-count = one (seq 9)"), None while it can
    inapplicable: str | None = None


def holds(node: HypothesisNode) -> bool:
    """Whether a node can hold probability: not retired, and not ruled out by structure."""
    return not node.retired and node.inapplicable is None


def build_structure(question: QuestionState, index: dict[str, int]) -> Structure:
    """``question``'s shape, leaves and log-priors now; ``index`` is each node's position in
    the question's evidence sums."""
    ids = tuple(question.nodes)
    parents = [question.nodes[i].parent_id for i in ids]
    parent = tuple(-1 if up is None else index[up] for up in parents)
    depth: list[int] = []
    top: list[int] = []
    for position in range(len(ids)):
        up = parent[position]
        depth.append(0 if up < 0 else depth[up] + 1)
        top.append(position if up < 0 else top[up])
    subtree = tuple(tuple(index[n] for n in question.subtree(i)) for i in ids)
    open_tops = [h for h in question.top if holds(question.nodes[h])]
    tops = (*open_tops, question.catch_all_id)
    leaves: list[int] = []
    log_priors: list[int] = []
    leaf_top: list[int] = []

    def walk(node_id: str, mass: float, top_position: int) -> None:
        node = question.nodes[node_id]
        if not holds(node):
            return
        own = mass * max(0.0, 1.0 - question.children_share(node_id))
        if own > 0.0:
            leaves.append(index[node_id])
            log_priors.append(round(math.log(own) * SCALE))
            leaf_top.append(top_position)
        for child in node.children:
            walk(child, mass * question.nodes[child].prior, top_position)

    for position, top_id in enumerate(open_tops):
        walk(top_id, question.nodes[top_id].prior, position)
    catch_all = question.catch_all_prior()
    if catch_all > 0.0:
        leaves.append(CATCH_ALL_LEAF)
        log_priors.append(round(math.log(catch_all) * SCALE))
        leaf_top.append(len(tops) - 1)
    return Structure(
        catch_all=question.catch_all_id,
        ids=ids,
        parent=parent,
        subtree=subtree,
        depth=tuple(depth),
        top=tuple(top),
        tops=tops,
        leaves=tuple(leaves),
        log_priors=tuple(log_priors),
        leaf_top=tuple(leaf_top),
        retired=tuple(question.nodes[i].retired for i in ids),
        inapplicable=tuple(question.inapplicable_reason(i) for i in ids),
        answers={intake: answer for intake, (answer, _) in question.answers.items()},
        leaf_position={leaf: k for k, leaf in enumerate(leaves)},
        catch_all_prior=catch_all,
        leaf_priors=tuple(zip(leaves, log_priors, strict=True)),
        index=dict(index),
    )
