"""An A/B costs what making its change takes where the case says what that is: going back to
the framework the case says was upgraded is a package install (moderate), going back to its
driver a reinstall and a reboot (expensive); with no answer the rule's own cost holds, and a
re-answer moves it back."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.domain.beliefs.ranking import rank_next_steps
from casefile.domain.experiment_cost import CostWhen, cost_under, cost_when_from
from casefile.domain.playbook import playbook_from_dict
from casefile.errors import RuleError
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

VERSION = "A/B version"


def version_cost(service: CaseService, case: str, seq: int | None = None) -> str:
    """The version A/B's cost as the next steps rank it at ``seq`` (``None``: now)."""
    projection = service.reader.projection(case)
    offered = service.reader.offers(projection)
    steps = rank_next_steps(projection, offered, "throughput", seq=seq)
    return next(s.cost for s in steps if s.probe == VERSION)


def test_the_version_ab_costs_what_the_case_says_was_upgraded() -> None:
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case("slow", playbook="gpu-throughput@3", who=Who("t"))
        assert version_cost(service, case) == "expensive"  # nothing stated: the rule's own
        service.writer.answer_intake(case, {"after-upgrade": "framework"}, who=Who("t"))
        assert version_cost(service, case) == "moderate"
        service.writer.answer_intake(case, {"after-upgrade": "driver"}, who=Who("t"))
        assert version_cost(service, case) == "expensive"  # the re-answer is in force
        service.writer.answer_intake(case, {"after-upgrade": "collective-library"}, who=Who("t"))
        assert version_cost(service, case) == "moderate"


def test_a_past_step_is_costed_by_the_answers_then_not_by_a_later_one() -> None:
    """A replay ranks each step on what the case knew then: the answer given later does not
    make the revert cheaper before it was given."""
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case("slow", playbook="gpu-throughput@3", who=Who("t"))
        before = service.reader.projection(case).last_seq
        service.writer.answer_intake(case, {"after-upgrade": "framework"}, who=Who("t"))
        assert version_cost(service, case) == "moderate"
        assert version_cost(service, case, seq=before) == "expensive"


def test_the_cheaper_revert_moves_up_the_next_steps() -> None:
    """Ranked at its own cost the revert of a framework upgrade came behind a cheap look;
    ranked at a package's cost it is first (the case's leader is the upgrade)."""
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case("slow", playbook="gpu-throughput@3", who=Who("t"))
        service.writer.answer_intake(
            case,
            {"gpu-count": "one", "after-upgrade": "framework", "workload": "training"},
            who=Who("t"),
        )
        projection = service.reader.projection(case)
        offered = service.reader.candidates(projection)
        places = {}
        for cost in ("moderate", "expensive"):
            pinned = [
                c if c.probe != VERSION else replace(c, cost=cost, cost_when=()) for c in offered
            ]
            steps = rank_next_steps(projection, pinned, "throughput")
            places[cost] = [s.probe for s in steps].index(VERSION)
        assert places["moderate"] < places["expensive"]
        # the ranking's own resolution (cost_when under the answer) puts it where moderate does
        actual = [s.probe for s in rank_next_steps(projection, offered, "throughput")]
        assert actual.index(VERSION) == places["moderate"]


def test_the_first_entry_that_applies_gives_the_cost() -> None:
    entries = (
        CostWhen("after-upgrade", ("framework",), "moderate"),
        CostWhen("platform", ("vm",), "cheap"),
    )
    answers = {"after-upgrade": "framework", "platform": "vm"}
    assert cost_under("expensive", entries, answers.get) == "moderate"
    assert cost_under("expensive", entries, {"platform": "vm"}.get) == "cheap"
    nothing: dict[str, str] = {}
    assert cost_under("expensive", entries, nothing.get) == "expensive"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("moderate", "'cost_when' must be a list"),
        ([{"intake": "after-upgrade", "cost": "moderate"}], "needs 'intake'"),
        ([{"intake": "after-upgrade", "answers": [], "cost": "moderate"}], "needs 'intake'"),
        ([{"intake": "after-upgrade", "answers": ["framework"], "cost": "free"}], "must be one of"),
    ],
)
def test_a_malformed_entry_is_refused_by_name(raw: Any, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        cost_when_from(raw, "experiment version")


def playbook_data(cost_when: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "playbook": {"id": "p", "version": 1},
        "question": {"id": "q", "text": "What?"},
        "hypothesis": [{"id": "h", "text": "h", "prior": 0.5}],
        "intake": [
            {
                "id": "after-upgrade",
                "version": 1,
                "text": "After an upgrade?",
                "answers": ["no", "framework"],
                "rationale": "r",
                "likelihoods": {"otherwise": {"no": 0.5, "framework": 0.5}},
            }
        ],
        "experiment": [
            {
                "id": "version",
                "version": 1,
                "change": "version",
                "probes": ["command"],
                "metric": "throughput",
                "noise": 0.1,
                "noise_why": "reruns vary",
                "cost": "expensive",
                "cost_when": cost_when,
                "rationale": "r",
                "likelihoods": {"otherwise": {"faster": 0.2, "same": 0.6, "slower": 0.2}},
            }
        ],
    }


def test_a_cost_that_names_an_unknown_question_or_answer_is_refused() -> None:
    good = [{"intake": "after-upgrade", "answers": ["framework"], "cost": "moderate"}]
    built = playbook_from_dict(playbook_data(good), "test")
    assert built.experiments[0].cost_when == (
        CostWhen("after-upgrade", ("framework",), "moderate"),
    )
    with pytest.raises(RuleError, match=r"experiment version \(cost_when\) requires unknown"):
        playbook_from_dict(
            playbook_data([{"intake": "nvlink", "answers": ["yes"], "cost": "cheap"}]), "test"
        )
    with pytest.raises(RuleError, match=r"answers \['driver'\] that intake after-upgrade"):
        playbook_from_dict(
            playbook_data([{"intake": "after-upgrade", "answers": ["driver"], "cost": "cheap"}]),
            "test",
        )


def test_each_example_a_playbook_shows_is_read_by_that_rule_first() -> None:
    """An example is what a responder copies: the change it records must land on the rule that
    shows it, not on an earlier one in file order (which one reads a change)."""
    from casefile.app.views.rules import experiment_rule_views

    for playbook in builtin_registry().all_playbook_versions():
        for view in experiment_rule_views([playbook]):
            for example in view.examples:
                first = next(e for e in playbook.experiments if e.matches(example))
                assert f"experiment.{first.id}" == view.id, (playbook.ref, example)


def test_a_cases_experiment_rules_give_the_cost_that_holds_in_that_case() -> None:
    """`experiment rules CASE` (its --json, the reader's experiment_rule_list) gives each rule
    the cost that holds in the case, as its next steps, status and board do."""
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case("slow", playbook="gpu-throughput@3", who=Who("t"))
        service.writer.answer_intake(case, {"after-upgrade": "framework"}, who=Who("t"))
        status = service.reader.status(case)
        ranked = next(s.cost for s in status.next_steps if s.probe == "A/B version")
        listed = next(
            v for v in service.reader.experiment_rule_list(case) if v.id == "experiment.version"
        )
    assert ranked == "moderate"
    assert listed.cost == ranked
