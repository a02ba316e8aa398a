"""Every cause gpu-throughput@3 names can be tested by an A/B.

An A/B of the change that removes a cause is how most threads end (the development set's
deciding steps are mostly such A/Bs), and one that no rule reads is recorded and weighs
nothing: five cases of the fifth round were decided that way. So each leaf of the playbook
has an experiment rule whose "faster" speaks for it at least five times as much as for a
cause the rule does not name (consumer cards without P2P share the NVLink A/B with
PCIe-bandwidth, which it raises more: nothing but that tells them apart by an A/B)."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK

from casefile.domain.experiments import ExperimentRule

PARENT = {h.id: h.parent for h in PLAYBOOK.hypotheses}
LEAVES = [h for h in PARENT if not any(p == h for p in PARENT.values())]


def faster(rule: ExperimentRule, leaf: str) -> float:
    """P(faster | leaf) under the rule: the leaf's row, else its nearest ancestor's."""
    node: str | None = leaf
    while node is not None and node not in rule.rule.likelihoods:
        node = PARENT[node]
    row = rule.rule.otherwise if node is None else rule.rule.likelihoods[node]
    return row["faster"]


@pytest.mark.parametrize("leaf", LEAVES)
def test_some_a_b_tests_each_leaf(leaf: str) -> None:
    tells = [
        r.id for r in PLAYBOOK.experiments if faster(r, leaf) >= 5 * r.rule.otherwise["faster"]
    ]
    assert tells, leaf


def test_the_playbook_has_the_leaves_this_test_reads() -> None:
    assert len(LEAVES) == 18 and "memory-bandwidth" in LEAVES and "link-degraded" in LEAVES
