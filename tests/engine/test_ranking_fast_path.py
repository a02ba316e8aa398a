"""The fast whole-probe ranking gives the very floats of the plain computation.

``tests/engine/ranking_reference.py`` keeps the element-by-element arithmetic; these tests run
it beside the shipped code on generated inputs and on every shipped case (the reference case,
its version-3 encoding and the development set), and compare bit for bit: the same order, the
same bits to the last digit. They also hold the memo to its word: the same inputs are not
enumerated twice, and a changed number is.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.app.service import CaseService
from casefile.domain import commands as c
from casefile.domain.beliefs import joint, project, ranking
from casefile.domain.beliefs.arithmetic import mutual_information_bits
from casefile.domain.beliefs.ranking import Candidate, rank_next_steps, rank_probes
from casefile.domain.rules import rule_from_dict
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry
from tests.engine import ranking_reference as reference
from tests.engine.builder import CaseBuilder

ROOT = Path(__file__).resolve().parents[2]
CASES = [
    ROOT / "casefile" / "reference" / "glm5-pcie-pivot",
    ROOT / "cases" / "glm5-pcie-pivot-v3",
    *sorted(p for p in (ROOT / "cases" / "dev").iterdir() if (p / "events.jsonl").is_file()),
]
#: steps of each case ranked both ways, spread over its history (the last always among them)
STEPS_PER_CASE = 4

# likelihoods as playbooks write them (a few rounded values, repeated rows) and as tempering
# leaves them (any float in [0, 1]); with zeros allowed or not, since a zero anywhere in a
# product sends it down the row-by-row path
ROUNDED = [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


def likelihoods(zeros: bool) -> st.SearchStrategy[float]:
    return st.one_of(
        st.sampled_from([0.0, *ROUNDED] if zeros else ROUNDED),
        st.floats(min_value=0.0 if zeros else 1e-6, max_value=1.0),
    )


@st.composite
def belief_and_tables(draw: st.DrawFn) -> tuple[list[float], list[list[list[float]]]]:
    zeros = draw(st.booleans())
    leaves = draw(st.integers(min_value=1, max_value=12))
    weight = st.floats(min_value=1e-300, max_value=1.0)
    weights = draw(
        st.lists(
            st.one_of(st.just(0.0), weight) if zeros else weight,
            min_size=leaves,
            max_size=leaves,
        )
    )
    total = math.fsum(weights)
    # merged classes' priors need not sum to exactly 1, so neither do these, half the time
    normalised = total > 0.0 and draw(st.booleans())
    probs = [w / total for w in weights] if normalised else weights
    rules = draw(st.integers(min_value=1, max_value=5))
    row = st.lists(likelihoods(zeros), min_size=leaves, max_size=leaves)
    tables = [draw(st.lists(row, min_size=2, max_size=3)) for _ in range(rules)]
    return probs, tables


def same_float(a: float, b: float) -> bool:
    return a.hex() == b.hex()


@settings(max_examples=300, deadline=None)
@given(belief_and_tables())
def test_one_table_is_scored_to_the_last_digit(
    case: tuple[list[float], list[list[list[float]]]],
) -> None:
    probs, tables = case
    for table in tables:
        assert same_float(
            mutual_information_bits(probs, table),
            reference.mutual_information_bits(probs, table),
        )


@settings(max_examples=300, deadline=None)
@given(belief_and_tables(), st.sampled_from([1, 20, 200, ranking.MAX_JOINT_WORK]))
def test_a_whole_probe_is_scored_to_the_last_digit(
    case: tuple[list[float], list[list[list[float]]]], budget: int
) -> None:
    probs, tables = case
    joint.forget()
    fast = ranking.joint_information_bits(probs, tables, budget)
    again = ranking.joint_information_bits(probs, tables, budget)  # remembered
    assert same_float(fast, reference.joint_information_bits(probs, tables, budget))
    assert same_float(again, fast)
    joint.forget()


@settings(max_examples=300, deadline=None)
@given(belief_and_tables())
def test_the_joint_outcomes_of_some_rules_are_scored_to_the_last_digit(
    case: tuple[list[float], list[list[list[float]]]],
) -> None:
    probs, tables = case
    rows = joint.product_rows(len(probs), tables)
    assert rows == reference_rows(len(probs), tables)
    assert same_float(
        joint.product_information_bits(probs, tables),
        reference.mutual_information_bits(probs, rows),
    )


def test_a_joint_outcome_alike_under_every_class_adds_no_term() -> None:
    # the first outcome of each rule is equally likely everywhere, so their joint outcome is
    # too; its terms would not be exactly zero (the marginal is q times a sum of priors that
    # is not exactly 1), so leaving them out shows in the last digits
    probs = [0.7, 0.1, 0.1, 0.1]
    tables = [
        [[0.45] * 4, [0.2, 0.4, 0.3, 0.1], [0.35, 0.15, 0.25, 0.45]],
        [[0.35] * 4, [0.6, 0.6, 0.5, 0.6], [0.05, 0.05, 0.15, 0.05]],
    ]
    rows = joint.product_rows(4, tables)
    assert max(rows[0]) == min(rows[0])
    assert same_float(
        joint.product_information_bits(probs, tables),
        reference.mutual_information_bits(probs, rows),
    )


def reference_rows(width: int, tables: list[list[list[float]]]) -> list[list[float]]:
    rows: list[list[float]] = [[1.0] * width]
    for table in tables:
        rows = [[a * b for a, b in zip(row, o, strict=True)] for row in rows for o in table]
    return rows


def test_the_rows_are_the_same_products_in_the_same_order() -> None:
    tables = [[[0.1, 0.3], [0.9, 0.7]], [[0.2, 0.6], [0.3, 0.1], [0.5, 0.3]]]
    rows = joint.product_rows(2, tables)
    assert rows == [
        [1.0 * a * b for a, b in zip(first, second, strict=True)]
        for first in tables[0]
        for second in tables[1]
    ]
    assert joint.product_rows(3, []) == [[1.0, 1.0, 1.0]]


def test_the_same_belief_and_tables_are_enumerated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    collapse = ranking.collapse

    def counted(
        probs: list[float], tables: list[list[list[float]]]
    ) -> tuple[list[float], list[list[list[float]]]]:
        calls.append(1)
        return collapse(probs, tables)

    monkeypatch.setattr(ranking, "collapse", counted)
    joint.forget()
    probs = [0.5, 0.3, 0.2]
    tables = [[[0.9, 0.2, 0.5], [0.1, 0.8, 0.5]], [[0.3, 0.3, 0.6], [0.7, 0.7, 0.4]]]
    first = ranking.joint_information_bits(probs, tables)
    assert ranking.joint_information_bits(list(probs), [list(t) for t in tables]) == first
    assert len(calls) == 1
    moved = [0.5, 0.3 + 1e-12, 0.2 - 1e-12]  # one number moved by a hair: computed again
    ranking.joint_information_bits(moved, tables)
    assert len(calls) == 2
    joint.forget()


def both_rankings(projection: object, candidates: list[ranking.Candidate], seq: int) -> str:
    """Both rankings ``status`` shows at one step, as text that holds every float exactly."""
    joint.forget()
    pairs = rank_next_steps(projection, candidates, seq=seq)  # type: ignore[arg-type]
    probes = rank_probes(projection, candidates, seq=seq)  # type: ignore[arg-type]
    return repr((pairs, probes))


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_every_shipped_case_ranks_the_same(case_dir: Path) -> None:
    events, _ = read_case_dir(case_dir)
    projection = project(events)
    candidates = CaseService(MemoryEventStore(), builtin_registry()).reader.candidates(projection)
    assert candidates
    seqs = [step.seq for step in projection.trajectory]
    picked = sorted(
        {seqs[len(seqs) * (k + 1) // STEPS_PER_CASE - 1] for k in range(STEPS_PER_CASE)}
    )
    for seq in picked:
        fast = both_rankings(projection, candidates, seq)
        with reference.reference_ranking():
            plain = both_rankings(projection, candidates, seq)
        assert fast == plain, f"{case_dir.name} at seq {seq}"


def generated_case(seed: int) -> tuple[object, list[Candidate]]:
    """A seeded question: 4 top-level hypotheses with 3 children each, and 8 probes of 2 to 6
    rules, each rule naming a few random nodes with 2 or 3 outcomes (like the playbook's)."""
    rng = random.Random(seed)
    b = CaseBuilder()
    b.add(c.propose_question(b.projection, "q", question_id="q"))
    ids = []
    for top in range(4):
        b.add(c.propose_hypothesis(b.projection, f"t{top}", "q", 0.22, f"t{top}"))
        ids.append(f"t{top}")
        for child in range(3):
            hid = f"t{top}c{child}"
            b.add(c.propose_hypothesis(b.projection, hid, f"t{top}", 0.3, hid))
            ids.append(hid)
    candidates = []
    for probe in range(8):
        for number in range(rng.randint(2, 6)):
            outcomes = ["a", "b", "c"][: rng.choice((2, 3))]
            table = {}
            for hid in [*rng.sample(ids, rng.randint(2, 6)), "otherwise"]:
                weights = [rng.choice((0.0, rng.random())) + 0.01 for _ in outcomes]
                table[hid] = {o: w / sum(weights) for o, w in zip(outcomes, weights, strict=True)}
            rule = rule_from_dict(
                {
                    "id": f"p{probe}r{number}",
                    "version": 1,
                    "probes": [f"probe{probe}"],
                    "rationale": "generated",
                    "statistic": {"aggregate": "max", "fact": f"f{number}"},
                    "outcomes": [
                        *({"name": o, "below": float(i)} for i, o in enumerate(outcomes[:-1])),
                        {"name": outcomes[-1]},
                    ],
                    "likelihoods": table,
                },
                "q",
            )
            candidates.append(Candidate(f"probe{probe}", rule, "cheap"))
    return b.projection, candidates


@pytest.mark.parametrize("seed", range(6))
def test_generated_cases_rank_the_same(seed: int) -> None:
    projection, candidates = generated_case(seed)
    seq = projection.last_seq  # type: ignore[attr-defined]
    fast = both_rankings(projection, candidates, seq)
    with reference.reference_ranking():
        plain = both_rankings(projection, candidates, seq)
    assert fast == plain
    assert "probe" in fast
