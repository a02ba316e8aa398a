"""gpu-throughput@3 reads an inference server's start-up statement that it runs without CUDA
graphs (vLLM's eager mode, SGLang's ``disable_cuda_graph``): small-batch decode launched kernel
by kernel is launch-bound. The A/B that turns graphs on was read before; the start-up lines that
say they are off, which people paste first, were not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.app_log import parse_app_log

from casefile.domain.rules import Applied, Rule, evaluate
from tests.cli.conftest import CLI

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "app-log"


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == "cuda-graphs-off")


def _outcome(text: str) -> str | None:
    verdict = evaluate(rule(), parse_app_log(text).facts, "under-load")
    return verdict.outcome if isinstance(verdict, Applied) else None


@pytest.mark.parametrize(("sample", "outcome"), [("051.txt", "on"), ("052.txt", "off")])
def test_start_up_lines_say_whether_graphs_are_captured(sample: str, outcome: str) -> None:
    assert _outcome((GOLDEN / sample).read_text(encoding="utf-8")) == outcome


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        # vLLM's capture notice names the setting as advice, in quotes: graphs are on
        ("Capturing cudagraphs for decoding. To run the model in eager mode, set "
         "'enforce_eager=True' or use '--enforce-eager' in the CLI.", "on"),
        ("Initializing an LLM engine with config: model='m', enforce_eager=True, seed=0", "off"),
        ("with config: model='m', tensor_parallel_size=1, enforce_eager=False, seed=0", "on"),
        ("server_args=ServerArgs(model_path='m', disable_cuda_graph=True, port=30000)", "off"),
        ("python -m sglang.launch_server --model-path m --disable-cuda-graph", "off"),
        ("vllm serve m --enforce-eager --max-model-len 4096", "off"),
        ("llm = LLM(model=path, enforce_eager=True)", "off"),
        ("a line about nothing of the kind", None),
    ],
)  # fmt: skip
def test_which_lines_say_off_and_which_on(line: str, outcome: str | None) -> None:
    assert _outcome(line + "\n") == outcome


def test_a_log_that_says_both_counts_as_off_and_says_so() -> None:
    text = "vllm serve m --enforce-eager\nGraph capturing finished in 14 secs\n"
    result = parse_app_log(text)
    assert [(f.name, f.value) for f in result.facts] == [("app.cuda_graphs_off", True)]
    assert "taken as without" in result.problems[0]


def test_eager_mode_weighs_for_launch_overhead() -> None:
    row = rule().row
    assert row("compute-launch")["off"] >= 3 * row("memory-bandwidth")["off"]
    # graphs captured leave launch overhead possible: they clear it only in part
    assert row("compute-launch")["on"] >= 0.5


def test_the_rule_is_offered_to_inference_only(cli: CLI) -> None:
    for case, workload, offered in (("i", "inference-small-batch", True), ("t", "training", False)):
        opened = cli(
            "new", "slow", "--id", case, "--playbook", "gpu-throughput",
            "--env", "gpus=1x L40S", "--env", f"workload={workload}",
        )  # fmt: skip
        assert opened.code == 0, opened.err
        steps = json.loads(cli("status", case, "--json").out)["next_steps"]
        assert any(s["rule"] == "cuda-graphs-off" for s in steps) is offered


def test_training_does_not_count_against_launch_overhead() -> None:
    """Small models and small batches are launch-bound in training too (change 66): the intake
    row gave training 0.08 for compute-launch against 0.30 for any cause, so a launch-bound
    training job started 3.75x behind."""
    row = next(q for q in PLAYBOOK_V3.intake if q.id == "workload").rule.row
    assert row("compute-launch")["training"] >= row("gpu-unused")["training"] - 0.05
    assert row("compute-launch")["training"] >= row("throughput/catch-all")["training"]
    assert row("compute-launch")["inference-small-batch"] > row("compute-launch")["training"]
