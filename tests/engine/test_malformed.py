"""Malformed input is refused with an error that names the problem (and what exists instead)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from casefile.domain import commands
from casefile.domain.beliefs import project
from casefile.domain.events import NewEvent
from casefile.domain.playbook import load_playbook, playbook_from_dict
from casefile.domain.rule_loading import rule_from_dict
from casefile.errors import DomainError, RuleError

from .builder import CaseBuilder
from .reasoning_helpers import QID, ev, hyp, new_case, retire


def two_hypotheses() -> CaseBuilder:
    b = new_case()
    hyp(b, "pcie", QID, 0.5)
    hyp(b, "launch", QID, 0.4)
    return b


# --- evidence ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 0.0, 1.5, -0.1, math.nan, math.inf, -math.inf])
def test_likelihood_outside_unit_interval_names_the_hypothesis(value: float) -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError, match=r"likelihood for 'launch' is .*within \(0, 1\]"):
        commands.assess_evidence(b.projection, {"pcie": 0.5, "launch": value}, "x")


@pytest.mark.parametrize("value", [0.0, 1.5, -0.1, math.nan])
def test_otherwise_outside_unit_interval_is_named(value: float) -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError, match="likelihood for 'otherwise'"):
        commands.assess_evidence(b.projection, {"pcie": 0.5}, "x", otherwise=value)


def test_likelihood_of_exactly_one_is_accepted() -> None:
    b = two_hypotheses()
    before = b.projection.confidences()
    event = ev(b, {"pcie": 1.0}, otherwise=1.0)
    assert event.payload["likelihoods"] == {"pcie": 1.0} and event.payload["otherwise"] == 1.0
    # P(E|h) = 1 for every leaf says nothing: the distribution does not move
    assert b.projection.confidences() == before


def test_unknown_hypothesis_lists_known_ones() -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError) as error:
        commands.assess_evidence(b.projection, {"pcie": 0.5, "nvlink": 0.2}, "x")
    message = str(error.value)
    assert "'nvlink'" in message
    assert "known: launch, pcie" in message


def test_evidence_on_a_retired_hypothesis() -> None:
    b = two_hypotheses()
    retire(b, "pcie")
    with pytest.raises(DomainError, match="hypothesis 'pcie' is retired; evidence cannot bear"):
        commands.assess_evidence(b.projection, {"pcie": 0.5}, "x")


def test_evidence_on_a_child_of_a_retired_hypothesis() -> None:
    b = two_hypotheses()
    hyp(b, "pcie-bw", "pcie", 0.5)
    retire(b, "pcie")
    with pytest.raises(DomainError, match="'pcie-bw' is retired"):
        commands.assess_evidence(b.projection, {"pcie-bw": 0.5}, "x")


def test_evidence_spanning_two_questions() -> None:
    b = two_hypotheses()
    b.add(commands.propose_question(b.projection, "another?", question_id="q2"))
    hyp(b, "other", "q2", 0.5)
    with pytest.raises(DomainError, match=r"these span \['q', 'q2'\]"):
        commands.assess_evidence(b.projection, {"pcie": 0.5, "other": 0.5}, "x")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "guessed"}, "evidence kind 'guessed': use one of measured, calculated"),
        ({"reliability": 1.5}, r"reliability 1.5 must be within \[0, 1\]"),
        ({"reliability": -0.1}, r"reliability -0.1 must be within \[0, 1\]"),
        ({"probe_run_seq": 99}, "seq 99 is not a probe run"),
        ({"observation_seq": 99}, "seq 99 is not an observation"),
        ({"evidence_id": "bad id"}, "evidence id 'bad id'"),
    ],
)
def test_bad_evidence_arguments(kwargs: dict[str, Any], match: str) -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError, match=match):
        commands.assess_evidence(b.projection, {"pcie": 0.5}, "x", **kwargs)


def test_evidence_without_likelihoods_or_rationale() -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError, match="at least one hypothesis"):
        commands.assess_evidence(b.projection, {}, "x")
    with pytest.raises(DomainError, match="needs a rationale"):
        commands.assess_evidence(b.projection, {"pcie": 0.5}, "   ")


def test_duplicate_evidence_id() -> None:
    b = two_hypotheses()
    ev(b, {"pcie": 0.5}, evidence_id="e-bw")
    with pytest.raises(DomainError, match="evidence 'e-bw' already exists"):
        commands.assess_evidence(b.projection, {"pcie": 0.5}, "x", evidence_id="e-bw")


def test_replay_refuses_an_event_naming_an_unknown_hypothesis() -> None:
    """An imported case whose evidence names a hypothesis that was never proposed."""
    b = two_hypotheses()
    event = ev(b, {"pcie": 0.5})
    forged = copy.deepcopy(event.payload)
    forged["evidence_id"] = "e2"
    forged["likelihoods"] = {"ghost": 0.5}
    b.add(NewEvent("evidence.assessed", forged))
    with pytest.raises(DomainError, match=r"seq 6: evidence names 'ghost', not a hypothesis"):
        project(b.events)


# --- hypotheses -------------------------------------------------------------------------------


def test_prior_larger_than_the_catch_all_has_left() -> None:
    b = two_hypotheses()  # 0.5 + 0.4: the catch-all holds 0.1, all of it its reserve
    with pytest.raises(DomainError) as error:
        commands.propose_hypothesis(b.projection, "virt", QID, 0.05, "virt")
    assert "prior 0.05 is larger than the catch-all of 'q' has left (0 of its 0.1)" in str(
        error.value
    )
    ev(b, {"pcie": 0.5})
    # After evidence the reserve is released, but never all of the catch-all.
    with pytest.raises(DomainError, match="larger than the catch-all of 'q' has left"):
        commands.propose_hypothesis(b.projection, "virt", QID, 0.1, "virt")
    with pytest.raises(DomainError, match="larger than the catch-all"):
        commands.propose_hypothesis(b.projection, "virt", QID, 0.5, "virt")
    hyp(b, "virt", QID, 0.09)


@pytest.mark.parametrize("prior", [0.0, -0.2, 1.2])
def test_prior_outside_unit_interval(prior: float) -> None:
    b = new_case()
    with pytest.raises(DomainError, match=r"must be within \(0, 1\]"):
        commands.propose_hypothesis(b.projection, "x", QID, prior, "x")


def test_children_shares_above_one() -> None:
    b = two_hypotheses()
    hyp(b, "pcie-bw", "pcie", 0.6)
    with pytest.raises(DomainError) as error:
        commands.propose_hypothesis(b.projection, "latency", "pcie", 0.5, "pcie-lat")
    assert "share 0.5 is more than 'pcie' has left for children (0.4)" in str(error.value)
    hyp(b, "pcie-lat", "pcie", 0.4)  # exactly what is left is fine


def test_duplicate_ids() -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError, match="id 'pcie' is already taken"):
        commands.propose_hypothesis(b.projection, "again", QID, 0.01, "pcie")
    with pytest.raises(DomainError, match="id 'q' is already taken"):
        commands.propose_hypothesis(b.projection, "a question's id", "pcie", 0.1, "q")
    with pytest.raises(DomainError, match="question 'q' already exists"):
        commands.propose_question(b.projection, "again?", question_id="q")


def test_question_id_may_not_reuse_a_hypothesis_id() -> None:
    """Questions and hypotheses share one namespace (``under`` accepts either): a question
    named like an existing hypothesis would hide it as a parent."""
    b = two_hypotheses()
    with pytest.raises(DomainError, match="'pcie' is already taken"):
        commands.propose_question(b.projection, "shadow?", question_id="pcie")


def test_unknown_parent_lists_what_exists() -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError) as error:
        commands.propose_hypothesis(b.projection, "x", "nowhere", 0.1, "x")
    assert "no question or hypothesis 'nowhere' (questions: q; hypotheses: launch, pcie)" in str(
        error.value
    )


@pytest.mark.parametrize("hid", ["has space", "a/b", "-lead", ""])
def test_bad_hypothesis_ids(hid: str) -> None:
    b = new_case()
    if hid == "":
        # An empty id means "pick one": h1.
        hyp(b, "", QID, 0.2)
        assert "h1" in b.projection.hypothesis_question
        return
    with pytest.raises(DomainError, match="hypothesis id"):
        commands.propose_hypothesis(b.projection, "x", QID, 0.2, hid)


def test_retire_and_reinstate_refusals() -> None:
    b = two_hypotheses()
    with pytest.raises(DomainError, match=r"no hypothesis 'nope' \(known: launch, pcie\)"):
        commands.retire_hypothesis(b.projection, "nope", "because")
    with pytest.raises(DomainError, match="needs a reason"):
        commands.retire_hypothesis(b.projection, "pcie", "  ")
    with pytest.raises(DomainError, match="'pcie' is not retired"):
        commands.reinstate_hypothesis(b.projection, "pcie")
    retire(b, "pcie")
    with pytest.raises(DomainError, match="'pcie' is already retired"):
        commands.retire_hypothesis(b.projection, "pcie", "again")


@pytest.mark.parametrize("catch_all", [0.0, 1.0, -0.5, 1.5])
def test_bad_catch_all(catch_all: float) -> None:
    b = CaseBuilder()
    with pytest.raises(DomainError, match=r"catch-all prior .* must be within \(0, 1\)"):
        commands.propose_question(b.projection, "q?", question_id="q", catch_all=catch_all)


# --- rules ------------------------------------------------------------------------------------


def rule_dict(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "pcie-link-busy",
        "version": 1,
        "probes": ["nvidia-smi-dmon"],
        "rationale": "busy links would show it",
        "conditions": {"load": "under-load"},
        "statistic": {"aggregate": "max", "fact": "pcie.rx_throughput"},
        "outcomes": [{"name": "idle", "below": 0.05}, {"name": "busy"}],
        "likelihoods": {
            "pcie": {"idle": 0.1, "busy": 0.9},
            "otherwise": {"idle": 0.5, "busy": 0.5},
        },
    }
    data.update(changes)
    return data


def test_a_good_rule_loads() -> None:
    rule = rule_from_dict(rule_dict(), QID)
    assert rule.outcome_names == ("idle", "busy")
    assert rule.likelihoods["pcie"] == {"idle": 0.1, "busy": 0.9}
    assert rule.otherwise == {"idle": 0.5, "busy": 0.5}


@pytest.mark.parametrize(
    ("likelihoods", "match"),
    [
        (
            {"pcie": {"idle": 0.2, "busy": 0.9}, "otherwise": {"idle": 0.5, "busy": 0.5}},
            r"rule pcie-link-busy: likelihoods\[pcie\]: probabilities sum to 1\.1, not 1",
        ),
        (
            {"pcie": {"idle": 1.0}, "otherwise": {"idle": 0.5, "busy": 0.5}},
            r"rule pcie-link-busy: likelihoods\[pcie\]: outcomes missing \['busy'\]",
        ),
        (
            {"pcie": {"idle": 0.5, "busy": 0.5, "hot": 0.0}, "otherwise": {"idle": 1, "busy": 0}},
            r"likelihoods\[pcie\]: outcomes missing \[\] / unknown \['hot'\]",
        ),
        (
            {"pcie": {"idle": 0, "busy": 1.0}, "otherwise": {"idle": 0.5, "busy": 0.5}},
            r"likelihoods\[pcie\]: P\(idle\) = 0 is not within \(0, 1\]",
        ),
        (
            {"pcie": {"idle": 0.5, "busy": 0.5}, "otherwise": {"idle": 0.0, "busy": 1.0}},
            r"likelihoods\[otherwise\]: P\(idle\) = 0.0 is not within",
        ),
        (
            {"pcie": {"idle": 0.5, "busy": 0.5}},
            "rule pcie-link-busy: 'likelihoods' needs a row per hypothesis and an 'otherwise'",
        ),
        (
            {"pcie": "0.5", "otherwise": {"idle": 0.5, "busy": 0.5}},
            r"likelihoods\[pcie\]: must map each outcome to a probability",
        ),
    ],
)
def test_bad_likelihood_tables(likelihoods: dict[str, Any], match: str) -> None:
    with pytest.raises(RuleError, match=match):
        rule_from_dict(rule_dict(likelihoods=likelihoods), QID)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"id": ""}, "rule: 'id' must be a non-empty string"),
        ({"version": 0}, "rule pcie-link-busy: 'version' must be a positive integer"),
        ({"rationale": " "}, "rule pcie-link-busy: 'rationale' is required"),
        ({"probes": []}, "rule pcie-link-busy: 'probes' must list"),
        ({"statistic": {"aggregate": "median", "fact": "x"}}, "statistic.aggregate must be"),
        ({"statistic": {"aggregate": "max"}}, "statistic.fact must name a fact"),
        ({"outcomes": [{"name": "only"}]}, "'outcomes' must list at least two"),
        ({"outcomes": [{"name": "a"}, {"name": "a"}]}, "outcome names must be unique"),
        ({"outcomes": [{"name": "a", "below": "x"}, {"name": "b"}]}, "bounds must be numbers"),
        ({"outcomes": [{"below": 1}, {"name": "b"}]}, "each outcome needs a 'name'"),
        ({"conditions": {"load": "busy"}}, "conditions.load must be one of"),
        ({"reliability": 1.5}, r"'reliability' must be within \[0, 1\]"),
    ],
)
def test_bad_rule_fields(changes: dict[str, Any], match: str) -> None:
    with pytest.raises(RuleError, match=match):
        rule_from_dict(rule_dict(**changes), QID)


# --- playbooks --------------------------------------------------------------------------------

PLAYBOOK = """
[playbook]
id = "gpu"
version = 1
title = "GPU throughput"

[question]
id = "throughput"
text = "What limits throughput?"
catch_all = 0.1

[[hypothesis]]
id = "pcie"
text = "PCIe-bound"
prior = 0.5

[[hypothesis]]
id = "pcie-bw"
text = "bandwidth saturated"
prior = 0.6
parent = "pcie"

[[hypothesis]]
id = "launch"
text = "launch-bound"
prior = 0.4

[[rule]]
id = "pcie-link-busy"
version = 1
probes = ["nvidia-smi-dmon"]
rationale = "busy links would show it"
statistic = { aggregate = "max", fact = "pcie.rx_throughput" }
outcomes = [ { name = "idle", below = 0.05 }, { name = "busy" } ]
[rule.likelihoods]
pcie = { idle = 0.1, busy = 0.9 }
otherwise = { idle = 0.5, busy = 0.5 }
"""


def test_the_playbook_loads() -> None:
    playbook = load_playbook(PLAYBOOK, "gpu.toml")
    assert [h.id for h in playbook.hypotheses] == ["pcie", "pcie-bw", "launch"]
    assert playbook.rules[0].question == "throughput"


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        (
            "pcie = { idle",
            "nvlink = { idle",
            r"rule pcie-link-busy: .*unknown hypotheses \['nvlink'\]",
        ),
        ("idle = 0.1, busy = 0.9", "idle = 0.2, busy = 0.9", r"likelihoods\[pcie\]: .*sum to 1.1"),
        ("idle = 0.1, busy = 0.9", "idle = 0.1", r"likelihoods\[pcie\]: outcomes missing"),
        ("idle = 0.1, busy = 0.9", "idle = 0, busy = 1", r"P\(idle\) = 0 is not within"),
        ("prior = 0.4", "prior = 0.45", "gpu.toml: top-level priors sum to 0.95"),
        ("prior = 0.6", "prior = 1.2", r"gpu.toml: hypothesis pcie-bw: prior must be within"),
        ('id = "launch"', 'id = "pcie"', "gpu.toml: hypothesis ids must be unique"),
        ('parent = "pcie"', 'parent = "launch"', "parent 'launch' must come first"),
        ('id = "throughput"\n', "", "question.id and question.text are required"),
    ],
)
def test_bad_playbooks(old: str, new: str, match: str) -> None:
    assert old in PLAYBOOK
    with pytest.raises(RuleError, match=match):
        load_playbook(PLAYBOOK.replace(old, new, 1), "gpu.toml")


def test_children_shares_above_one_in_a_playbook() -> None:
    text = PLAYBOOK.replace(
        '[[hypothesis]]\nid = "launch"',
        '[[hypothesis]]\nid = "pcie-lat"\ntext = "latency"\nprior = 0.5\nparent = "pcie"\n\n'
        '[[hypothesis]]\nid = "launch"',
    )
    with pytest.raises(RuleError, match=r"gpu\.toml: children of pcie have shares summing to 1\.1"):
        load_playbook(text, "gpu.toml")


@pytest.mark.parametrize(
    "text", ["[playbook\nid = 1", 'id = "x"\nid = "y"', "[playbook]\nid = 'x'\nkey = "]
)
def test_bad_toml_is_named(text: str) -> None:
    with pytest.raises(RuleError, match=r"gpu\.toml: not valid TOML"):
        load_playbook(text, "gpu.toml")


def test_playbook_missing_tables() -> None:
    with pytest.raises(RuleError, match=r"gpu.toml: needs \[playbook\] and \[question\] tables"):
        load_playbook('[playbook]\nid = "x"\n', "gpu.toml")
    with pytest.raises(RuleError, match=r"playbook\.id is required"):
        playbook_from_dict({"playbook": {}, "question": {"id": "q", "text": "t"}}, "gpu.toml")


def test_duplicate_rule_ids_in_a_playbook() -> None:
    start = PLAYBOOK.index("[[rule]]")
    with pytest.raises(RuleError, match=r"gpu\.toml: rule ids must be unique"):
        load_playbook(PLAYBOOK + "\n" + PLAYBOOK[start:], "gpu.toml")


def test_generated_question_id_skips_hypothesis_ids() -> None:
    b = CaseBuilder()
    b.add(commands.propose_question(b.projection, "first?", question_id="main"))
    hyp(b, "q1", "main", 0.3)
    event = commands.propose_question(b.projection, "second?")
    assert event.payload["question_id"] == "q2"
