"""Rebalancing priors from the command line: ``hypothesis add --rebalance`` and
``hypothesis prior``, recorded as events that replay, export and import to the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CLI


@pytest.fixture
def case(cli: CLI) -> str:
    case_id = cli("new", "Slow decode", "--id", "slow").out.strip()
    cli("question", "add", case_id, "What limits decode?", "--id", "q")
    for hid in ("a", "b", "c"):
        added = cli(
            "hypothesis", "add", case_id, hid, "--under", "q", "--prior", "0.3", "--id", hid
        )
        assert added.code == 0, added.err
    return case_id


def confidences(cli: CLI, case: str) -> dict[str, float]:
    data = json.loads(cli("hypothesis", "list", case, "--json").out)
    return {h["id"]: h["confidence"] for h in data["hypotheses"]}


def priors(cli: CLI, case: str) -> dict[str, float]:
    data = json.loads(cli("hypothesis", "list", case, "--json").out)
    return {h["id"]: h["prior"] for h in data["hypotheses"]}


def test_the_fourth_hypothesis_fits_with_rebalance(cli: CLI, case: str) -> None:
    refused = cli("hypothesis", "add", case, "d", "--under", "q", "--prior", "0.2", "--id", "d")
    assert refused.code == 1
    assert "has left (0 of its 0.1); --rebalance scales" in refused.err
    events = len(json.loads(cli("log", case, "--json").out))
    added = cli(
        "hypothesis", "add", case, "d", "--under", "q", "--prior", "0.2", "--id", "d", "--rebalance"
    )
    assert added.code == 0, added.err
    assert added.out.strip() == "d"
    log = json.loads(cli("log", case, "--json").out)
    assert [e["type"] for e in log[events:]] == ["priors.rebalanced", "hypothesis.proposed"]
    now = priors(cli, case)
    assert now["d"] == 0.2
    assert now["a"] == now["b"] == now["c"] == pytest.approx(0.7 / 3, abs=1e-12)
    assert now["q/catch-all"] == pytest.approx(0.1, abs=1e-12)


def test_prior_after_evidence_needs_force(cli: CLI, case: str) -> None:
    cli("evidence", "add", case, "--likelihood", "a=0.9", "--because", "measured it")
    before = json.loads(cli("log", case, "--json").out)
    refused = cli("hypothesis", "prior", case, "a", "0.5")
    assert refused.code == 1
    assert refused.err.startswith("casefile: error: question 'q' already has 1 piece of evidence")
    assert refused.err.count("\n") == 1
    assert json.loads(cli("log", case, "--json").out) == before  # nothing appended
    forced = cli("hypothesis", "prior", case, "a", "0.5", "--force", "--because", "miscounted")
    assert forced.code == 0, forced.err
    last = json.loads(cli("log", case, "--json").out)[-1]
    assert last["type"] == "priors.rebalanced"
    assert last["payload"]["forced"] is True
    assert last["payload"]["reason"] == "miscounted"
    assert "rebalanced (forced, after evidence)" in cli("log", case).out


def test_force_alone_is_a_usage_error(cli: CLI, case: str) -> None:
    result = cli("hypothesis", "add", case, "d", "--under", "q", "--prior", "0.05", "--force")
    assert result.code == 2
    assert "--force only goes with --rebalance" in result.err


def test_rebalanced_case_exports_and_imports_to_the_same_numbers(
    cli: CLI, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("hypothesis", "add", case, "d", "--under", "q", "--prior", "0.2", "--rebalance")
    cli("evidence", "add", case, "--likelihood", "a=0.7", "--likelihood", "d=0.2", "--because", "x")
    cli("hypothesis", "prior", case, "b", "0.2", "--force")
    cli("evidence", "add", case, "--likelihood", "c=0.6", "--otherwise", "0.3", "--because", "y")
    expected = confidences(cli, case)
    replay = json.loads(cli("replay", case, "--json").out)
    assert cli("export", case, str(tmp_path / "out")).code == 0
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{tmp_path / 'other.db'}")
    assert cli("import", str(tmp_path / "out")).code == 0, "import refused the rebalanced case"
    assert confidences(cli, case) == expected
    assert json.loads(cli("replay", case, "--json").out)["steps"] == replay["steps"]
    assert confidences(cli, str(tmp_path / "out")) == expected  # the directory, read in place
