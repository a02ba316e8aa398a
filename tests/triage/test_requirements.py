"""Structure before statistics: a hypothesis whose requirement the case contradicts does not
apply — it holds no probability, says why, and comes back when the answer changes."""

from __future__ import annotations

from typing import Any

import pytest

from casefile.app.views.common import hypothesis_rows
from casefile.domain import commands, triage
from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
from casefile.domain.beliefs.ranking import Candidate, rank_next_steps, rank_probes
from casefile.domain.events import GENESIS_HASH, Event, NewEvent, seal
from casefile.domain.playbook import Playbook, playbook_from_dict
from casefile.errors import RuleError

LIKELY = {"low": 0.8, "high": 0.2}


def playbook_data() -> dict[str, Any]:
    return {
        "playbook": {"id": "tiny", "version": 1},
        "question": {"id": "q", "text": "What limits it?", "catch_all": 0.1},
        "hypothesis": [
            {"id": "compute", "text": "compute", "prior": 0.3},
            {
                "id": "peer",
                "text": "peer to peer",
                "prior": 0.4,
                "requires": [{"intake": "gpu-count", "answers": ["several"]}],
            },
            {"id": "peer-acs", "text": "ACS", "prior": 0.5, "parent": "peer"},
            {"id": "host", "text": "host", "prior": 0.2},
        ],
        "rule": [
            {
                "id": "busbw",
                "version": 1,
                "probes": ["nccl-tests"],
                "statistic": {"aggregate": "max", "fact": "busbw"},
                "outcomes": [{"name": "low", "below": 1.0}, {"name": "high"}],
                "likelihoods": {"peer": LIKELY, "otherwise": {"low": 0.3, "high": 0.7}},
                "rationale": "inter-GPU",
                "requires": [{"intake": "gpu-count", "answers": ["several"]}],
            },
            {
                "id": "util",
                "version": 1,
                "probes": ["smi"],
                "statistic": {"aggregate": "max", "fact": "util"},
                "outcomes": [{"name": "low", "below": 1.0}, {"name": "high"}],
                "likelihoods": {"host": LIKELY, "otherwise": {"low": 0.3, "high": 0.7}},
                "rationale": "host",
            },
        ],
        "intake": [
            {
                "id": "gpu-count",
                "version": 1,
                "text": "How many GPUs?",
                "answers": ["one", "several"],
                "likelihoods": {
                    "peer": {"one": 0.02, "several": 0.98},
                    "otherwise": {"one": 0.5, "several": 0.5},
                },
                "rationale": "structure",
            }
        ],
    }


@pytest.fixture
def playbook() -> Playbook:
    return playbook_from_dict(playbook_data())


class Case:
    """A case's events, appended through the domain's commands as the service does."""

    def __init__(self, playbook: Playbook) -> None:
        self.events: list[Event] = []
        self.playbook = playbook
        self.add(NewEvent("case.opened", {"title": "t"}))
        self.add(commands.propose_question(self.projection(), "What limits it?", "q", 0.1))
        for spec in playbook.hypotheses:
            self.add(
                commands.propose_hypothesis(
                    self.projection(),
                    spec.text,
                    spec.parent or "q",
                    spec.prior,
                    spec.id,
                    spec.meaning,
                    spec.requires,
                )
            )

    def projection(self) -> Any:
        return project(self.events)

    def add(self, event: NewEvent | None) -> None:
        assert event is not None
        previous = self.events[-1] if self.events else None
        prev = previous.hash if previous else GENESIS_HASH
        self.events.append(seal("c1", len(self.events) + 1, prev, event, "2026-01-01T00:00:00Z"))

    def answer(self, value: str) -> int:
        question = self.playbook.intake_question("gpu-count")
        self.add(triage.answer_intake(self.projection(), question, value))
        return len(self.events)


def rows(case: Case) -> dict[str, Any]:
    question = case.projection().questions["q"]
    return {row.id: row for row in hypothesis_rows(question)}


def test_an_answer_that_contradicts_a_requirement_leaves_it_no_probability(
    playbook: Playbook,
) -> None:
    case = Case(playbook)
    before = rows(case)
    assert before["peer"].confidence > 0.3 and before["peer"].status == "open"
    seq = case.answer("one")
    after = rows(case)
    for hid in ("peer", "peer-acs"):
        assert after[hid].confidence == 0.0
        assert after[hid].status == "does not apply"
    assert after["peer"].reason == f"gpu-count = one (seq {seq})"
    assert after["peer-acs"].reason == f"gpu-count = one (seq {seq}), through peer"
    assert after["peer"].to_json()["does_not_apply"] == after["peer"].reason
    assert after["peer"].to_json()["confidence"] == 0.0
    remaining = sum(r.confidence for r in after.values() if r.depth == 0)
    assert remaining == pytest.approx(1.0)


def test_a_superseding_answer_brings_it_back_with_the_evidence_it_saw(playbook: Playbook) -> None:
    case = Case(playbook)
    case.answer("several")
    several = rows(case)["peer"].confidence
    case.answer("one")
    assert rows(case)["peer"].confidence == 0.0
    case.answer("several")
    back = rows(case)["peer"]
    assert back.status == "open" and back.reason is None
    assert back.confidence == several  # to the last digit


def test_a_hypothesis_proposed_after_the_answer_is_judged_at_once(playbook: Playbook) -> None:
    case = Case(playbook)
    case.answer("one")
    case.add(
        commands.propose_hypothesis(
            case.projection(), "NVLink", "q", 0.05, "nvlink", None, [("gpu-count", ("several",))]
        )
    )
    assert rows(case)["nvlink"].status == "does not apply"


def test_the_saved_fold_keeps_requirements_answers_and_reasons(playbook: Playbook) -> None:
    case = Case(playbook)
    case.answer("one")
    live = case.projection()
    restored = restore_fold(dump_fold(live))
    question = restored.questions["q"]
    assert question.answers == live.questions["q"].answers
    assert question.confidences == live.questions["q"].confidences
    assert question.nodes["peer"].inapplicable == live.questions["q"].nodes["peer"].inapplicable
    # and the restored fold still brings it back when the answer changes
    assert question.nodes["peer"].requires == live.questions["q"].nodes["peer"].requires


def test_a_rule_that_needs_several_gpus_is_not_suggested_for_one(playbook: Playbook) -> None:
    case = Case(playbook)
    candidates = [Candidate("nccl-tests", playbook.rules[0]), Candidate("smi", playbook.rules[1])]
    before = {s.probe for s in rank_next_steps(case.projection(), candidates)}
    assert before == {"nccl-tests", "smi"}
    case.answer("one")
    projection = case.projection()
    assert {s.probe for s in rank_next_steps(projection, candidates)} == {"smi"}
    assert {s.probe for s in rank_probes(projection, candidates)} == {"smi"}
    # at an earlier step of the replay, before the answer, it was still suggested
    earlier = rank_next_steps(projection, candidates, seq=projection.last_seq - 1)
    assert {s.probe for s in earlier} == {"nccl-tests", "smi"}


def test_requirements_must_name_declared_questions_and_answers() -> None:
    data = playbook_data()
    data["hypothesis"][1]["requires"] = [{"intake": "gpus", "answers": ["several"]}]
    with pytest.raises(RuleError, match="hypothesis peer requires unknown intake 'gpus'"):
        playbook_from_dict(data)
    data = playbook_data()
    data["rule"][0]["requires"] = [{"intake": "gpu-count", "answers": ["many"]}]
    with pytest.raises(RuleError, match=r"rule busbw requires answers \['many'\]"):
        playbook_from_dict(data)
    data = playbook_data()
    data["hypothesis"][1]["requires"] = [{"intake": "gpu-count"}]
    with pytest.raises(RuleError, match="each of 'requires' needs 'intake'"):
        playbook_from_dict(data)


def test_a_rule_about_hypotheses_that_do_not_apply_is_not_suggested() -> None:
    data = playbook_data()
    data["rule"][0].pop("requires")  # no requirement of its own: it names only "peer"
    playbook = playbook_from_dict(data)
    case = Case(playbook)
    candidates = [Candidate("nccl-tests", playbook.rules[0]), Candidate("smi", playbook.rules[1])]
    case.answer("one")
    assert {s.probe for s in rank_next_steps(case.projection(), candidates)} == {"smi"}


def test_an_answer_superseded_by_other_evidence_is_no_longer_in_force(
    playbook: Playbook,
) -> None:
    case = Case(playbook)
    case.answer("one")
    projection = case.projection()
    answer_id = next(iter(projection.evidence))
    case.add(
        commands.assess_evidence(
            projection, {"compute": 0.6}, "a reading", otherwise=0.4, supersedes=answer_id
        )
    )
    question = case.projection().questions["q"]
    assert question.answers == {}
    assert rows(case)["peer"].status == "open" and rows(case)["peer"].confidence > 0.0
    restored = restore_fold(dump_fold(case.projection())).questions["q"]
    assert restored.answers == {} and restored.confidences == question.confidences


def test_a_parent_whose_children_all_do_not_apply_does_not_apply(playbook: Playbook) -> None:
    data = playbook_data()
    data["hypothesis"][1].pop("requires")  # the parent requires nothing itself
    data["hypothesis"][2]["prior"] = 1.0  # and keeps no share of its own
    data["hypothesis"][2]["requires"] = [{"intake": "gpu-count", "answers": ["several"]}]
    case = Case(playbook_from_dict(data))
    case.answer("one")
    row = rows(case)["peer"]
    assert row.status == "does not apply" and row.confidence == 0.0
    assert row.reason is not None and row.reason.startswith("none of its children applies")


def test_a_saved_fold_whose_marks_disagree_with_its_answers_is_unreadable(
    playbook: Playbook,
) -> None:
    from casefile.domain.beliefs.fold_columns import FoldUnreadable

    case = Case(playbook)
    case.answer("one")
    projection = case.projection()
    projection.questions["q"].nodes["peer"].inapplicable = None  # forged: "it applies"
    with pytest.raises(FoldUnreadable, match="applicability"):
        restore_fold(dump_fold(projection))


def test_a_rule_naming_only_a_child_of_a_retired_parent_is_not_suggested(
    playbook: Playbook,
) -> None:
    data = playbook_data()
    data["rule"][0].pop("requires")
    data["rule"][0]["likelihoods"] = {"peer-acs": LIKELY, "otherwise": {"low": 0.3, "high": 0.7}}
    playbook = playbook_from_dict(data)
    case = Case(playbook)
    case.add(commands.retire_hypothesis(case.projection(), "peer", "not this"))
    candidates = [Candidate("nccl-tests", playbook.rules[0]), Candidate("smi", playbook.rules[1])]
    assert {s.probe for s in rank_next_steps(case.projection(), candidates)} == {"smi"}


def test_an_intake_question_may_require_an_answer_and_is_not_suggested_against_it() -> None:
    data = playbook_data()
    data["intake"].append(
        {
            "id": "scaling",
            "version": 1,
            "text": "Does it scale?",
            "answers": ["yes", "no"],
            "likelihoods": {"peer": {"yes": 0.2, "no": 0.8}, "otherwise": {"yes": 0.5, "no": 0.5}},
            "rationale": "only with several GPUs",
            "requires": [{"intake": "gpu-count", "answers": ["several"]}],
        }
    )
    playbook = playbook_from_dict(data)
    scaling = playbook.intake_question("scaling")
    case = Case(playbook)
    candidates = [Candidate("intake scaling", scaling.rule), Candidate("smi", playbook.rules[1])]
    assert "intake scaling" in {s.probe for s in rank_next_steps(case.projection(), candidates)}
    case.answer("one")
    assert {s.probe for s in rank_next_steps(case.projection(), candidates)} == {"smi"}
    data["intake"][-1]["requires"] = [{"intake": "gpu-count", "answers": ["many"]}]
    with pytest.raises(RuleError, match=r"intake scaling requires answers \['many'\]"):
        playbook_from_dict(data)
