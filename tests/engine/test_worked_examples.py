"""Worked examples, computed by hand with exact fractions, checked against the engine.

Each test writes the arithmetic out: absolute leaf priors, the (tempered) likelihood each leaf
gets, the unnormalised joint prior × likelihood, and the posterior = joint / Σ joint. The engine
quantises log-likelihoods to 2⁻⁴⁰ nats, so it agrees with the exact fractions to ~1e-12.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from casefile.domain import commands
from casefile.domain.beliefs import project
from casefile.errors import DomainError

from .reasoning_helpers import (
    CATCH,
    QID,
    check_coherent,
    conf,
    ev,
    hyp,
    new_case,
    reinstate,
    retire,
)


def approx(value: F | float) -> object:
    return pytest.approx(float(value), rel=1e-9)


def assert_distribution(actual: dict[str, float], expected: dict[str, F]) -> None:
    for key, value in expected.items():
        assert actual[key] == approx(value), key


# --- (a) a two-level tree ---------------------------------------------------------------------


def test_two_level_tree_one_piece_of_evidence() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.6)
    hyp(b, "A1", "A", 0.5)  # a share of A's 0.6
    hyp(b, "A2", "A", 0.3)
    hyp(b, "B", QID, 0.3)

    # Leaf priors: A1 = 0.6·0.5 = 0.30, A2 = 0.6·0.3 = 0.18, A's own = 0.6·(1 − 0.8) = 0.12,
    # B = 0.30, catch-all = 1 − 0.6 − 0.3 = 0.10.
    before = conf(b)
    assert_distribution(
        before,
        {"A": F(6, 10), "A1": F(3, 10), "A2": F(18, 100), "B": F(3, 10), CATCH: F(1, 10)},
    )

    ev(b, {"A": 0.8, "A2": 0.2, "B": 0.4}, otherwise=0.5, reliability=1.0)
    # Likelihoods per leaf: A1 has none of its own → inherits A's 0.8; A2 = 0.2; A's own = 0.8;
    # B = 0.4; catch-all = otherwise = 0.5.
    joint = {
        "A1": F(3, 10) * F(8, 10),  # 0.24
        "A2": F(18, 100) * F(2, 10),  # 0.036
        "A-own": F(12, 100) * F(8, 10),  # 0.096
        "B": F(3, 10) * F(4, 10),  # 0.12
        CATCH: F(1, 10) * F(5, 10),  # 0.05
    }
    total = sum(joint.values())
    assert total == F(542, 1000)
    expected = {
        "A1": F(240, 542),
        "A2": F(36, 542),
        "A": F(240 + 36 + 96, 542),  # 0.372 / 0.542: the sum of A's subtree
        "B": F(120, 542),
        CATCH: F(50, 542),
    }
    assert {k: v / total for k, v in joint.items() if k != "A-own"} == {
        k: v for k, v in expected.items() if k != "A"
    }
    after = conf(b)
    assert_distribution(after, expected)

    # A parent is the sum of its subtree: A = A1 + A2 + A's own leaf (0.096 / 0.542).
    assert after["A"] == pytest.approx(after["A1"] + after["A2"] + 96 / 542, rel=1e-12)
    assert after["A"] + after["B"] + after[CATCH] == pytest.approx(1.0, abs=1e-12)
    check_coherent(b.projection)

    snapshot = b.projection.snapshots[QID]
    assert snapshot.leader == "A"
    assert snapshot.leading_leaf == "A1"  # 0.24 beats A2 (0.036) and A's own (0.096)


# --- (b) the catch-all rises when every named hypothesis is contradicted ----------------------


def test_catch_all_rises_when_every_named_hypothesis_is_contradicted() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)  # catch-all prior = 0.1
    assert not [w for w in b.projection.warnings.all() if w.code == "catch-all-rising"]

    first = ev(b, {"A": 0.1, "B": 0.1}, otherwise=0.5)
    # After one: joint A = 0.5·0.1 = 0.05, B = 0.4·0.1 = 0.04, catch-all = 0.1·0.5 = 0.05
    # → catch-all = 0.05 / 0.14 = 5/14 ≈ 0.357 > 1.5 × 0.1: the warning is raised here.
    assert conf(b)[CATCH] == approx(F(5, 14))
    step = b.projection.trajectory[-1]
    assert step.seq == first.seq
    assert [w.code for w in step.raised] == ["catch-all-rising"]

    ev(b, {"A": 0.2, "B": 0.05}, otherwise=0.5)
    ev(b, {"A": 0.05, "B": 0.2}, otherwise=0.5)
    # After three: A = 0.5 · (0.1·0.2·0.05) = 0.5 · 0.001   = 0.0005
    #              B = 0.4 · (0.1·0.05·0.2) = 0.4 · 0.001   = 0.0004
    #      catch-all = 0.1 · 0.5³           = 0.1 · 0.125   = 0.0125
    # total = 0.0134 → catch-all = 0.0125 / 0.0134 = 125/134 ≈ 0.933.
    total = F(5, 10000) + F(4, 10000) + F(125, 10000)
    expected = {
        "A": F(5, 10000) / total,
        "B": F(4, 10000) / total,
        CATCH: F(125, 10000) / total,
    }
    assert expected[CATCH] == F(125, 134)
    projection = b.projection
    assert_distribution(conf(projection), expected)
    assert projection.snapshots[QID].leader == CATCH
    rising = [w for w in projection.warnings.all() if w.code == "catch-all-rising"]
    assert len(rising) == 1
    assert rising[0].seq == first.seq
    assert rising[0].question_id == QID
    # The warning keeps the message it was raised with (at 5/14 ≈ 36%).
    assert "36%" in rising[0].message and "prior 10%" in rising[0].message
    check_coherent(projection)


# --- (c) tempering by reliability -------------------------------------------------------------


def test_tempering_by_reliability() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9}, otherwise=0.5, reliability=0.5)
    # P'(E|A) = 0.5·0.9 + 0.5·0.5 = 0.7; B and the catch-all get o = 0.5 (tempering o is o).
    # joint: A = 0.5·0.7 = 0.35, B = 0.4·0.5 = 0.2, catch-all = 0.1·0.5 = 0.05; total 0.6.
    assert_distribution(conf(b), {"A": F(7, 12), "B": F(1, 3), CATCH: F(1, 12)})
    effect = b.projection.evidence["e1"].effect
    assert effect is not None  # folded here, not restored from a saved fold
    assert effect.leaf_likelihoods["A"] == pytest.approx(0.7)


def test_tempering_with_another_otherwise() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9}, otherwise=0.2, reliability=0.5)
    # P'(E|A) = 0.5·0.9 + 0.5·0.2 = 0.55; B = catch-all = 0.2.
    # joint: 0.275, 0.08, 0.02; total 0.375.
    assert_distribution(conf(b), {"A": F(275, 375), "B": F(80, 375), CATCH: F(20, 375)})


def test_default_reliability_of_a_kind_is_the_same_as_giving_it() -> None:
    explicit, default = new_case(), new_case()
    for b in (explicit, default):
        hyp(b, "A", QID, 0.5)
        hyp(b, "B", QID, 0.4)
    ev(explicit, {"A": 0.9}, kind="reported", reliability=0.5)
    ev(default, {"A": 0.9}, kind="reported", reliability=None)
    assert commands.DEFAULT_RELIABILITY["reported"] == 0.5
    assert default.events[-1].payload["reliability"] == 0.5
    assert conf(default) == conf(explicit)
    assert_distribution(conf(default), {"A": F(7, 12), "B": F(1, 3), CATCH: F(1, 12)})


# --- (d) a superseded assessment --------------------------------------------------------------


def test_superseded_assessment_counts_only_the_latest() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    first = ev(b, {"A": 0.9, "B": 0.3}, evidence_id="e1")
    # e1: joint A = 0.45, B = 0.12, catch-all = 0.05; total 0.62.
    after_first = {"A": F(45, 62), "B": F(12, 62), CATCH: F(5, 62)}
    assert_distribution(conf(b), after_first)

    second = ev(b, {"A": 0.2, "B": 0.6}, evidence_id="e2", supersedes="e1")
    # Only e2 counts: joint A = 0.1, B = 0.24, catch-all = 0.05; total 0.39.
    after_second = {"A": F(10, 39), "B": F(24, 39), CATCH: F(5, 39)}
    assert_distribution(conf(b), after_second)

    only_latest = new_case()
    hyp(only_latest, "A", QID, 0.5)
    hyp(only_latest, "B", QID, 0.4)
    ev(only_latest, {"A": 0.2, "B": 0.6}, evidence_id="e2")
    assert conf(b) == conf(only_latest)  # bit-identical: the integer scores are the same

    # Replay shows both events, and the earlier step still shows the numbers it had then.
    projection = project(b.events)
    assert [e.type for e in projection.events].count("evidence.assessed") == 2
    assert projection.evidence["e1"].superseded_by == "e2"
    assert projection.evidence["e2"].supersedes == "e1"
    assert not projection.evidence["e1"].active and projection.evidence["e2"].active
    steps = {step.seq: step for step in projection.trajectory}
    assert_distribution(steps[first.seq].snapshots[QID].confidences, after_first)
    assert_distribution(steps[second.seq].snapshots[QID].confidences, after_second)
    assert steps[second.seq].pivots == {QID: ("A", "B")}
    # Superseding does not change the count of evidence the question has seen.
    assert projection.questions[QID].evidence_count == 1


def test_supersede_chain_and_refusals() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9}, evidence_id="e1")
    ev(b, {"A": 0.6}, evidence_id="e2", supersedes="e1")
    ev(b, {"A": 0.3}, evidence_id="e3", supersedes="e2")
    # Only e3: joint A = 0.15, B = 0.2, catch-all = 0.05; total 0.4.
    assert_distribution(conf(b), {"A": F(15, 40), "B": F(20, 40), CATCH: F(5, 40)})
    with pytest.raises(DomainError, match="already superseded by e2"):
        commands.assess_evidence(b.projection, {"A": 0.5}, "again", supersedes="e1")
    with pytest.raises(DomainError, match="no evidence 'nope' to supersede"):
        commands.assess_evidence(b.projection, {"A": 0.5}, "again", supersedes="nope")


# --- (e) a late hypothesis carved out of the catch-all ----------------------------------------


def test_late_hypothesis_is_carved_out_of_the_catch_all() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    # Before any evidence the catch-all keeps its reserve of 0.1: nothing more can be named.
    with pytest.raises(DomainError, match="larger than the catch-all"):
        commands.propose_hypothesis(b.projection, "new", QID, 0.06, "N")

    ev(b, {"A": 0.2, "B": 0.2}, otherwise=0.5)
    # joint: A = 0.1, B = 0.08, catch-all = 0.05; total 0.23.
    assert_distribution(conf(b), {"A": F(10, 23), "B": F(8, 23), CATCH: F(5, 23)})

    # After evidence, a new hypothesis may take part of what the catch-all holds (0.1) …
    with pytest.raises(DomainError, match="larger than the catch-all"):
        commands.propose_hypothesis(b.projection, "too big", QID, 0.1, "N")
    hyp(b, "N", QID, 0.06)
    # … and has seen what the catch-all saw (o = 0.5): N = 0.06·0.5 = 0.03, catch-all =
    # 0.04·0.5 = 0.02. Nothing else moves: A 0.1, B 0.08; total still 0.23.
    expected = {"A": F(10, 23), "B": F(8, 23), "N": F(3, 23), CATCH: F(2, 23)}
    assert_distribution(conf(b), expected)
    assert b.projection.questions[QID].catch_all_prior() == pytest.approx(0.04)

    # Later evidence can name it: N = 0.9, others otherwise 0.5.
    ev(b, {"N": 0.9}, otherwise=0.5)
    # joint: A 0.05, B 0.04, N 0.027, catch-all 0.01; total 0.127.
    assert_distribution(
        conf(b),
        {"A": F(50, 127), "B": F(40, 127), "N": F(27, 127), CATCH: F(10, 127)},
    )
    check_coherent(b.projection)


def test_late_child_inherits_what_its_parent_saw() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.6)
    hyp(b, "B", QID, 0.3)
    ev(b, {"A": 0.8, "B": 0.4}, otherwise=0.5)
    hyp(b, "A1", "A", 0.25)
    # A1 = 0.6·0.25 = 0.15 with A's 0.8 → 0.12; A's own = 0.45·0.8 = 0.36; B = 0.12;
    # catch-all = 0.05; total 0.65 (A's total, 0.48, did not move).
    assert_distribution(conf(b), {"A": F(48, 65), "A1": F(12, 65), "B": F(12, 65), CATCH: F(5, 65)})


# --- (f) retire and reinstate -----------------------------------------------------------------


def test_retire_and_reinstate() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.8, "B": 0.4})
    # joint: A 0.4, B 0.16, catch-all 0.05; total 0.61.
    assert_distribution(conf(b), {"A": F(40, 61), "B": F(16, 61), CATCH: F(5, 61)})

    retire(b, "B")
    # B is out: the rest renormalise over 0.45.
    assert conf(b)["B"] == 0.0
    assert_distribution(conf(b), {"A": F(40, 45), CATCH: F(5, 45)})
    check_coherent(b.projection)

    with pytest.raises(DomainError, match="'B' is retired"):
        commands.assess_evidence(b.projection, {"B": 0.9}, "on a retired one")
    ev(b, {"A": 0.3})
    # While retired: A 0.4·0.3 = 0.12, catch-all 0.05·0.5 = 0.025; total 0.145.
    assert_distribution(conf(b), {"A": F(120, 145), CATCH: F(25, 145)})

    reinstate(b, "B")
    # Back with all evidence re-applied: B = 0.16 · 0.5 (e2 did not name it) = 0.08.
    # total 0.12 + 0.08 + 0.025 = 0.225.
    assert_distribution(conf(b), {"A": F(120, 225), "B": F(80, 225), CATCH: F(25, 225)})
    check_coherent(b.projection)


def test_retiring_a_parent_zeroes_its_subtree_and_reinstating_restores_it() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.6)
    hyp(b, "A1", "A", 0.5)
    hyp(b, "B", QID, 0.3)
    ev(b, {"A1": 0.9, "B": 0.5}, otherwise=0.5)
    before = conf(b)
    retire(b, "A")
    # Left: B 0.3·0.5 = 0.15, catch-all 0.1·0.5 = 0.05.
    c = conf(b)
    assert c["A"] == 0.0 and c["A1"] == 0.0
    assert_distribution(c, {"B": F(3, 4), CATCH: F(1, 4)})
    with pytest.raises(DomainError, match="retired"):
        commands.propose_hypothesis(b.projection, "child", "A", 0.1, "A2")
    reinstate(b, "A")
    assert conf(b) == before  # exactly as before: the integer scores never changed


# --- two questions are independent ------------------------------------------------------------


def test_evidence_on_one_question_leaves_the_other_alone() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    b.add(commands.propose_question(b.projection, "why is it slow at night?", question_id="q2"))
    hyp(b, "cron", "q2", 0.3)
    before = b.projection.questions[QID].confidences
    event = ev(b, {"cron": 0.9})
    projection = b.projection
    assert projection.questions[QID].confidences == before
    step = projection.trajectory[-1]
    assert step.seq == event.seq and step.changed == frozenset({"q2"})
    # cron: 0.3·0.9 = 0.27, catch-all 0.7·0.5 = 0.35; total 0.62.
    assert projection.questions["q2"].confidences["cron"] == approx(F(27, 62))
    assert set(step.snapshots) == {QID, "q2"}
