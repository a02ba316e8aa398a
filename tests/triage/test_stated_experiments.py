"""``casefile experiment --outcome``: an A/B a person states in words, with no figures."""

from __future__ import annotations

import json

import pytest
from casefile_gpu_playbook import PLAYBOOK_V2

from casefile.cli.triage_commands import STATED
from casefile.domain.kinds import DEFAULT_RELIABILITY, STATED_RELIABILITY
from casefile.domain.triage import STATED_OUTCOMES
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow all-reduce", "--id", "w1", "--playbook", "gpu-throughput@2").code == 0
    return "w1"


def test_the_cli_offers_the_words_the_domain_reads() -> None:
    assert tuple(STATED_OUTCOMES) == STATED


@pytest.mark.parametrize(
    ("word", "outcome"),
    [("fixed", "faster"), ("better", "faster"), ("same", "same"), ("worse", "slower")],
)
def test_an_outcome_in_words_is_a_reported_experiment_without_figures(
    cli: CLI, case: str, word: str, outcome: str
) -> None:
    result = cli(
        "experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", word,
        "--note", "fixed by that setting, says the thread", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["rule"], out["outcome"], out["stated"]) == ("experiment.p2p-disable", outcome, word)
    assert out["metric"] is None and out["speedup"] is None
    recorded, verdict = log(cli, case)[-2:]
    assert recorded["type"] == "experiment.recorded"
    assert recorded["payload"] == {  # no figures, no runs, no probe
        "experiment_id": "x1",
        "change": "NCCL_P2P_DISABLE=1",
        "stated": word,
        "note": "fixed by that setting, says the thread",
        "reported": True,
        "chosen": True,  # the playbook chose its reader: read again when the answers change
    }
    payload = verdict["payload"]
    rule = next(r for r in PLAYBOOK_V2.experiments if r.id == "p2p-disable")
    assert payload["kind"] == "reported"  # type: ignore[index]
    # an outcome in words is weaker than the same A/B stated with its figures
    assert payload["reliability"] == DEFAULT_RELIABILITY["reported"] < STATED_RELIABILITY  # type: ignore[index]
    assert payload["outcome"] == outcome and payload["statistic"] == word  # type: ignore[index]
    assert payload["likelihoods"] == {h: row[outcome] for h, row in rule.rule.likelihoods.items()}  # type: ignore[index]
    assert payload["otherwise"] == rule.rule.otherwise[outcome]  # type: ignore[index]
    assert payload["experiment_id"] == "x1"  # type: ignore[index]


def test_log_and_show_say_what_was_stated(cli: CLI, case: str) -> None:
    said = cli("experiment", case, "--change", "iommu=pt", "--outcome", "fixed", "--note", "n")
    assert said.code == 0, said.err
    assert "stated fixed (no figures, reported)" in said.out
    assert "rule experiment.iommu-acs-off: faster → evidence e1" in said.out
    text = cli("log", case).out
    assert "experiment x1: iommu=pt — stated: fixed (no figures)" in text
    assert (
        "experiment x1 read by rule experiment.iommu-acs-off v1 → 'faster' (stated fixed)" in text
    )
    seq = next(e["seq"] for e in log(cli, case) if e["type"] == "experiment.recorded")
    shown = cli("show", case, str(seq))
    assert shown.code == 0, shown.err
    assert "stated: fixed (no figures)" in shown.out and "\n  n" in shown.out


def test_a_probe_named_limits_the_rules_that_read_it(cli: CLI, case: str) -> None:
    """batch-size reads only the command probe: an outcome seen on nccl-tests is not its."""
    seen = cli(
        "experiment", case, "--change", "batch 1 -> 32", "--outcome", "better",
        "--probe", "nccl-tests", "--json",
    )  # fmt: skip
    assert seen.code == 0, seen.err
    assert json.loads(seen.out)["rule"] is None
    anywhere = cli("experiment", case, "--change", "batch 1 -> 32", "--outcome", "better", "--json")
    assert json.loads(anywhere.out)["rule"] == "experiment.batch-size"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--reported", "1:2"], "drop --reported"),
        (["--baseline", "2", "--variant", "3"], "drop --baseline, --variant"),
        (["--unit", "s"], "drop --unit"),
        (["--probe", "nope"], "no probe 'nope'"),
    ],
)
def test_an_outcome_with_figures_is_refused_with_nothing_recorded(
    cli: CLI, case: str, args: list[str], message: str
) -> None:
    before = len(log(cli, case))
    result = cli("experiment", case, "--change", "iommu=pt", "--outcome", "fixed", *args)
    assert result.code == 1 and message in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1
    assert len(log(cli, case)) == before


def test_an_unknown_word_is_a_usage_error(cli: CLI, case: str) -> None:
    result = cli("experiment", case, "--change", "iommu=pt", "--outcome", "cured")
    assert result.code == 2 and "invalid choice: 'cured'" in result.err


def test_the_report_lists_it(cli: CLI, case: str, tmp_path: object) -> None:
    from pathlib import Path

    assert cli("experiment", case, "--change", "iommu=pt", "--outcome", "same").code == 0
    out = Path(str(tmp_path)) / "r.md"
    assert cli("report", case, "--format", "md", "-o", str(out)).code == 0
    report = out.read_text(encoding="utf-8")
    assert "iommu=pt — stated: same (no figures)" in report
    assert "read by rule experiment.iommu-acs-off v1 → same (stated same)" in report


def _transport_case(cli: CLI, name: str) -> None:
    assert cli("new", "slow DDP", "--id", name, "--playbook", "gpu-throughput@3").code == 0


def test_fixed_reads_as_a_large_gain_where_the_rule_reads_one_apart(cli: CLI) -> None:
    """A stated "fixed" says the change took the trouble away: the cost it removed was the limit,
    which is what a gain of 2x or more says (the rule's ``large_gain``). Read as the whole column, a
    reporter's "closing the other programs fixed it" counted for a loader held up by that CPU
    load about a third as much as for the CPU load itself (centernet-604, fairseq-3342)."""
    from casefile_gpu_playbook import PLAYBOOK_V3

    from casefile.domain.effect_size import NAMED_SHARE, OTHER_SHARE

    rule = next(r for r in PLAYBOOK_V3.experiments if r.id == "transport")
    (gain,) = [e for e in rule.large if e.outcome == "faster"]
    _transport_case(cli, "t1")
    fixed = cli("experiment", "t1", "--change", "gloo -> NCCL", "--outcome", "fixed", "--json")
    assert fixed.code == 0, fixed.err
    payload = log(cli, "t1")[-1]["payload"]
    assert payload["statistic"] == "fixed"  # type: ignore[index]
    likelihoods = payload["likelihoods"]  # type: ignore[index]
    for hypothesis, row in rule.rule.likelihoods.items():
        share = NAMED_SHARE if hypothesis in gain.hypotheses else OTHER_SHARE
        assert likelihoods[hypothesis] == pytest.approx(row["faster"] * share)  # type: ignore[index]
    assert payload["otherwise"] == pytest.approx(rule.rule.otherwise["faster"] * OTHER_SHARE)  # type: ignore[index]
    assert "'fixed' reads as a large effect" in payload["rationale"]  # type: ignore[index]
    # better says only which way: the whole column
    _transport_case(cli, "t2")
    assert cli("experiment", "t2", "--change", "gloo -> NCCL", "--outcome", "better").code == 0
    better = log(cli, "t2")[-1]["payload"]
    assert better["likelihoods"] == {  # type: ignore[index]
        h: row["faster"] for h, row in rule.rule.likelihoods.items()
    }
    assert "large effect" not in better["rationale"]  # type: ignore[index]


def test_fixed_reads_the_whole_column_where_the_rule_reads_no_size(cli: CLI, case: str) -> None:
    """p2p-disable (version 1) names no large gain: "fixed" there is "faster", as before."""
    rule = next(r for r in PLAYBOOK_V2.experiments if r.id == "p2p-disable")
    assert not [e for e in rule.large if e.outcome == "faster"]
    assert cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed").code == 0
    payload = log(cli, case)[-1]["payload"]
    assert payload["likelihoods"] == {h: r["faster"] for h, r in rule.rule.likelihoods.items()}  # type: ignore[index]
