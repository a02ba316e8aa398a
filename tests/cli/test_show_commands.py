"""`show` and `hypothesis show`: one event in full, and why a confidence is what it is, at any
step (and a one-line error for a step or a hypothesis that does not exist)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CLI

REFERENCE = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"


@pytest.fixture
def glm5(cli: CLI) -> str:
    assert cli("import", str(REFERENCE)).code == 0
    return "glm5-pcie-pivot"


def test_hypothesis_show_at_a_step_reports_that_steps_numbers(cli: CLI, glm5: str) -> None:
    status = json.loads(cli("status", glm5, "--to", "30", "--json").out)
    then = {h["id"]: h["confidence"] for h in status["hypotheses"]}
    shown = json.loads(
        cli("hypothesis", "show", glm5, "compute-launch", "--to", "30", "--json").out
    )
    assert shown["confidence"] == then["compute-launch"]
    now = json.loads(cli("hypothesis", "show", glm5, "compute-launch", "--json").out)
    assert now["confidence"] != shown["confidence"]
    assert {c["seq"] for c in shown["contributions"]} <= set(range(1, 31))


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["hypothesis", "show", "glm5-pcie-pivot", "compute-launch", "--to", "3"], "at seq 3"),
        (
            ["hypothesis", "show", "glm5-pcie-pivot", "throughput/catch-all", "--to", "7"],
            "at seq 7",
        ),
        (["hypothesis", "show", "glm5-pcie-pivot", "no-such"], "no hypothesis 'no-such'"),
        (["show", "glm5-pcie-pivot", "999"], "no event 999"),
    ],
)
def test_a_step_or_hypothesis_that_does_not_exist_is_one_line(
    cli: CLI, glm5: str, words: list[str], message: str
) -> None:
    result = cli(*words)
    assert result.code == 1
    assert result.err.count("\n") == 1 and message in result.err, result.err
    assert "Traceback" not in result.err


def test_show_gives_a_probe_runs_raw_output_and_its_hash(cli: CLI, glm5: str) -> None:
    shown = cli("show", glm5, "27")
    assert shown.code == 0
    assert "NVSMI LOG" in shown.out and "nvidia-smi -q" in shown.out
    detail = json.loads(cli("show", glm5, "27", "--json").out)
    log = json.loads(cli("log", glm5, "--json").out)
    assert detail["hash"] == log[26]["hash"]
