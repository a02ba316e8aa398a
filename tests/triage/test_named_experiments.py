"""``casefile experiment --tests HYP,…``: an A/B the person names as a test of hypotheses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casefile.domain.experiments import NAMED_PREDICT, OTHERS_PREDICT
from casefile.domain.kinds import STATED_RELIABILITY
from tests.cli.conftest import CLI
from tests.triage.conftest import nccl_table
from tests.triage.test_experiments import log, paste


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow all-reduce", "--id", "t1", "--playbook", "gpu-throughput@2").code == 0
    return "t1"


def _verdict(cli: CLI, case: str) -> dict[str, object]:
    last = log(cli, case)[-1]
    assert last["type"] == "evidence.assessed"
    payload: dict[str, object] = last["payload"]  # type: ignore[assignment]
    return payload


def test_a_change_no_rule_reads_is_read_by_the_generic_table(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    base = paste(cli, case, tmp_path, "a.txt", nccl_table(10.0, "NVIDIA A40"))
    variant = paste(cli, case, tmp_path, "b.txt", nccl_table(20.0, "NVIDIA A40"))
    result = cli(
        "experiment", case, "--change", "moved the GPUs to the other riser", "--baseline",
        str(base), "--variant", str(variant), "--tests", "pcie-bandwidth,link-degraded", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["rule"], out["outcome"]) == ("experiment.named", "faster")
    recorded = next(e for e in log(cli, case) if e["type"] == "experiment.recorded")
    assert recorded["payload"]["tests"] == ["pcie-bandwidth", "link-degraded"]  # type: ignore[index]
    payload = _verdict(cli, case)
    assert payload["rule"] == {"id": "experiment.named", "version": 1}
    assert payload["likelihoods"] == {
        "pcie-bandwidth": NAMED_PREDICT["faster"],
        "link-degraded": NAMED_PREDICT["faster"],
    }
    assert payload["otherwise"] == OTHERS_PREDICT["faster"]
    assert payload["kind"] == "measured"
    text = cli("log", case).out
    assert "[named a test of pcie-bandwidth, link-degraded]" in text
    assert "read by rule experiment.named v1 → 'faster'" in text


def test_tests_wins_over_the_rule_that_knows_the_change(cli: CLI, case: str) -> None:
    """NCCL_P2P_DISABLE=1 has its rule; named as a test of one hypothesis, the generic table
    reads it instead (never both: the same A/B would count twice)."""
    result = cli(
        "experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--reported", "20:20",
        "--unit", "GB/s", "--tests", "p2p-policy", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["rule"], out["outcome"]) == ("experiment.named", "same")
    payload = _verdict(cli, case)
    assert payload["likelihoods"] == {"p2p-policy": NAMED_PREDICT["same"]}
    assert payload["kind"] == "reported" and payload["reliability"] == STATED_RELIABILITY
    evidence = [e for e in log(cli, case) if e["type"] == "evidence.assessed"]
    assert len(evidence) == 1


def test_an_outcome_in_words_can_name_what_it_tests(cli: CLI, case: str) -> None:
    result = cli(
        "experiment", case, "--change", "reseated the riser cable", "--outcome", "fixed",
        "--tests", "link-degraded", "--tests", "pcie-bandwidth", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert json.loads(result.out)["rule"] == "experiment.named"
    payload = _verdict(cli, case)
    assert payload["likelihoods"] == {
        "link-degraded": NAMED_PREDICT["faster"],
        "pcie-bandwidth": NAMED_PREDICT["faster"],
    }
    assert payload["statistic"] == "fixed"


def test_the_generic_table_needs_a_direction_like_any_other(cli: CLI, case: str) -> None:
    """Figures with no unit: no rule states a direction for the generic table, so nothing is
    read until --direction says which way is better."""
    result = cli(
        "experiment", case, "--change", "reseated the riser", "--reported", "3:6",
        "--probe", "command", "--metric", "score", "--tests", "link-degraded",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "saying which way is would let it be read (--direction)" in result.out
    assert log(cli, case)[-1]["type"] == "experiment.recorded"


@pytest.mark.parametrize(
    ("tests", "message"),
    [
        ("pcie-bandwidth,nope", "tested: no hypothesis 'nope' in this case (hypotheses: pcie"),
        ("gremlins", "(hypotheses: pcie-bound, pcie-bandwidth, link-degraded"),
    ],
)
def test_an_unknown_hypothesis_is_one_line_naming_the_cases(
    cli: CLI, case: str, tests: str, message: str
) -> None:
    before = len(log(cli, case))
    result = cli(
        "experiment", case, "--change", "riser", "--outcome", "fixed", "--tests", tests,
    )  # fmt: skip
    assert result.code == 1 and message in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1
    assert len(log(cli, case)) == before


def test_tests_and_rule_do_not_go_together(cli: CLI, case: str) -> None:
    result = cli(
        "experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed",
        "--tests", "p2p-policy", "--rule", "p2p-disable",
    )  # fmt: skip
    assert result.code == 1 and "a rule cannot be chosen as well" in result.err


def test_an_empty_list_is_a_usage_error(cli: CLI, case: str) -> None:
    result = cli("experiment", case, "--change", "x", "--outcome", "fixed", "--tests", " , ")
    assert result.code == 2 and "name hypotheses" in result.err


@pytest.mark.parametrize(
    ("unit", "shown"),
    [
        ("tok/s", "throughput 10 → 20 tok/s (2.00×)"),
        ("s/step", "time 10 → 20 s/step (0.50×)"),
        (None, "figure 10 → 20"),
    ],
)
def test_figures_no_rule_reads_are_recorded_named_by_their_unit(
    cli: CLI, case: str, unit: str | None, shown: str
) -> None:
    """A reported A/B of a change no rule reads, with no --metric, was refused ("name the
    figure compared"): the figures are what the person knows, and the unit says what they are."""
    extra = ["--unit", unit] if unit else []
    result = cli(
        "experiment", case, "--change", "reinstalled the OS", "--reported", "10:20", *extra
    )  # fmt: skip
    assert result.code == 0, result.err
    assert shown in result.out
    assert "no rule of the case's playbook reads this change" in result.out
    recorded = next(e for e in log(cli, case) if e["type"] == "experiment.recorded")
    assert recorded["payload"]["metric"] == shown.split()[0]  # type: ignore[index]
