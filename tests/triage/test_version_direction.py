"""An A/B between two versions: which way it runs, and what a slowdown then says.

The version rule's own A/B goes back to the previous version, so "faster" blames the version
the case is slow on. People write the A/B the way the trouble happened, too: "Ollama 0.6.8 ->
0.7.0", the variant on the new and slow version. The first reading took that slowdown as
evidence against a regression, the very thing it shows (found in ollama-10746's trajectory:
the A/B that showed 0.7.0 three times slower lowered the upgrade-regression hypothesis).
"""

from __future__ import annotations

import json

import pytest

from casefile.domain.version_direction import goes_back
from tests.cli.conftest import CLI


@pytest.mark.parametrize(
    "change",
    [
        "deepspeed 0.5.8 -> 0.5.3 (downgrade, same model and setup)",
        "nccl 2.23.4 -> 2.22.3 (pip install nvidia-nccl-cu12, bisected)",
        "NVIDIA driver 536 -> 531.79 (rollback)",
        "SGLang rolled back from the merge e76d362 to its parent commit",
        "transformers commit a7e0ed8 -> ab37b80 (revert to the commit right before it)",
        "vLLM 0.4.2 -> v0.4.1",
        "torch 2.10 -> 2.9.1",
    ],
)
def test_a_change_that_says_it_goes_back_goes_back(change: str) -> None:
    assert goes_back(change)


@pytest.mark.parametrize(
    "change",
    [
        "Ollama 0.6.8 -> 0.7.0 (same model, same GPU)",
        "NCCL 2.5.6 -> NCCL 2.7.8 (same command, same two nodes)",
        "NVIDIA driver 536 -> 546 (update)",
        "text-generation-webui commit 5744b31 -> f2bf1a2 (same options)",
        "torch 2.9.1 -> 2.10",
        "nccl 2.19.3 -> 2.19.3 + NVIDIA/nccl PR #1112",
        "pip install nvidia-nccl-cu12==2.21.5",
    ],
)
def test_an_upgrade_or_a_change_of_unknown_order_does_not(change: str) -> None:
    assert not goes_back(change)


@pytest.fixture
def case(cli: CLI) -> str:
    made = cli(
        "new", "slow after an upgrade", "--id", "v1", "--playbook", "gpu-throughput",
        "--env", "after-upgrade=framework",
    )  # fmt: skip
    assert made.code == 0, made.err
    return "v1"


def _verdict(cli: CLI, case: str, *args: str) -> dict[str, object]:
    result = cli("experiment", case, *args, "--json")
    assert result.code == 0, result.err
    events = json.loads(cli("log", case, "--json").out)
    payload: dict[str, object] = events[-1]["payload"]
    return payload


@pytest.mark.parametrize(
    ("change", "figures", "outcome", "either"),
    [
        # the trouble as it happened: the new version three times slower blames it
        ("Ollama 0.6.8 -> 0.7.0", "36.02:13.08", "faster", True),
        # the rule's own A/B: back to the old version, faster
        ("Ollama 0.7.0 -> 0.6.8", "13.08:36.02", "faster", False),
        # back to the old version, and the old one is worse: the new one is not to blame
        ("Ollama 0.7.0 -> 0.6.8", "36.02:13.08", "slower", False),
        # an upgrade that fixes it blames the version it left, as it did before
        ("Ollama 0.7.0 -> 0.7.1", "13.08:36.02", "faster", False),
    ],
)
def test_a_slowdown_under_a_version_change_that_does_not_go_back_blames_the_version(
    cli: CLI, case: str, change: str, figures: str, outcome: str, either: bool
) -> None:
    verdict = _verdict(
        cli, case, "--change", change, "--reported", figures, "--unit", "tok/s"
    )  # fmt: skip
    assert verdict["rule"] == {"id": "experiment.version", "version": 2}
    assert verdict["outcome"] == outcome
    assert ("does not say it goes back" in str(verdict["rationale"])) is either
    likelihoods = verdict["likelihoods"]
    assert isinstance(likelihoods, dict)
    blamed = likelihoods["upgrade-regression"] > float(str(verdict["otherwise"]))
    assert blamed is (outcome == "faster")


def test_an_outcome_in_words_runs_the_same_way(cli: CLI, case: str) -> None:
    worse = _verdict(cli, case, "--change", "vllm 0.4.0 -> 0.4.1", "--outcome", "worse")
    assert worse["outcome"] == "faster"
    assert "does not say it goes back" in str(worse["rationale"])
    back = _verdict(cli, case, "--change", "vllm 0.4.1 -> 0.4.0", "--outcome", "worse")
    assert back["outcome"] == "slower"


def test_the_rule_listing_says_which_way_a_version_change_is_read(cli: CLI) -> None:
    shown = cli("experiment", "rules", "--playbook", "gpu-throughput@3")
    assert shown.code == 0, shown.err
    block = shown.out.split("experiment.version (")[1].split("\nexperiment.")[0]
    assert "way:     going back to an earlier version" in block
    listed = json.loads(cli("experiment", "rules", "--playbook", "gpu-throughput@3", "--json").out)
    ways = {rule["id"]: rule["way"] for rule in listed}
    assert "may run either way" in ways["experiment.version"]
    assert ways["experiment.batch-size"] == ""
