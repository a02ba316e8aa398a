"""Property tests of the reasoning engine (hypothesis).

Exactness matters here: the engine promises bit-identical distributions whatever the order of
evidence, so those properties compare with ``==``, never approx.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casefile.domain import commands
from casefile.domain.beliefs import project
from casefile.domain.beliefs.ranking import Candidate, outcome_table, rank_next_steps
from casefile.domain.rule_loading import rule_from_dict
from casefile.domain.rules import Rule

from .builder import CaseBuilder
from .reasoning_helpers import QID, check_coherent, conf, ev, hyp, new_case

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- strategies -------------------------------------------------------------------------------

likelihood_values = st.one_of(
    st.floats(min_value=1e-12, max_value=1.0, allow_nan=False),
    st.sampled_from([1.0, 0.5, 1e-12, 1e-9, 0.999999]),
)
otherwise_values = st.one_of(st.floats(min_value=0.01, max_value=1.0), st.sampled_from([0.5, 1.0]))
reliability_values = st.one_of(
    st.floats(min_value=0.0, max_value=1.0), st.sampled_from([0.0, 1.0, 0.5])
)
kinds = st.sampled_from(commands.KINDS)


@dataclass(frozen=True)
class Node:
    id: str
    under: str  # the question id for top-level nodes
    prior: float


@dataclass(frozen=True)
class Assessment:
    likelihoods: dict[str, float]
    otherwise: float
    reliability: float
    kind: str


@st.composite
def trees(draw: st.DrawFn, top_mass_max: float = 0.85) -> list[Node]:
    """A hypothesis tree (in proposal order) whose top-level priors leave the catch-all ≥ 0.1."""
    n_top = draw(st.integers(1, 4))
    weights = draw(st.lists(st.floats(0.1, 10.0), min_size=n_top, max_size=n_top))
    mass = draw(st.floats(0.05, top_mass_max))
    nodes: list[Node] = []
    for i, w in enumerate(weights):
        nodes.append(Node(f"H{i}", QID, mass * w / math.fsum(weights)))
    for top in list(nodes):
        n_kids = draw(st.integers(0, 3))
        if not n_kids:
            continue
        kid_weights = draw(st.lists(st.floats(0.1, 10.0), min_size=n_kids, max_size=n_kids))
        share = draw(st.floats(0.1, 1.0))
        for j, w in enumerate(kid_weights):
            kid = Node(f"{top.id}.{j}", top.id, share * w / math.fsum(kid_weights))
            nodes.append(kid)
            if draw(st.booleans()) and draw(st.booleans()):
                nodes.append(Node(f"{kid.id}.0", kid.id, draw(st.floats(0.1, 0.9))))
    return nodes


def assessments(ids: list[str]) -> st.SearchStrategy[Assessment]:
    return st.builds(
        Assessment,
        likelihoods=st.dictionaries(st.sampled_from(ids), likelihood_values, min_size=1),
        otherwise=otherwise_values,
        reliability=reliability_values,
        kind=kinds,
    )


def build(tree: list[Node], incremental: bool = True) -> CaseBuilder:
    b = new_case(incremental=incremental)
    for node in tree:
        hyp(b, node.id, node.under, node.prior)
    return b


def assess(b: CaseBuilder, a: Assessment, **extra: Any) -> None:
    ev(b, a.likelihoods, a.otherwise, a.kind, a.reliability, **extra)


def leaf_state(b: CaseBuilder) -> tuple[list[str], list[float], dict[str, float]]:
    question = b.projection.questions[QID]
    keys, probs = question.leaf_distribution
    return sorted(keys), [dict(zip(keys, probs, strict=True))[k] for k in sorted(keys)], conf(b)


# --- every question sums to 1 -----------------------------------------------------------------


@SETTINGS
@given(tree=trees(), data=st.data())
def test_every_question_sums_to_one_after_any_sequence(tree: list[Node], data: Any) -> None:
    b = build(tree)
    check_coherent(b.projection)
    late = 0
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        p = b.projection
        question = p.questions[QID]
        active = [h for h in question.nodes if question.is_active(h)]
        retired = [h for h in question.nodes if question.nodes[h].retired]
        live_evidence = [e.id for e in p.evidence.values() if e.active]
        options = ["evidence", "late-top", "late-child"]
        if live_evidence:
            options.append("supersede")
        if len(active) > 1:
            options.append("retire")
        if retired:
            options.append("reinstate")
        op = data.draw(st.sampled_from(options), label="op")
        if op in ("evidence", "supersede") and active:
            a = data.draw(assessments(active), label="assessment")
            extra = (
                {"supersedes": data.draw(st.sampled_from(live_evidence))}
                if op == ("supersede")
                else {}
            )
            assess(b, a, **extra)
        elif op == "retire":
            target = data.draw(st.sampled_from(active), label="retire")
            b.add(commands.retire_hypothesis(p, target, "ruled out"))
        elif op == "reinstate":
            target = data.draw(st.sampled_from(retired), label="reinstate")
            b.add(commands.reinstate_hypothesis(p, target))
        elif op == "late-top" and question.evidence_count:
            late += 1
            fraction = data.draw(st.floats(0.01, 0.99), label="fraction")
            hyp(b, f"L{late}", QID, question.catch_all_prior() * fraction)
        elif op == "late-child" and active:
            late += 1
            parent = data.draw(st.sampled_from(active), label="parent")
            left = 1.0 - question.children_share(parent)
            if left > 1e-6:
                fraction = data.draw(st.floats(0.01, 1.0), label="fraction")
                hyp(b, f"L{late}", parent, left * fraction)
        check_coherent(b.projection)
    # The incrementally folded projection agrees with a full replay, and the trajectory too.
    full = project(b.events)
    assert full.confidences() == b.projection.confidences()
    assert full.trajectory == b.projection.trajectory
    for step in full.trajectory:
        snap = step.snapshots.get(QID)
        if snap is not None:
            question = full.questions[QID]
            total = math.fsum(snap.confidences.get(h, 0.0) for h in question.top)
            total += snap.confidences[question.catch_all_id]
            assert abs(total - 1.0) <= 1e-12


# --- order independence -----------------------------------------------------------------------


@st.composite
def tree_and_evidence(draw: st.DrawFn) -> tuple[list[Node], list[Assessment]]:
    tree = draw(trees())
    ids = [n.id for n in tree]
    evidence = draw(st.lists(assessments(ids), min_size=1, max_size=8))
    return tree, evidence


@SETTINGS
@given(case=tree_and_evidence(), data=st.data())
def test_final_distribution_does_not_depend_on_evidence_order(
    case: tuple[list[Node], list[Assessment]], data: Any
) -> None:
    tree, evidence = case
    shuffled = data.draw(st.permutations(evidence), label="order")
    forward, other = build(tree), build(tree)
    for a in evidence:
        assess(forward, a)
    for a in shuffled:
        assess(other, a)
    assert leaf_state(forward) == leaf_state(other)  # bit-identical, not approx
    check_coherent(forward.projection)


@SETTINGS
@given(case=tree_and_evidence(), data=st.data())
def test_reliability_zero_is_a_no_op(case: tuple[list[Node], list[Assessment]], data: Any) -> None:
    tree, evidence = case
    ids = [n.id for n in tree]
    ignored = data.draw(assessments(ids), label="ignored")
    where = data.draw(st.integers(0, len(evidence)), label="where")
    with_it, without = build(tree), build(tree)
    for i, a in enumerate(evidence):
        if i == where:
            assess(with_it, Assessment(ignored.likelihoods, ignored.otherwise, 0.0, ignored.kind))
        assess(with_it, a)
        assess(without, a)
    if where == len(evidence):
        assess(with_it, Assessment(ignored.likelihoods, ignored.otherwise, 0.0, ignored.kind))
    assert leaf_state(with_it) == leaf_state(without)


# --- late proposals equal early ones ----------------------------------------------------------


@SETTINGS
@given(
    case=tree_and_evidence(),
    late_prior=st.floats(0.001, 0.049),
    after=st.lists(st.tuples(likelihood_values, otherwise_values, reliability_values), max_size=3),
    revise=st.booleans(),
)
def test_late_top_level_hypothesis_equals_having_it_from_the_start(
    case: tuple[list[Node], list[Assessment]],
    late_prior: float,
    after: list[tuple[float, float, float]],
    revise: bool,
) -> None:
    """Top level: carved out of the catch-all later, or named at the start with the same prior.

    The tree leaves at least 0.15 in the catch-all, so the early case can keep its 0.1 reserve
    and both cases end with the same catch-all prior. Evidence given before the late proposal
    cannot name it, so in the early case that evidence leaves it at ``otherwise`` too.
    """
    tree, evidence = case
    early, late = build(tree), build(tree)
    hyp(early, "N", QID, late_prior)
    for a in evidence:
        assess(early, a)
        assess(late, a)
    hyp(late, "N", QID, late_prior)
    early_q, late_q = early.projection.questions[QID], late.projection.questions[QID]
    assert early_q.catch_all_prior() == late_q.catch_all_prior()
    assert early_q.top == late_q.top
    # Later evidence can name it in both; a re-assessment of the first piece can too.
    for likelihood, otherwise, reliability in after:
        for b in (early, late):
            ev(b, {"N": likelihood}, otherwise, "measured", reliability)
    if revise:
        for b in (early, late):
            ev(b, {"N": 0.9, tree[0].id: 0.2}, 0.4, "measured", 0.8, supersedes="e1")
    assert leaf_state(early) == leaf_state(late)


@SETTINGS
@given(
    case=tree_and_evidence(),
    data=st.data(),
    share_fraction=st.floats(0.01, 1.0),
    after=st.lists(st.tuples(likelihood_values, otherwise_values, reliability_values), max_size=3),
)
def test_late_child_equals_having_it_from_the_start(
    case: tuple[list[Node], list[Assessment]],
    data: Any,
    share_fraction: float,
    after: list[tuple[float, float, float]],
) -> None:
    tree, evidence = case
    parent = data.draw(st.sampled_from([n.id for n in tree]), label="parent")
    early, late = build(tree), build(tree)
    left = 1.0 - early.projection.questions[QID].children_share(parent)
    if left <= 1e-9:
        return
    share = left * share_fraction
    hyp(early, "C", parent, share)
    for a in evidence:
        assess(early, a)
        assess(late, a)
    hyp(late, "C", parent, share)
    for likelihood, otherwise, reliability in after:
        for b in (early, late):
            ev(b, {"C": likelihood}, otherwise, "measured", reliability)
    assert leaf_state(early) == leaf_state(late)
    check_coherent(late.projection)


# --- value of information ---------------------------------------------------------------------


def normalised(weights: list[float]) -> list[float]:
    total = math.fsum(weights)
    return [w / total for w in weights]


@st.composite
def rules_for(draw: st.DrawFn, ids: list[str], identical: bool = False) -> Rule:
    n = draw(st.integers(2, 4))
    names = [f"o{i}" for i in range(n)]
    weight_lists = st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)

    def row() -> dict[str, float]:
        return dict(zip(names, normalised(draw(weight_lists)), strict=True))

    named = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
    if identical:
        shared = row()
        table = {h: dict(shared) for h in named} | {"otherwise": dict(shared)}
    else:
        table = {h: row() for h in named} | {"otherwise": row()}
    return rule_from_dict(
        {
            "id": "r",
            "version": 1,
            "probes": ["p"],
            "rationale": "random",
            "statistic": {"aggregate": "max", "fact": "x"},
            "outcomes": [{"name": name} for name in names],
            "likelihoods": table,
            "reliability": draw(reliability_values),
        },
        QID,
    )


@SETTINGS
@given(case=tree_and_evidence(), data=st.data())
def test_value_of_information_is_never_negative(
    case: tuple[list[Node], list[Assessment]], data: Any
) -> None:
    tree, evidence = case
    b = build(tree)
    for a in evidence:
        assess(b, a)
    ids = [n.id for n in tree]
    rule = data.draw(rules_for(ids), label="rule")
    flat = data.draw(rules_for(ids, identical=True), label="flat")
    projection = b.projection
    steps = rank_next_steps(projection, [Candidate("p", rule), Candidate("flat", flat)])
    gains = {s.probe: s.expected_gain_bits for s in steps}
    question = projection.questions[QID]
    keys, probs = question.leaf_distribution
    entropy = -math.fsum(p * math.log2(p) for p in probs if p > 0.0)
    assert gains["p"] >= 0.0
    # Mutual information is bounded by both the hypothesis's and the outcome's entropy.
    assert gains["p"] <= min(entropy, math.log2(len(rule.outcomes))) + 1e-9
    assert gains["flat"] == 0.0  # identical rows for every hypothesis: exactly nothing to learn
    # Each column of the outcome table is a distribution over outcomes.
    table = outcome_table(question, keys, rule)
    for column in zip(*table, strict=True):
        assert math.fsum(column) == pytest_approx_one(column)


def pytest_approx_one(column: tuple[float, ...]) -> float:
    total = math.fsum(column)
    assert abs(total - 1.0) <= 1e-9
    return total


# --- replay -----------------------------------------------------------------------------------


@SETTINGS
@given(case=tree_and_evidence(), cut=st.integers(1, 30))
def test_replay_twice_gives_identical_numbers(
    case: tuple[list[Node], list[Assessment]], cut: int
) -> None:
    tree, evidence = case
    b = build(tree, incremental=False)
    for a in evidence:
        assess(b, a)
    first, second = project(b.events), project(b.events)
    assert first.confidences() == second.confidences()
    assert first.trajectory == second.trajectory
    assert {e: s.surprise_bits for e, s in first.evidence.items()} == {
        e: s.surprise_bits for e, s in second.evidence.items()
    }
    assert first.warnings.all() == second.warnings.all()
    # Folding in two parts (as a live case does) gives the same result as one replay.
    cut = min(cut, len(b.events))
    split = project(b.events[:cut])
    project(b.events[cut:], into=split)
    assert split.confidences() == first.confidences()
    assert split.trajectory == first.trajectory


# --- retire and reinstate ---------------------------------------------------------------------


@SETTINGS
@given(case=tree_and_evidence(), data=st.data())
def test_retire_then_reinstate_equals_never_retiring(
    case: tuple[list[Node], list[Assessment]], data: Any
) -> None:
    """Evidence keeps reaching a retired hypothesis's leaves, so reinstating it re-applies all
    of it: the result is bit-identical to never having retired it (as long as the evidence
    given meanwhile did not name it, which it could not)."""
    tree, evidence = case
    target = data.draw(st.sampled_from([n.id for n in tree]), label="target")
    when = data.draw(st.integers(0, len(evidence)), label="when")
    kept, retired = build(tree), build(tree)
    question = retired.projection.questions[QID]
    hidden = set(question.subtree(target))
    for i, a in enumerate(evidence):
        if i == when:
            retired.add(commands.retire_hypothesis(retired.projection, target, "ruled out"))
        if i >= when:
            a = Assessment(
                {h: v for h, v in a.likelihoods.items() if h not in hidden} or {"unused": 0.5},
                a.otherwise,
                a.reliability,
                a.kind,
            )
            if "unused" in a.likelihoods:
                continue  # it named only the retired subtree
        assess(kept, a)
        assess(retired, a)
    if when == len(evidence):
        retired.add(commands.retire_hypothesis(retired.projection, target, "ruled out"))
    assert retired.projection.questions[QID].confidences[target] == 0.0
    check_coherent(retired.projection)
    retired.add(commands.reinstate_hypothesis(retired.projection, target))
    assert leaf_state(retired) == leaf_state(kept)
