"""``casefile hypothesis list`` and ``casefile question list``, as text and as JSON."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import CLI


@pytest.fixture
def case(cli: CLI) -> str:
    case_id = cli("new", "Slow decode", "--id", "slow").out.strip()
    cli("question", "add", case_id, "What limits decode?", "--id", "q")
    cli("question", "add", case_id, "Why the \x1b[2Jjitter?", "--id", "j", "--catch-all", "0.2")
    for text, under, prior, hid in [
        ("PCIe-bound", "q", "0.5", "pcie"),
        ("compute-bound", "q", "0.4", "compute"),
        ("bandwidth saturated", "pcie", "0.6", "bw"),
        ("two\nlines", "j", "0.3", "clock"),
    ]:
        result = cli(
            "hypothesis", "add", case_id, text, "--under", under, "--prior", prior, "--id", hid
        )
        assert result.code == 0, result.err
    cli("hypothesis", "retire", case_id, "compute", "--because", "ruled out")
    assert cli("evidence", "add", case_id, "--likelihood", "pcie=0.8", "--because", "x").code == 0
    return case_id


def test_hypothesis_list_json_has_ids_text_status_and_confidence(cli: CLI, case: str) -> None:
    result = cli("hypothesis", "list", case, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["case"]["id"] == case
    rows = {h["id"]: h for h in data["hypotheses"]}
    assert list(rows) == ["pcie", "bw", "compute", "q/catch-all", "clock", "j/catch-all"]
    assert rows["compute"]["status"] == "retired"
    assert rows["bw"]["parent"] == "pcie" and rows["bw"]["depth"] == 1
    assert rows["pcie"]["text"] == "PCIe-bound"
    status = json.loads(cli("status", case, "--json").out)
    # the same confidences status gives, to the bit
    assert {h["id"]: h["confidence"] for h in status["hypotheses"]} == {
        h: row["confidence"] for h, row in rows.items()
    }


def test_hypothesis_list_text_is_one_line_per_hypothesis(cli: CLI, case: str) -> None:
    result = cli("hypothesis", "list", case)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split()[:5] == ["ID", "QUESTION", "STATUS", "PRIOR", "CONF"]
    assert len(lines) == 7
    assert lines[1].startswith("pcie ") and "PCIe-bound" in lines[1]
    assert lines[2].startswith("  bw ")
    assert "retired" in lines[3]
    assert "two\\x0alines" in lines[5]  # a newline in a text cannot pose as a row


def test_hypothesis_list_of_one_question(cli: CLI, case: str) -> None:
    data = json.loads(cli("hypothesis", "list", case, "--question", "j", "--json").out)
    assert [h["id"] for h in data["hypotheses"]] == ["clock", "j/catch-all"]
    result = cli("hypothesis", "list", case, "--question", "nope")
    assert result.code == 1
    assert result.err.strip() == (
        "casefile: error: no question 'nope' in case slow (questions: j, q)"
    )


def test_question_list(cli: CLI, case: str) -> None:
    data = json.loads(cli("question", "list", case, "--json").out)
    rows = {q["id"]: q for q in data["questions"]}
    assert list(rows) == ["q", "j"]
    assert rows["q"]["hypotheses"] == 3 and rows["q"]["open_hypotheses"] == 2
    assert rows["q"]["evidence"] == 1 and rows["q"]["leader"] == "pcie"
    assert 0.5 < rows["q"]["confidence"] < 1.0
    assert rows["j"]["catch_all"] == pytest.approx(0.7)
    assert rows["j"]["catch_all_reserve"] == 0.2
    text = cli("question", "list", case).out.splitlines()
    assert text[1].startswith("q ") and "pcie (" in text[1]
    assert "\x1b" not in cli("question", "list", case).out  # escaped for the terminal
    assert "\\x1b[2Jjitter" in text[2]


def test_lists_of_an_empty_case(cli: CLI) -> None:
    case_id = cli("new", "Nothing yet").out.strip()
    assert "no hypotheses yet" in cli("hypothesis", "list", case_id).out
    assert "no questions yet" in cli("question", "list", case_id).out
    assert json.loads(cli("question", "list", case_id, "--json").out)["questions"] == []
    missing = cli("hypothesis", "list", "no-such-case")
    assert missing.code == 1 and missing.err.count("\n") == 1
