"""An intake answer another answer settles by what the words mean: a job on several nodes uses
several GPUs, and a one-GPU job runs on one node (``implied_by`` in gpu-throughput@3). The
implied answer is recorded with the one that settles it, as the person's own, saying why."""

from __future__ import annotations

import json
from typing import Any

import pytest

from casefile.domain.playbook import playbook_from_dict
from casefile.errors import RuleError
from tests.cli.conftest import CLI


def intake_answers(cli: CLI, case: str) -> dict[str, dict[str, Any]]:
    result = cli("log", case, "--json")
    assert result.code == 0, result.err
    out = {}
    for event in json.loads(result.out):
        intake = event["payload"].get("intake") if event["type"] == "evidence.assessed" else None
        if intake:
            out[intake["id"]] = intake
    return out


def open_case(cli: CLI, case: str) -> None:
    result = cli("new", "slow job", "--id", case, "--playbook", "gpu-throughput@3")
    assert result.code == 0, result.err


def test_several_nodes_answer_several_gpus(cli: CLI) -> None:
    open_case(cli, "c1")
    result = cli("intake", "c1", "--answer", "nodes=multi")
    assert result.code == 0, result.err
    assert "gpu-count: several (from nodes = multi: a job on several nodes" in result.out
    answers = intake_answers(cli, "c1")
    assert answers["gpu-count"]["answer"] == "several"
    assert answers["gpu-count"]["source"] == "answered"
    assert answers["gpu-count"]["basis"].startswith("nodes = multi: a job on several nodes")
    listed = cli("intake", "c1", "--list")
    assert listed.code == 0, listed.err
    line = next(x for x in listed.out.splitlines() if x.startswith("gpu-count"))
    assert "several (from nodes = multi" in line


def test_intake_json_says_which_answer_settled_an_implied_one(cli: CLI) -> None:
    open_case(cli, "c1j")
    result = cli("intake", "c1j", "--answer", "nodes=multi", "--json")
    assert result.code == 0, result.err
    rows = {row["question"]: row for row in json.loads(result.out)["recorded"]}
    assert rows["gpu-count"]["basis"].startswith("nodes = multi: a job on several nodes")
    assert "basis" not in rows["nodes"]  # the person's own answer


def test_one_gpu_answers_one_node(cli: CLI) -> None:
    open_case(cli, "c2")
    assert cli("intake", "c2", "--answer", "gpu-count=1").code == 0
    assert intake_answers(cli, "c2")["nodes"]["answer"] == "single"


def test_an_explicit_answer_is_not_overridden_by_an_implied_one(cli: CLI) -> None:
    open_case(cli, "c3")
    assert cli("intake", "c3", "--answer", "gpu-count=one").code == 0
    assert cli("intake", "c3", "--answer", "nodes=multi").code == 0
    answers = intake_answers(cli, "c3")
    assert answers["gpu-count"]["answer"] == "one" and answers["nodes"]["answer"] == "multi"
    open_case(cli, "c4")
    assert cli("intake", "c4", "--answer", "nodes=single", "--no-known").code == 0
    assert "gpu-count" not in intake_answers(cli, "c4")  # single node says nothing of the count


def test_an_env_answer_settles_what_it_implies_when_the_playbook_opens(cli: CLI) -> None:
    result = cli(
        "new", "slow job", "--id", "c6", "--playbook", "gpu-throughput@3", "--env", "gpus=1x L4"
    )
    assert result.code == 0, result.err
    answers = intake_answers(cli, "c6")
    assert answers["gpu-count"]["source"] == "environment"
    assert answers["nodes"]["answer"] == "single"
    assert answers["nodes"]["basis"].startswith("gpu-count = one")


def test_with_no_known_nothing_is_implied(cli: CLI) -> None:
    open_case(cli, "c5")
    assert cli("intake", "c5", "--answer", "nodes=multi", "--no-known").code == 0
    assert "gpu-count" not in intake_answers(cli, "c5")


def _playbook(implied: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "playbook": {"id": "tiny", "version": 1},
        "question": {"id": "q", "text": "What limits it?", "catch_all": 0.1},
        "hypothesis": [
            {"id": "a", "text": "a", "prior": 0.5},
            {"id": "b", "text": "b", "prior": 0.4},
        ],
        "intake": [
            {
                "id": "gpus",
                "version": 1,
                "text": "How many GPUs?",
                "answers": ["one", "several"],
                "implied_by": implied,
                "likelihoods": {
                    "a": {"one": 0.5, "several": 0.5},
                    "otherwise": {"one": 0.5, "several": 0.5},
                },
                "rationale": "r",
            },
            {
                "id": "nodes",
                "version": 1,
                "text": "How many nodes?",
                "answers": ["single", "multi"],
                "likelihoods": {
                    "a": {"single": 0.5, "multi": 0.5},
                    "otherwise": {"single": 0.5, "multi": 0.5},
                },
                "rationale": "r",
            },
        ],
    }


@pytest.mark.parametrize(
    ("implied", "says"),
    [
        (
            [{"intake": "racks", "answers": ["multi"], "answer": "several"}],
            "unknown intake 'racks'",
        ),
        ([{"intake": "nodes", "answers": ["many"], "answer": "several"}], "['many']"),
        ([{"intake": "nodes", "answers": ["multi"], "answer": "lots"}], "'lots'"),
        ([{"intake": "nodes", "answer": "several"}], "needs 'answers'"),
    ],
)
def test_a_wrong_implied_by_is_refused_in_one_line(
    implied: list[dict[str, Any]], says: str
) -> None:
    with pytest.raises(RuleError, match="implied_by") as raised:
        playbook_from_dict(_playbook(implied), "tiny.toml")
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_right_implied_by_loads() -> None:
    spec = [{"intake": "nodes", "answers": ["multi"], "answer": "several"}]
    playbook = playbook_from_dict(_playbook(spec), "tiny.toml")
    known = playbook.intake_question("gpus").from_answers({"nodes": "multi"})
    assert known is not None and known.answer == "several"
    assert playbook.intake_question("gpus").from_answers({"nodes": "single"}) is None


def _status(cli: CLI, case: str) -> dict[str, Any]:
    result = cli("status", case, "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)  # type: ignore[no-any-return]


def _applies(cli: CLI, case: str, hypothesis: str) -> bool:
    (entry,) = [h for h in _status(cli, case)["hypotheses"] if h["id"] == hypothesis]
    return entry["status"] != "does not apply"


def test_an_implied_answer_is_withdrawn_when_its_premise_is_corrected(cli: CLI) -> None:
    """gpu-count = one settled nodes = single and ruled out the inter-node network; the
    person corrects gpu-count to several: nodes is open again and the network applies."""
    open_case(cli, "c7")
    assert cli("intake", "c7", "gpu-count=one").code == 0
    assert not _applies(cli, "c7", "internode-network")
    corrected = cli("intake", "c7", "gpu-count=several")
    assert corrected.code == 0, corrected.err
    assert "nodes: single withdrawn (it rested on gpu-count = one" in corrected.out
    assert "nodes" in corrected.out.splitlines()[-1]  # "not answered yet: …, nodes, …"
    assert _applies(cli, "c7", "internode-network")
    listed = cli("intake", "c7", "--list", "--json")
    (nodes,) = [q for q in json.loads(listed.out) if q["id"] == "nodes"]
    assert nodes["answer"] is None
    events = json.loads(cli("log", "c7", "--json").out)
    withdrawal = events[-1]["payload"]
    assert withdrawal["reliability"] == 0.0 and set(withdrawal["likelihoods"].values()) == {1.0}
    assert "rested on gpu-count = one" in withdrawal["rationale"]
    # answered again, it counts again
    assert cli("intake", "c7", "nodes=single").code == 0
    assert not _applies(cli, "c7", "internode-network")


def test_a_withdrawal_weighs_nothing(cli: CLI) -> None:
    """The beliefs after the withdrawal are those of a case where nodes was never answered."""
    open_case(cli, "c8")
    assert cli("intake", "c8", "gpu-count=one").code == 0
    assert cli("intake", "c8", "gpu-count=several", "--json").code == 0
    open_case(cli, "c9")
    assert cli("intake", "c9", "gpu-count=several", "--no-known").code == 0
    confidences = [
        {h["id"]: h["confidence"] for h in _status(cli, case)["hypotheses"]}
        for case in ("c8", "c9")
    ]
    assert confidences[0] == pytest.approx(confidences[1], abs=1e-12)


def test_a_premise_corrected_to_imply_another_answer_records_that_one(cli: CLI) -> None:
    open_case(cli, "c10")
    assert cli("intake", "c10", "nodes=multi").code == 0
    assert intake_answers(cli, "c10")["gpu-count"]["answer"] == "several"
    result = cli("intake", "c10", "nodes=single", "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)
    assert [w["question"] for w in outcome["withdrawn"]] == ["gpu-count"]
    assert "gpu-count" in outcome["pending"]
