"""Ranking whole probes: one run feeds every rule that reads the probe."""

from __future__ import annotations

import pytest

from casefile.domain import commands as c
from casefile.domain.beliefs.ranking import Candidate, rank_next_steps, rank_probes
from casefile.domain.rule_loading import rule_from_dict
from casefile.domain.rules import Rule
from tests.engine.builder import CaseBuilder


def rule(rid: str, probes: list[str], table: dict[str, dict[str, float]]) -> Rule:
    return rule_from_dict(
        {
            "id": rid,
            "version": 1,
            "probes": probes,
            "rationale": "test",
            "statistic": {"aggregate": "mean", "fact": "x"},
            "outcomes": [{"name": "lo", "below": 1.0}, {"name": "hi"}],
            "likelihoods": table,
        },
        question="q",
    )


@pytest.fixture
def case() -> CaseBuilder:
    b = CaseBuilder()
    b.add(c.propose_question(b.projection, "q", question_id="q"))
    b.add(c.propose_hypothesis(b.projection, "A", "q", 0.45, "a"))
    b.add(c.propose_hypothesis(b.projection, "B", "q", 0.45, "b"))
    return b


def test_a_probe_feeding_two_informative_rules_beats_each_rule_alone(case: CaseBuilder) -> None:
    r1 = rule("r1", ["both"], {"a": {"lo": 0.9, "hi": 0.1}, "otherwise": {"lo": 0.5, "hi": 0.5}})
    r2 = rule(
        "r2", ["both", "single"], {"b": {"lo": 0.2, "hi": 0.8}, "otherwise": {"lo": 0.5, "hi": 0.5}}
    )
    candidates = [Candidate("both", r1), Candidate("both", r2), Candidate("single", r2)]
    pairs = {
        (s.probe, s.rule_id): s.expected_gain_bits
        for s in rank_next_steps(case.projection, candidates)
    }
    probes = {s.probe: s for s in rank_probes(case.projection, candidates)}
    assert probes["both"].rules == ("r1", "r2")
    assert probes["both"].expected_gain_bits > max(pairs[("both", "r1")], pairs[("both", "r2")])
    # joint information never exceeds the sum of the parts' (outcomes independent given h)
    assert probes["both"].expected_gain_bits <= pairs[("both", "r1")] + pairs[("both", "r2")]
    # a probe with one rule is worth exactly that rule
    assert probes["single"].expected_gain_bits == pytest.approx(pairs[("single", "r2")], abs=1e-12)
    assert next(s.probe for s in rank_probes(case.projection, candidates)) == "both"


def test_an_uninformative_probe_scores_zero(case: CaseBuilder) -> None:
    flat = rule("flat", ["p"], {"otherwise": {"lo": 0.3, "hi": 0.7}})
    (step,) = rank_probes(case.projection, [Candidate("p", flat)])
    assert step.expected_gain_bits == 0.0
