"""Derived views on small hand-checked cases: next steps, decisive evidence, pivots, surprise
and warnings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction as F
from typing import Any

import pytest

from casefile.domain import commands
from casefile.domain.beliefs.ranking import Candidate, rank_next_steps
from casefile.domain.beliefs.scoring import decisive_evidence
from casefile.domain.events import Event, NewEvent
from casefile.domain.facts import Fact
from casefile.domain.rule_loading import rule_from_dict
from casefile.domain.rules import Applied, Rule, SetAside, evaluate

from .builder import CaseBuilder
from .reasoning_helpers import CATCH, QID, conf, ev, hyp, new_case

# --- helpers ----------------------------------------------------------------------------------


def rule(
    rid: str,
    table: dict[str, dict[str, float]],
    load: str = "any",
    reliability: float = 1.0,
) -> Rule:
    names = list(table["otherwise"])
    return rule_from_dict(
        {
            "id": rid,
            "version": 1,
            "probes": [f"probe-{rid}"],
            "rationale": f"rule {rid}",
            "conditions": {"load": load},
            "statistic": {"aggregate": "max", "fact": "x"},
            "outcomes": [{"name": n, "below": float(i + 1)} for i, n in enumerate(names[:-1])]
            + [{"name": names[-1]}],
            "likelihoods": table,
            "reliability": reliability,
        },
        QID,
    )


def mutual_information(prior: Sequence[float], rows: Sequence[Sequence[float]]) -> float:
    """I(O; H) = H(O) − Σ_h p(h)·H(O | h), written independently of the engine's formula."""

    def entropy(ps: Sequence[float]) -> float:
        return -math.fsum(p * math.log2(p) for p in ps if p > 0.0)

    marginal = [math.fsum(p * q for p, q in zip(prior, row, strict=True)) for row in rows]
    columns = list(zip(*rows, strict=True))
    return entropy(marginal) - math.fsum(
        p * entropy(col) for p, col in zip(prior, columns, strict=True)
    )


def three_way() -> CaseBuilder:
    b = new_case()
    hyp(b, "A", QID, 0.4)
    hyp(b, "B", QID, 0.4)
    hyp(b, "C", QID, 0.1)  # catch-all 0.1
    return b


# --- next step --------------------------------------------------------------------------------


def test_the_probe_that_splits_the_two_leaders_ranks_first() -> None:
    b = three_way()
    even = {"x": 0.5, "y": 0.5}
    ab = rule("ab", {"A": {"x": 0.9, "y": 0.1}, "B": {"x": 0.1, "y": 0.9}, "otherwise": even})
    ac = rule("ac", {"A": {"x": 0.9, "y": 0.1}, "C": {"x": 0.1, "y": 0.9}, "otherwise": even})
    flat = {"x": 0.3, "y": 0.7}
    useless = rule("useless", {"A": flat, "B": flat, "C": flat, "otherwise": flat})
    useless_cheap = rule("useless-cheap", {"otherwise": flat})
    candidates = [
        Candidate("probe-useless", useless, "expensive"),
        Candidate("probe-ac", ac, "cheap"),
        Candidate("probe-useless-cheap", useless_cheap, "instant"),
        Candidate("probe-ab", ab, "expensive"),
    ]
    steps = rank_next_steps(b.projection, candidates)
    assert [s.probe for s in steps] == [
        "probe-ab",
        "probe-ac",
        "probe-useless-cheap",  # ties at 0 go to the cheaper probe
        "probe-useless",
    ]
    gains = {s.rule_id: s.expected_gain_bits for s in steps}
    assert gains["useless"] == 0.0 and gains["useless-cheap"] == 0.0  # exactly

    # By hand, leaves A, B, C, catch-all with priors 0.4, 0.4, 0.1, 0.1.
    # ab: P(x) = 0.4·0.9 + 0.4·0.1 + 0.1·0.5 + 0.1·0.5 = 0.5 = P(y), so
    #   I = 2 · [0.36·log2(0.9/0.5) + 0.04·log2(0.1/0.5)] (C and catch-all: log2(0.5/0.5) = 0)
    by_hand = 2 * (0.36 * math.log2(1.8) + 0.04 * math.log2(0.2))
    assert by_hand == pytest.approx(0.42480, abs=1e-5)
    assert gains["ab"] == pytest.approx(by_hand, rel=1e-9)
    # ac: P(x) = 0.36 + 0.2 + 0.01 + 0.05 = 0.62, P(y) = 0.38.
    prior = [0.4, 0.4, 0.1, 0.1]
    rows_ac = [[0.9, 0.5, 0.1, 0.5], [0.1, 0.5, 0.9, 0.5]]
    assert gains["ac"] == pytest.approx(mutual_information(prior, rows_ac), rel=1e-9)
    assert gains["ac"] == pytest.approx(0.22354, abs=1e-4)


def test_next_step_uses_the_current_belief_and_the_rules_reliability() -> None:
    b = three_way()
    even = {"x": 0.5, "y": 0.5}
    ab = rule("ab", {"A": {"x": 0.9, "y": 0.1}, "B": {"x": 0.1, "y": 0.9}, "otherwise": even})
    ab_half = rule(
        "ab-half",
        {"A": {"x": 0.9, "y": 0.1}, "B": {"x": 0.1, "y": 0.9}, "otherwise": even},
        reliability=0.5,
    )
    ev(b, {"A": 0.1, "B": 0.1, "C": 0.9})  # now C leads, A and B are weak
    # joint: A 0.04, B 0.04, C 0.09, catch-all 0.05; total 0.22.
    prior = [float(F(4, 22)), float(F(4, 22)), float(F(9, 22)), float(F(5, 22))]
    steps = {
        s.rule_id: s
        for s in rank_next_steps(b.projection, [Candidate("p", ab), Candidate("q", ab_half)])
    }
    rows = [[0.9, 0.1, 0.5, 0.5], [0.1, 0.9, 0.5, 0.5]]
    assert steps["ab"].expected_gain_bits == pytest.approx(
        mutual_information(prior, rows), rel=1e-9
    )
    # r = 0.5 tempers 0.9 → 0.7 and 0.1 → 0.3.
    tempered = [[0.7, 0.3, 0.5, 0.5], [0.3, 0.7, 0.5, 0.5]]
    assert steps["ab-half"].expected_gain_bits == pytest.approx(
        mutual_information(prior, tempered), rel=1e-9
    )
    assert steps["ab"].question_id == QID and steps["ab"].rationale == "rule ab"


def test_rules_of_another_question_are_not_ranked_for_this_one() -> None:
    b = three_way()
    even = {"x": 0.5, "y": 0.5}
    ab = rule("ab", {"A": {"x": 0.9, "y": 0.1}, "otherwise": even})
    assert rank_next_steps(b.projection, [Candidate("p", ab)], question_id="other") == []
    assert len(rank_next_steps(b.projection, [Candidate("p", ab)], question_id=QID)) == 1


# --- decisive evidence ------------------------------------------------------------------------


def test_decisive_evidence_single_piece_by_hand() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9}, reliability=0.5)
    # Posterior (7/12, 1/3, 1/12); without it, the prior (0.5, 0.4, 0.1).
    post, prior = [7 / 12, 1 / 3, 1 / 12], [0.5, 0.4, 0.1]
    kl = math.fsum(p * math.log2(p / q) for p, q in zip(post, prior, strict=True))
    [only] = decisive_evidence(b.projection)
    assert only.evidence_id == "e1" and only.kind == "measured"
    assert only.bits == pytest.approx(kl, rel=1e-9)


def test_decisive_evidence_ordering() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.6, "B": 0.5}, evidence_id="weak")
    ev(b, {"A": 0.5}, evidence_id="nothing", reliability=0.0)
    ev(b, {"A": 0.9, "B": 0.1}, evidence_id="strong")
    ev(b, {"A": 0.2, "B": 0.8}, evidence_id="revised")
    ev(b, {"A": 0.7, "B": 0.4}, evidence_id="middle", supersedes="revised")
    ranked = decisive_evidence(b.projection)
    assert [d.evidence_id for d in ranked] == ["strong", "middle", "weak", "nothing"]
    assert ranked[-1].bits == 0.0  # r = 0: removing it changes nothing, exactly
    assert all(d.bits > 0.0 for d in ranked[:-1])


# --- pivots and surprise ----------------------------------------------------------------------


def test_pivots_are_flagged_at_the_right_seq() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    e1 = ev(b, {"A": 0.1, "B": 0.9})  # A 0.05, B 0.36, catch-all 0.05: B leads
    e2 = ev(b, {"A": 0.9, "B": 0.1})  # A 0.045, B 0.036, catch-all 0.025: A leads
    ev(b, {"A": 0.5, "B": 0.5})  # nothing changes
    e4 = ev(b, {"A": 0.01, "B": 0.01})  # A 0.00045·… the catch-all leads
    projection = b.projection
    pivots = {step.seq: step.pivots for step in projection.pivots()}
    assert pivots == {
        e1.seq: {QID: ("A", "B")},
        e2.seq: {QID: ("B", "A")},
        e4.seq: {QID: ("A", CATCH)},
    }
    assert projection.snapshots[QID].leader == CATCH


def test_no_pivot_before_any_evidence() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.3)
    hyp(b, "B", QID, 0.5)  # B overtakes A by prior alone: not a pivot
    assert b.projection.snapshots[QID].leader == "B"
    assert b.projection.pivots() == []


def test_surprise_of_one_observation_by_hand() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    e1 = ev(b, {"A": 0.1, "B": 0.9})
    # P(E) = 0.5·0.1 + 0.4·0.9 + 0.1·0.5 = 0.46 under the belief just before.
    expected = -math.log2(0.46)
    projection = b.projection
    step = projection.trajectory[-1]
    assert step.seq == e1.seq
    assert step.surprise_bits == pytest.approx(expected, rel=1e-9)
    assert projection.evidence["e1"].surprise_bits == pytest.approx(expected, rel=1e-9)
    # How much likelier the best explanation (B, 0.9) made it than the belief did.
    assert step.unexpected_bits == pytest.approx(math.log2(0.9 / 0.46), rel=1e-9)
    # The next piece is judged under the updated belief (A 5/46, B 36/46, catch-all 5/46).
    ev(b, {"A": 0.9, "B": 0.05})
    p_e = 5 / 46 * 0.9 + 36 / 46 * 0.05 + 5 / 46 * 0.5
    assert b.projection.trajectory[-1].surprise_bits == pytest.approx(-math.log2(p_e), rel=1e-9)
    # Steps that are not evidence carry no surprise.
    assert all(
        s.surprise_bits is None for s in projection.trajectory if s.type != "evidence.assessed"
    )


# --- warnings ---------------------------------------------------------------------------------


def codes(warnings: Sequence[Any]) -> list[str]:
    return [w.code for w in warnings]


def test_never_measured_raised_and_cleared() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    e1 = ev(b, {"A": 0.9, "B": 0.2}, kind="calculated", reliability=None)  # r = 0.6
    projection = b.projection
    assert projection.snapshots[QID].leader == "A"
    [warning] = [w for w in projection.warnings.all() if w.code == "never-measured"]
    assert warning.seq == e1.seq and warning.subject == "A" and warning.question_id == QID
    assert warning.message == "'hypothesis A' leads on calculated evidence only: never measured"
    assert "never-measured" in codes(projection.trajectory[-1].raised)

    ev(b, {"A": 0.8}, kind="assumed", reliability=None)
    # A measurement that favours B (A still leads) does not clear it …
    ev(b, {"A": 0.5, "B": 0.6}, kind="measured")
    projection = b.projection
    assert projection.snapshots[QID].leader == "A"
    [still] = [w for w in projection.warnings.all() if w.code == "never-measured"]
    assert still.seq == e1.seq  # the same warning, still raised

    # … a measurement that supports A does.
    e4 = ev(b, {"A": 0.7}, kind="measured")
    projection = b.projection
    assert "never-measured" not in codes(projection.warnings.all())
    assert projection.trajectory[-1].seq == e4.seq
    assert codes(projection.trajectory[-1].cleared) == ["never-measured"]


def test_never_measured_returns_when_the_measurement_is_superseded() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    ev(b, {"A": 0.9}, kind="calculated", reliability=None)
    ev(b, {"A": 0.7}, kind="measured", evidence_id="m")
    assert "never-measured" not in codes(b.projection.warnings.all())
    ev(b, {"A": 0.5}, kind="measured", supersedes="m")  # no longer favours A
    assert "never-measured" in codes(b.projection.warnings.all())


def probe_run(b: CaseBuilder, load: str, probe: str = "nvidia-smi-dmon") -> Event:
    return b.add(
        NewEvent(
            "probe.ran",
            {
                "probe": probe,
                "argv": ["nvidia-smi", "dmon", "-c", "1"],
                "host": "gpu-host",
                "source": "local",
                "exit_status": 0,
                "conditions": {"load": load},
            },
        )
    )


def observation(b: CaseBuilder, run: Event, facts: list[Fact], load: str, **extra: Any) -> Event:
    return b.add(
        NewEvent(
            "observation.recorded",
            {
                "probe_run_seq": run.seq,
                "probe": run.payload["probe"],
                "facts": [f.to_dict() for f in facts],
                "conditions": {"load": load},
                **extra,
            },
        )
    )


def utilisation_rule() -> Rule:
    return rule(
        "sm-busy",
        {
            "A": {"low": 0.1, "high": 0.9},
            "otherwise": {"low": 0.5, "high": 0.5},
        },
        load="under-load",
        reliability=0.9,
    )


def test_set_aside_reading_raises_a_warning_that_stays() -> None:
    b = new_case()
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    facts = [Fact("x", 0.0, "gpu0", "%")]
    run = probe_run(b, "idle")
    obs = observation(b, run, facts, "idle")
    verdict = evaluate(utilisation_rule(), facts, "idle")
    assert isinstance(verdict, SetAside)
    before = conf(b)
    aside = b.add(commands.set_aside(verdict, obs.seq))
    projection = b.projection
    assert conf(projection) == before  # a set-aside reading moves nothing
    [warning] = [w for w in projection.warnings.all() if w.code == "set-aside"]
    assert warning.seq == aside.seq
    assert warning.subject == f"{obs.seq}:sm-busy"
    assert verdict.reason.startswith("taken at idle; rule sm-busy ")
    assert warning.message == f"reading {obs.seq} set aside by rule sm-busy v1: {verdict.reason}"
    assert codes(projection.trajectory[-1].raised) == ["set-aside"]
    assert projection.graph.nodes[f"obs:{obs.seq}"]["set_aside"] == [verdict.reason]

    # The same rule on a reading under load gives evidence; the set-aside record stays.
    run2 = probe_run(b, "under-load")
    loaded = [Fact("x", 5.0, "gpu0", "%")]
    obs2 = observation(b, run2, loaded, "under-load")
    applied = evaluate(utilisation_rule(), loaded, "under-load")
    assert isinstance(applied, Applied) and applied.outcome == "high"
    b.add(commands.evidence_from_rule(b.projection, applied, obs2.seq, run2.seq))
    projection = b.projection
    assert "set-aside" in codes(projection.warnings.all())
    # P'(high | A) = 0.9·0.9 + 0.1·0.5 = 0.86; B and catch-all 0.5.
    total = 0.5 * 0.86 + 0.4 * 0.5 + 0.1 * 0.5
    assert conf(projection)["A"] == pytest.approx(0.5 * 0.86 / total, rel=1e-9)
    state = projection.evidence["e1"]
    assert state.rule == {"id": "sm-busy", "version": 1} and state.observation_seq == obs2.seq


def test_unparsed_output_raises_a_warning() -> None:
    b = new_case()
    run = probe_run(b, "under-load")
    obs = observation(b, run, [], "under-load", parsed=False, problems=["no header line"])
    projection = b.projection
    [warning] = projection.warnings.all()
    assert warning.code == "unparsed"
    assert warning.seq == obs.seq and warning.subject == f"obs:{obs.seq}"
    assert warning.message == (
        f"output of nvidia-smi-dmon (probe run {run.seq}) did not parse: no header line; "
        "the raw output is kept"
    )
    assert codes(projection.trajectory[-1].raised) == ["unparsed"]
    # A parsed observation raises nothing.
    observation(b, probe_run(b, "idle"), [Fact("x", 1.0)], "idle")
    assert codes(b.projection.warnings.all()) == ["unparsed"]


def test_decisive_evidence_survives_a_leaf_that_underflows() -> None:
    """36 likelihoods of 1e-9 push A ~746 nats down: its probability is a denormal with the
    last piece and underflows to 0 without it. Leave-one-out must not divide by that 0."""
    b = new_case(incremental=True)
    hyp(b, "A", QID, 0.5)
    hyp(b, "B", QID, 0.4)
    for _ in range(36):
        ev(b, {"A": 1e-9, "B": 1.0}, otherwise=1.0)
    ev(b, {"A": 1.0, "B": 1e-9}, otherwise=1e-9, evidence_id="last")
    ev(b, {"B": 0.9}, otherwise=0.3, evidence_id="telling")
    _, probs = b.projection.questions[QID].leaf_distribution
    assert 0.0 < probs[0] < 1e-300  # A is tiny but not 0
    ranked = decisive_evidence(b.projection)
    assert len(ranked) == 38
    assert all(math.isfinite(d.bits) and d.bits >= 0.0 for d in ranked)
    # B vs the catch-all: 0.4·0.9 : 0.1·0.3 = 12 : 1 with "telling", 4 : 1 without it.
    post, prior = [12 / 13, 1 / 13], [4 / 5, 1 / 5]
    kl = math.fsum(p * math.log2(p / q) for p, q in zip(post, prior, strict=True))
    assert ranked[0].evidence_id == "telling"
    assert ranked[0].bits == pytest.approx(kl, rel=1e-9)
    # The rest scale B and the catch-all alike or move only A's negligible mass.
    assert all(d.bits < 1e-12 for d in ranked[1:])
