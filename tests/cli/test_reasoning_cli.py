"""A case built from the command line alone: questions, hypotheses, evidence, views."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.cli.conftest import CLI


@pytest.fixture
def case(cli: CLI) -> str:
    case_id = cli("new", "Slow decode", "--symptom", "11 tok/s single stream").out.strip()
    assert cli("question", "add", case_id, "What limits decode?", "--id", "q").out.strip() == "q"
    for text, under, prior, hid in [
        ("PCIe-bound", "q", "0.5", "pcie"),
        ("compute-bound", "q", "0.4", "compute"),
        ("bandwidth saturated", "pcie", "0.6", "bw"),
        ("latency without P2P", "pcie", "0.4", "lat"),
    ]:
        result = cli(
            "hypothesis", "add", case_id, text, "--under", under, "--prior", prior, "--id", hid
        )
        assert result.code == 0, result.err
        assert result.out.strip() == hid
    return case_id


def test_evidence_moves_confidences_and_status_json_has_the_documented_shape(
    cli: CLI, case: str
) -> None:
    assert (
        cli(
            "evidence",
            "add",
            case,
            "--likelihood",
            "pcie=0.8",
            "--kind",
            "calculated",
            "--because",
            "78 layers of all-reduce",
        ).code
        == 0
    )
    result = cli(
        "evidence",
        "add",
        case,
        "--likelihood",
        "bw=0.05",
        "--likelihood",
        "compute=0.7",
        "--because",
        "PCIe ~1 GB/s of 64 under load",
        "--id",
        "pivot",
    )
    assert result.out.strip() == "pivot"
    status = json.loads(cli("status", case, "--json").out)
    rows = {h["id"]: h for h in status["hypotheses"]}
    assert set(rows) == {"pcie", "compute", "bw", "lat", "q/catch-all"}
    for row in rows.values():
        assert {"id", "text", "parent", "question", "confidence"} <= set(row)
        assert isinstance(row["confidence"], float)
    assert rows["bw"]["parent"] == "pcie" and rows["pcie"]["parent"] is None
    top = [h for h in status["hypotheses"] if h["parent"] is None]
    assert sum(h["confidence"] for h in top) == pytest.approx(1.0, abs=1e-12)
    assert rows["pcie"]["confidence"] == pytest.approx(
        rows["bw"]["confidence"] + rows["lat"]["confidence"], abs=1e-12
    )
    assert status["questions"][0]["leader"] == "compute"


def test_replay_json_marks_the_pivot(cli: CLI, case: str) -> None:
    cli(
        "evidence",
        "add",
        case,
        "--likelihood",
        "pcie=0.8",
        "--because",
        "calc",
        "--kind",
        "calculated",
    )
    cli(
        "evidence",
        "add",
        case,
        "--likelihood",
        "bw=0.02",
        "--likelihood",
        "lat=0.3",
        "--likelihood",
        "compute=0.9",
        "--because",
        "idle link under load",
    )
    replay = json.loads(cli("replay", case, "--json").out)
    steps = replay["steps"]
    assert [s["seq"] for s in steps] == list(range(1, len(steps) + 1))
    pivots = [s for s in steps if s["questions"].get("q", {}).get("pivot")]
    assert len(pivots) == 1 and pivots[0]["seq"] == steps[-1]["seq"]
    assert pivots[0]["questions"]["q"]["leader"] == "compute"
    assert pivots[0]["questions"]["q"]["previous_leader"] == "pcie"
    text = cli("replay", case).out
    assert "PIVOT [q]" in text and "never-measured" in text
    upto = json.loads(cli("replay", case, "--to", "3", "--json").out)
    assert [s["seq"] for s in upto["steps"]] == [1, 2, 3]


def test_refine_retire_reinstate(cli: CLI, case: str) -> None:
    assert cli("hypothesis", "refine", case, "lat", "collective latency, no P2P").code == 0
    assert cli("hypothesis", "retire", case, "lat", "--because", "P2P works").code == 0
    status = json.loads(cli("status", case, "--json").out)
    row = next(h for h in status["hypotheses"] if h["id"] == "lat")
    assert row["status"] == "retired" and row["confidence"] == 0.0
    assert row["text"] == "collective latency, no P2P"
    refused = cli("evidence", "add", case, "--likelihood", "lat=0.9", "--because", "x")
    assert refused.code == 1 and "retired" in refused.err and refused.err.count("\n") == 1
    assert cli("hypothesis", "reinstate", case, "lat").code == 0
    status = json.loads(cli("status", case, "--json").out)
    assert next(h for h in status["hypotheses"] if h["id"] == "lat")["confidence"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--likelihood", "pcie=1.5"), "within (0, 1]"),
        (("--likelihood", "pcie=0"), "within (0, 1]"),
        (("--likelihood", "nope=0.5"), "no hypothesis 'nope'"),
        (("--likelihood", "pcie=0.5", "--otherwise", "2"), "within (0, 1]"),
        (("--likelihood", "pcie=0.5", "--probe-run", "99"), "not a probe run"),
    ],
)
def test_bad_evidence_is_one_clear_line_and_nothing_is_written(
    cli: CLI, case: str, args: tuple[str, ...], message: str
) -> None:
    before = cli("log", case, "--json").out
    result = cli("evidence", "add", case, *args, "--because", "x")
    assert result.code == 1
    assert message in result.err and result.err.count("\n") == 1 and "Traceback" not in result.err
    assert cli("log", case, "--json").out == before


def test_prior_larger_than_the_catch_all_has_left_is_refused(cli: CLI, case: str) -> None:
    result = cli("hypothesis", "add", case, "memory-bound", "--under", "q", "--prior", "0.2")
    assert result.code == 1 and "catch-all" in result.err


def test_graph_formats(cli: CLI, case: str) -> None:
    cli("evidence", "add", case, "--likelihood", "bw=0.2", "--because", "idle link")
    dot = cli("graph", case, "--format", "dot").out
    assert dot.startswith("digraph casefile {") and '"h:bw"' in dot and "bears_on" in dot
    graphml = cli("graph", case, "--format", "graphml").out
    root = ET.fromstring(graphml)
    assert root.tag.endswith("graphml")
    mermaid = cli("graph", case, "--format", "mermaid").out
    assert mermaid.startswith("flowchart LR") and "-->|bears_on|" in mermaid


def test_unknown_case_is_a_one_line_error(cli: CLI) -> None:
    result = cli("status", "no-such-case")
    assert result.code == 1 and "no case 'no-such-case'" in result.err
    assert result.err.count("\n") == 1
