"""An A/B whose change no rule reads names the rules its words are nearest to
(:mod:`casefile.domain.nearest_rules`): a hint for ``--rule``, never evidence."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain.nearest_rules import Nearness, nearest_rules
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

RULES = PLAYBOOK_V3.experiments


@pytest.mark.parametrize(
    ("change", "nearest"),
    [
        (
            "enable persistent prompt caching",
            (
                Nearness("data-pipeline", ("caching", "persistent")),
                Nearness("algorithm", ("enable",)),
            ),
        ),
        (
            "moved the card to the other riser",
            (
                Nearness("pcie-link", ("card", "moved", "riser")),
                Nearness("cooling", ("card", "moved")),
            ),
        ),
        ("reinstalled the OS", ()),
        ("", ()),
    ],
)
def test_the_rules_a_changes_words_are_nearest_to(
    change: str, nearest: tuple[Nearness, ...]
) -> None:
    assert nearest_rules(RULES, change) == nearest


def test_a_word_every_rule_holds_says_nothing() -> None:
    """Weighed by how few rules hold it: a word in each rule's title weighs nothing."""
    same = [
        replace(rule, title="widget", suggest="", examples=(), change="widget") for rule in RULES
    ]
    assert nearest_rules(same, "the widget") == ()
    one = [*same[:-1], replace(same[-1], change="gizmo")]
    assert nearest_rules(one, "a gizmo") == (Nearness(one[-1].id, ("gizmo",)),)


def test_a_far_second_rule_is_not_named() -> None:
    """The second rule is named only where its words weigh half the nearest's or more."""
    near = nearest_rules(RULES, "persistent caching of the dataset on local NVMe")
    assert [n.rule_id for n in near] == ["data-pipeline"]


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow", "--id", "n1", "--playbook", "gpu-throughput@3").code == 0
    return "n1"


def test_an_unread_change_names_its_nearest_rules_and_counts_nothing(cli: CLI, case: str) -> None:
    result = cli(
        "experiment", case, "--change", "enable persistent prompt caching", "--reported",
        "10:20", "--unit", "tok/s", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["rule"] is None and out["evidence_id"] is None
    assert out["nearest"] == [
        {"rule": "data-pipeline", "words": ["caching", "persistent"]},
        {"rule": "algorithm", "words": ["enable"]},
    ]
    assert "--rule data-pipeline reads it by that rule" in out["unread"]
    assert not [e for e in log(cli, case) if e["type"] == "evidence.assessed"]


def test_a_change_a_rule_reads_or_named_tests_gets_no_hint(cli: CLI, case: str) -> None:
    read = cli(
        "experiment", case, "--change", "num_workers 2 -> 8", "--reported", "10:20",
        "--unit", "img/s", "--json",
    )  # fmt: skip
    assert json.loads(read.out)["nearest"] == []
    named = cli(
        "experiment", case, "--change", "enable persistent prompt caching", "--reported",
        "10:20", "--unit", "tok/s", "--tests", "data-loading", "--json",
    )  # fmt: skip
    assert json.loads(named.out)["nearest"] == []


def test_a_rule_whose_unless_leaves_the_change_is_no_hint() -> None:
    """host-work's pattern reads the fast tokenizer, and its ``unless`` leaves the slow one
    as the result to no rule: forced with ``--rule host-work`` the change would be read
    forwards, so the hint does not name it, though its words are the nearest."""
    change = "replaced the fast tokenizer with the slow one"
    host_work = next(rule for rule in RULES if rule.id == "host-work")
    assert not host_work.matches(change) and host_work.leaves(change)
    assert "host-work" not in [near.rule_id for near in nearest_rules(RULES, change)]
    # its own A/B still brings it near where no rule reads the words
    assert not host_work.leaves("use the fast tokenizer")


def test_a_rule_the_answers_rule_out_is_no_hint(cli: CLI, case: str) -> None:
    """On a one-GPU job the rules of inter-GPU changes cannot apply (their ``requires``):
    named as a hint, ``--rule`` would read the A/B by one of them. Hidden cards and topology
    files are nearest to fewer-gpus and nccl-override on a case with no answers, and to no
    rule once the job is known to run on one GPU."""

    def nearest(change: str, outcome: str) -> list[str]:
        result = cli(
            "experiment", case, "--change", change, "--outcome", outcome, "--json",
        )  # fmt: skip
        assert result.code == 0, result.err
        return [near["rule"] for near in json.loads(result.out)["nearest"]]

    assert nearest("hid the second card from the job", "same") == ["fewer-gpus"]
    assert nearest("swapped the topology xml", "same") == ["nccl-override"]
    assert cli("intake", case, "gpu-count=one").code == 0
    assert nearest("hid the second card from the job", "better") == []
    assert nearest("swapped the topology xml", "better") == []
