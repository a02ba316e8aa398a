"""The whole-probe figures to the last bit: ``joint.py`` against its rounding recipe, written out.

``ranking_reference`` holds the plain per-term sum, which the shipped H(O) − H(O | H) agrees with
to about 1e-15, not to the last bit, so the other ranking tests compare to 1e-9. What a replay
or a report promises is more: the same figure, bit for bit, from one version of the engine to
the next. That holds only while the shipped code keeps its order of floating-point operations,
so this file writes that order out as plainly as it can (a loop per step, no grouping tricks)
and compares ``float.hex()`` of every figure. A faster ``joint.py`` must pass it unchanged; one
that rounds differently must change the recipe here on purpose, in the open.

The recipe, for the classes (leaves alike under every table, their probabilities summed in leaf
order) and each rule's distinct columns (in the order of the first leaf holding each):

* a rule's own figure: the classes' weights summed per column (in class order), each over the
  weights' ``fsum``; ``total · fsum`` of share · (t · log₂ t) and −(m · log₂ m), m the ``fsum`` of
  share · t per outcome;
* the rules enumerated together: the most informative first, kept while they fit the budget;
* the joint figure over the classes merged under those rules (weights over their ``fsum``,
  summed in class order): ``−total · fsum`` of m · log₂ m for every marginal m > 0 and of
  −(w · (t · log₂ t)), w the classes' weight times Πᵣ'≠ᵣ Σ tᵣ' (as ``prod / own``) summed per
  column in class order;
* the marginals rule by rule, the rules telling most classes apart first (then fewer outcomes,
  then table order): before each rule, groups of classes alike under it and the rules after it;
  the rule multiplies each group's list (its outcomes outer, the joint outcomes so far inner)
  and sums the groups alike under the rules after it, in the order they first appear among the
  classes, left to right five at a time (the sum of the first five, plus the rest's).
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.app.service import CaseService
from casefile.domain.beliefs import joint, project, ranking
from casefile.domain.rules import Rule
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry
from tests.engine.test_ranking_fast_path import ROOT, belief_and_tables

Columns = list[tuple[float, ...]]


def recipe_columns(
    probs: list[float], tables: list[list[list[float]]]
) -> tuple[list[tuple[int, ...]], list[Columns]]:
    """For each leaf, its column under every rule; and each rule's distinct columns."""
    rules: list[Columns] = []
    for table in tables:
        columns: Columns = []
        for leaf in range(len(probs)):
            column = tuple(row[leaf] for row in table)
            if column not in columns:
                columns.append(column)
        rules.append(columns)
    keys = [
        tuple(
            columns.index(tuple(row[leaf] for row in table))
            for table, columns in zip(tables, rules, strict=True)
        )
        for leaf in range(len(probs))
    ]
    return keys, rules


def recipe_classes(probs: list[float], keys: list[tuple[int, ...]]) -> dict[tuple[int, ...], float]:
    """Leaves alike under every rule, their probabilities summed in leaf order."""
    weight: dict[tuple[int, ...], float] = {}
    for key, prob in zip(keys, probs, strict=True):
        weight[key] = weight.get(key, 0.0) + prob
    return weight


def recipe_single(weights: list[float], held: list[int], columns: Columns) -> float:
    total = math.fsum(weights)
    sums = [0.0] * len(columns)
    for w, i in zip(weights, held, strict=True):
        sums[i] += w
    shares = [s / total for s in sums if s > 0.0]
    used = [c for s, c in zip(sums, columns, strict=True) if s > 0.0]
    if len(shares) < 2:
        return 0.0
    terms = []
    for share, column in zip(shares, used, strict=True):
        for t in column:
            if t > 0.0:
                terms.append(share * (t * math.log2(t)))
    for o in range(len(used[0])):
        m = math.fsum([share * column[o] for share, column in zip(shares, used, strict=True)])
        if m > 0.0:
            terms.append(-(m * math.log2(m)))
    return max(0.0, total * math.fsum(terms))


def left_to_right(terms: list[float]) -> float:
    """Σ as the shipped code adds a group's terms: five at a time, the first five's sum plus
    the rest's."""
    if len(terms) > 5:
        return left_to_right(terms[:5]) + left_to_right(terms[5:])
    value = terms[0]
    for term in terms[1:]:
        value = value + term
    return value


def recipe_marginals(
    weights: list[float], keys: list[tuple[int, ...]], rules: list[Columns]
) -> list[float]:
    count = len(rules)
    told = [len({key[r] for key in keys}) for r in range(count)]
    order = sorted(range(count), key=lambda r: (-told[r], len(rules[r][0]), r))

    def group(step: int, key: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(key[r] for r in order[step:])

    values = {group(0, key): [w] for key, w in zip(keys, weights, strict=True)}
    for step, rule in enumerate(order):
        parts: dict[tuple[int, ...], list[tuple[int, ...]]] = {}  # group after: groups before
        for key in keys:
            before, after = group(step, key), group(step + 1, key)
            if before not in parts.setdefault(after, []):
                parts[after].append(before)
        outcomes = len(rules[rule][0])
        values = {
            after: [
                left_to_right([rules[rule][b[0]][o] * values[b][j] for b in members])
                for o in range(outcomes)
                for j in range(len(values[members[0]]))
            ]
            for after, members in parts.items()
        }
    (marginals,) = values.values()
    return marginals


def recipe_conditional(
    weights: list[float], keys: list[tuple[int, ...]], rules: list[Columns]
) -> list[float]:
    sums = [[math.fsum(column) for column in columns] for columns in rules]
    held = [[0.0] * len(columns) for columns in rules]
    for w, key in zip(weights, keys, strict=True):
        whole = math.prod([sums[r][key[r]] for r in range(len(rules))])
        if whole == 0.0:
            continue
        for r in range(len(rules)):
            held[r][key[r]] += w * (whole / sums[r][key[r]])
    terms = []
    for columns, of_rule in zip(rules, held, strict=True):
        for column, w in zip(columns, of_rule, strict=True):
            for t in column:
                if w and t > 0.0:
                    terms.append(-(w * (t * math.log2(t))))
    return terms


def recipe_information(
    weights: list[float], keys: list[tuple[int, ...]], rules: list[Columns]
) -> float:
    total = math.fsum(weights)
    if not rules or not total > 0.0:
        return 0.0
    merged: dict[tuple[int, ...], float] = {}
    for w, key in zip(weights, keys, strict=True):
        if w > 0.0:
            merged[key] = merged.get(key, 0.0) + w / total
    if len(merged) < 2:
        return 0.0
    shares, classes = list(merged.values()), list(merged)
    outcomes = [m * math.log2(m) for m in recipe_marginals(shares, classes, rules) if m > 0.0]
    conditional = recipe_conditional(shares, classes, rules)
    return max(0.0, -total * math.fsum(outcomes + conditional))


def recipe_probe(probs: list[float], tables: list[list[list[float]]], budget: int) -> float:
    leaf_keys, rules = recipe_columns(probs, tables)
    classes = recipe_classes(probs, leaf_keys)
    weights, keys = list(classes.values()), list(classes)
    if not weights:
        return 0.0
    singles = [
        recipe_single(weights, [key[r] for key in keys], rules[r]) for r in range(len(tables))
    ]
    chosen: list[int] = []
    size = 1
    for r in sorted(range(len(tables)), key=lambda r: -singles[r]):
        if size * len(tables[r]) * len(weights) <= budget:
            chosen.append(r)
            size *= len(tables[r])
    if len(chosen) < 2:
        return max(singles)
    chosen.sort()
    projected = [tuple(key[r] for r in chosen) for key in keys]
    together = recipe_information(weights, projected, [rules[r] for r in chosen])
    return max(together, *singles)


def recipe_leaders(probs: list[float], tables: list[list[list[float]]]) -> float:
    """The figure about the likeliest leaves (``ranking.LEADERS``) and the rest as one class,
    its likelihood the ``fsum`` of p · t over the rest, over their mass."""
    order = sorted(range(len(probs)), key=lambda k: (-probs[k], k))
    top, rest = order[: ranking.LEADERS], order[ranking.LEADERS :]
    mass = math.fsum([probs[k] for k in rest])
    prior = [probs[k] for k in top]
    coarse = [[[row[k] for k in top] for row in table] for table in tables]
    if mass > 0.0:
        prior.append(mass)
        for table, rows in zip(tables, coarse, strict=True):
            for row, merged in zip(table, rows, strict=True):
                merged.append(math.fsum([probs[k] * row[k] for k in rest]) / mass)
    return recipe_probe(prior, coarse, ranking.LEADERS_JOINT_WORK)


def assert_same_bits(probs: list[float], tables: list[list[list[float]]], budget: int) -> None:
    """The whole figure at ``budget`` and the leaders' figure, bit for bit."""
    joint.forget()
    want = recipe_probe(probs, tables, budget).hex()
    assert joint.probe_information_bits(probs, tables, budget).hex() == want
    assert ranking.joint_information_bits(probs, tables, budget).hex() == want
    assert (
        ranking.leaders_information_bits(probs, tables).hex() == recipe_leaders(probs, tables).hex()
    )
    joint.forget()


@settings(max_examples=300, deadline=None)
@given(belief_and_tables(), st.sampled_from([1, 20, 200, ranking.MAX_JOINT_WORK]))
def test_small_probes_follow_the_recipe(
    case: tuple[list[float], list[list[list[float]]]], budget: int
) -> None:
    probs, tables = case
    if len(tables) < 2:  # one rule is scored by the per-term sum (ranking_reference)
        tables = [*tables, tables[0][::-1]]
    assert_same_bits(probs, tables, budget)
    keys, rules = recipe_columns(probs, tables)
    assert (
        joint.product_information_bits(probs, tables).hex()
        == recipe_information(probs, keys, rules).hex()
    )


def playbook_like(seed: int) -> tuple[list[float], list[list[list[float]]]]:
    """Many leaves and rules, each rule naming a few leaves and leaving the rest its
    ``otherwise`` column (rounded likelihoods, some zeros): classes sum into groups of more
    than five, and the budget leaves rules out."""
    rng = random.Random(seed)
    leaves = rng.randint(20, 45)
    probs = [rng.random() ** 3 for _ in range(leaves)]
    total = math.fsum(probs)
    probs = [p / total for p in probs]
    if seed % 3 == 0:
        probs[rng.randrange(leaves)] = 0.0

    def column(outcomes: int) -> list[float]:
        raw = [
            rng.choice((0.0, 0.05, 0.1, 0.25, 0.5, 0.9)) + (0.0 if seed % 2 else 0.01)
            for _ in range(outcomes)
        ]
        return [round(v / (sum(raw) or 1.0), 4) for v in raw]

    tables = []
    for _ in range(rng.randint(4, 8)):
        outcomes = rng.choice((2, 3))
        other = column(outcomes)
        named = {leaf: column(outcomes) for leaf in rng.sample(range(leaves), rng.randint(3, 8))}
        tables.append(
            [[named.get(leaf, other)[o] for leaf in range(leaves)] for o in range(outcomes)]
        )
    return probs, tables


@pytest.mark.parametrize("seed", range(12))
def test_playbook_like_probes_follow_the_recipe(seed: int) -> None:
    probs, tables = playbook_like(seed)
    for budget in (200, 2_000, ranking.MAX_JOINT_WORK):
        assert_same_bits(probs, tables, budget)


@pytest.mark.parametrize(
    "case", ["glm5-pcie-pivot-v3", "dev/vllm-9113-h100-pod-omp-oversubscription"]
)
def test_shipped_cases_follow_the_recipe(case: str) -> None:
    """Every whole probe of a shipped case, at its first and last steps."""
    events, _ = read_case_dir(ROOT / "cases" / case)
    projection = project(events)
    candidates = CaseService(MemoryEventStore(), builtin_registry()).reader.candidates(projection)
    seen = 0
    for seq in (projection.trajectory[0].seq, projection.last_seq):
        beliefs = ranking.beliefs_at(projection, seq)
        groups: dict[tuple[str, str], list[Rule]] = {}
        for candidate in candidates:
            belief = beliefs.get(candidate.rule.question)
            if belief is not None and ranking.worth_suggesting(candidate.rule, belief.structure):
                groups.setdefault((candidate.probe, candidate.rule.question), []).append(
                    candidate.rule
                )
        for (_, question), rules in groups.items():
            belief = beliefs[question]
            leaves = ranking._leaf_index(belief.paths())
            tables = [ranking._table(leaves, rule) for rule in rules]
            if len(tables) > 1:
                assert_same_bits(list(belief.probs), tables, ranking.MAX_JOINT_WORK)
                seen += 1
    assert seen > 5
