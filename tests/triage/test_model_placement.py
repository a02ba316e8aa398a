"""gpu-throughput@3 reads where a model server placed the model (``ollama ps``, llama.cpp's
"offloaded N/M layers to GPU"): a model left partly on the CPU weighs for the GPU left unused.

Before, a partial offload was read as "runs on CUDA" and counted against that hypothesis, and an
``ollama ps`` paste — the first thing Ollama's maintainers ask for in a "slow" report — was read
by no rule (ollama/ollama#10746: 11 % of the model on the CPU after an upgrade)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.app_log import parse_app_log
from casefile_probes.ollama_ps import parse_ollama_ps

from casefile.domain.rules import Applied, Rule, evaluate
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == "model-on-gpu-share")


@pytest.mark.parametrize(
    ("sample", "outcome"),
    [
        ("ollama-ps/001.txt", "whole"),  # 100% GPU
        ("ollama-ps/002.txt", "partial"),  # a 70b at 42%/58% CPU/GPU beside an 8b on the GPU
        ("ollama-ps/004.txt", "none"),  # 100% CPU
        ("ollama-ps/005.txt", "partial"),  # 0.7.0's row (89 % on the GPU) beside 0.6.8's
    ],
)
def test_ollama_ps_says_how_much_of_the_model_is_on_the_gpu(sample: str, outcome: str) -> None:
    facts = parse_ollama_ps((GOLDEN / sample).read_text(encoding="utf-8")).facts
    verdict = evaluate(rule(), facts, "idle")  # a placement holds at idle too
    assert isinstance(verdict, Applied) and verdict.outcome == outcome


@pytest.mark.parametrize(("sample", "outcome"), [("030.txt", "none"), ("031.txt", "partial")])
def test_llama_cpp_offloaded_layers_are_read_by_the_same_rule(sample: str, outcome: str) -> None:
    facts = parse_app_log((GOLDEN / "app-log" / sample).read_text(encoding="utf-8")).facts
    assert "app.device_cpu" not in {fact.name for fact in facts}  # one line, one reading
    verdict = evaluate(rule(), facts, "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == outcome


def test_a_model_partly_on_the_cpu_weighs_for_the_gpu_left_unused() -> None:
    row = rule().row
    assert row("gpu-unused")["partial"] >= 5 * row("memory-bandwidth")["partial"]
    assert row("gpu-unused")["partial"] >= 5 * row("upgrade-regression")["partial"]
    # a whole placement clears it, but not to nothing: "100% GPU" while the CPU works is known
    assert 0.05 <= row("gpu-unused")["whole"] <= 0.2


def test_an_ollama_ps_paste_under_command_moves_the_case(cli: CLI, tmp_path: Path) -> None:
    opened = cli(
        "new", "slow generation", "--id", "o", "--playbook", "gpu-throughput",
        "--env", "gpus=1x RTX 3090", "--env", "workload=inference-small-batch",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    before = _share(cli, "gpu-unused")
    paste = tmp_path / "ps.txt"
    paste.write_text((GOLDEN / "ollama-ps" / "002.txt").read_text(encoding="utf-8"))
    ran = cli("probe", "o", "command", "--paste", str(paste), "--", "ollama", "ps")
    assert ran.code == 0, ran.err
    assessed = [e for e in log(cli, "o") if e["type"] == "evidence.assessed"]
    assert [e["payload"]["rule"]["id"] for e in assessed][-1] == "model-on-gpu-share"
    assert assessed[-1]["payload"]["outcome"] == "partial"
    assert _share(cli, "gpu-unused") > 3 * before


def test_a_training_job_is_not_asked_for_ollama_ps(cli: CLI) -> None:
    opened = cli(
        "new", "slow training", "--id", "t", "--playbook", "gpu-throughput",
        "--env", "gpus=1x A100", "--env", "workload=training",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    steps = json.loads(cli("status", "t", "--json").out)["next_steps"]
    assert not [s for s in steps if s["rule"] == "model-on-gpu-share"]
    served = cli(
        "new", "slow serving", "--id", "s", "--playbook", "gpu-throughput",
        "--env", "gpus=1x RTX 3090", "--env", "workload=inference-small-batch",
    )  # fmt: skip
    assert served.code == 0, served.err
    steps = json.loads(cli("status", "s", "--json").out)["next_steps"]
    assert "ollama-ps" in {s["probe"] for s in steps if s["rule"] == "model-on-gpu-share"}


def _share(cli: CLI, leaf: str, case: str = "o") -> float:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return float(next(h for h in hypotheses if h["id"] == leaf)["confidence"])
