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

from casefile.domain.change_forms import change_readings
from casefile.domain.version_direction import direction
from tests.cli.conftest import CLI

BACK = [
    "deepspeed 0.5.8 -> 0.5.3 (downgrade, same model and setup)",
    "nccl 2.23.4 -> 2.22.3 (pip install nvidia-nccl-cu12, bisected)",
    "NVIDIA driver 536 -> 531.79 (rollback)",
    "SGLang rolled back from the merge e76d362 to its parent commit",
    "transformers commit a7e0ed8 -> ab37b80 (revert to the commit right before it)",
    "vLLM 0.4.2 -> v0.4.1",
    "torch 2.10 -> 2.9.1",
    # found by a review: spellings the first reading missed
    "ollama 0.7.0 to 0.6.8",
    "torch from 2.2 to 2.1",
    "llama.cpp b2600 -> b2450",
    "back to torch 2.1.2",
    "went back to the prior release",
    "last known good 0.6.8",
    "nightly -> stable torch 2.3",
    "main -> release-1.2",
    "2024-06-01 -> 2024-05-01",
    "cu121 -> cu118",
    "vLLM 0.4.2 ➜ 0.4.1",
    "driver 550 downgraded to 535",
]
FORWARD = [
    "Ollama 0.6.8 -> 0.7.0 (same model, same GPU)",
    "NCCL 2.5.6 -> NCCL 2.7.8 (same command, same two nodes)",
    "NVIDIA driver 536 -> 546 (update)",
    "torch 2.9.1 -> 2.10",
    # found by a review: an upgrade taken for a rollback by a word or a number elsewhere
    "torch 2.1 -> 2.2 (slower than before)",
    "upgraded from the previous release 0.6.8 to 0.7.0",
    "0.6.8 (older) -> 0.7.0 (newer)",
    "CUDA 11.8 -> 12.1 (no rollback)",
    "on 8 GPUs: torch 2.1 -> torch 2.2",
    "torch 2.1.2+cu118 -> 2.2.0+cu121",
    "stable -> nightly",
    "llama.cpp b2450 -> b2600",
]
UNKNOWN = [
    "text-generation-webui commit 5744b31 -> f2bf1a2 (same options)",
    "pip install nvidia-nccl-cu12==2.21.5",
]


@pytest.mark.parametrize(
    ("change", "way"),
    [*((c, "back") for c in BACK), *((c, "forward") for c in FORWARD),
     *((c, "unknown") for c in UNKNOWN)],
)  # fmt: skip
def test_which_way_a_version_change_runs(change: str, way: str) -> None:
    assert direction(change_readings(change)) == way


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
        # an order nothing states is taken oldest first, after an upgrade
        ("webui commit 5744b31 -> f2bf1a2", "10:1", "faster", True),
        # a rollback spelled in words, slower: the old version is worse, the new one cleared
        ("ollama 0.7.0 to 0.6.8", "36.02:13.08", "slower", False),
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
    assert ("does not go back" in str(verdict["rationale"])) is either
    likelihoods = verdict["likelihoods"]
    assert isinstance(likelihoods, dict)
    blamed = likelihoods["upgrade-regression"] > float(str(verdict["otherwise"]))
    assert blamed is (outcome == "faster")


def test_an_outcome_in_words_runs_the_same_way(cli: CLI, case: str) -> None:
    worse = _verdict(cli, case, "--change", "vllm 0.4.0 -> 0.4.1", "--outcome", "worse")
    assert worse["outcome"] == "faster"
    assert "does not go back" in str(worse["rationale"])
    back = _verdict(cli, case, "--change", "vllm 0.4.1 -> 0.4.0", "--outcome", "worse")
    assert back["outcome"] == "slower"


def test_the_rule_listing_says_which_way_a_version_change_is_read(cli: CLI) -> None:
    shown = cli("experiment", "rules", "--playbook", "gpu-throughput@3")
    assert shown.code == 0, shown.err
    block = shown.out.split("experiment.version (")[1].split("\nexperiment.")[0]
    assert "way:     going back to an earlier version" in block
    listed = json.loads(cli("experiment", "rules", "--playbook", "gpu-throughput@3", "--json").out)
    ways = {rule["id"]: rule["way"] for rule in listed}
    assert "the way the trouble happened" in ways["experiment.version"]
    assert ways["experiment.batch-size"] == (
        "its number raised is its own A/B; lowered, it is read backwards"
    )
    assert ways["experiment.cuda-graphs"] == (
        'a switch turned on is its own A/B; one turned off ("on -> off") is read backwards'
    )
    assert ways["experiment.data-pipeline"] == (
        "its count raised is its own A/B; lowered, set to 0 or 'without' it, it is read backwards"
    )
    assert ways["experiment.visible-devices"] == ""


@pytest.mark.parametrize("stated", [["--env", "after-upgrade=no"], []])
def test_without_an_upgrade_before_the_trouble_a_slower_newer_version_reads_as_it_is(
    cli: CLI, stated: list[str]
) -> None:
    """Found by a review: a case slow on its current version, with nothing upgraded (or nothing
    said), where a newer one is slower still, says the current version is the better one; it
    had been read as blaming a regression."""
    made = cli("new", "slow", "--id", "nu", "--playbook", "gpu-throughput", *stated)
    assert made.code == 0, made.err
    verdict = _verdict(
        cli, "nu", "--change", "torch 2.1.2 -> 2.2.0 (tried the newer release)",
        "--reported", "100:60", "--unit", "tok/s",
    )  # fmt: skip
    assert verdict["outcome"] == "slower"
    assert "does not go back" not in str(verdict["rationale"])


@pytest.mark.parametrize("runs_back", [True, {"intake": "after-upgrade"}, {"answers": ["x"]}])
def test_a_malformed_runs_back_is_refused_when_the_playbook_loads(runs_back: object) -> None:
    from casefile_gpu_playbook import PLAYBOOK

    from casefile.domain.experiments import experiment_from_dict
    from casefile.errors import RuleError

    raw = {
        "id": "v", "version": 1, "title": "t", "change": "version", "probes": ["command"],
        "metric": ["throughput"], "noise": 0.1, "noise_why": "spread",
        "likelihoods": {"otherwise": {"faster": 0.1, "same": 0.8, "slower": 0.1}},
        "rationale": "why", "runs_back": runs_back,
    }  # fmt: skip
    known = {h.id for h in PLAYBOOK.hypotheses}
    with pytest.raises(RuleError, match="runs_back"):
        experiment_from_dict(raw, "throughput", known, "test")
