"""gpu-throughput@3 reads PyTorch's environment report (``python -m torch.utils.collect_env``),
pasted into nearly every PyTorch issue: a CPU-only build or CUDA not available is the job left
off the GPU (runs-on-cpu), and a machine that lists one GeForce answers how many GPUs and which
class, as a llama.cpp log's device list does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from casefile_gpu_playbook import PLAYBOOK_V3

from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "torch-env"


def known_answers(cli: CLI, case: str) -> dict[str, str]:
    listed = cli("intake", case, "--list", "--json")
    assert listed.code == 0, listed.err
    rows: list[dict[str, Any]] = json.loads(listed.out)
    return {row["id"]: row["known"]["answer"] for row in rows if row["known"]}


def share(cli: CLI, case: str, leaf: str) -> float:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return float(next(h for h in hypotheses if h["id"] == leaf)["confidence"])


def paste(tmp_path: Path, sample: str) -> str:
    target = tmp_path / f"{sample}.txt"
    target.write_text((GOLDEN / f"{sample}.txt").read_text(encoding="utf-8"), encoding="utf-8")
    return str(target)


def test_the_playbook_runs_torch_env_and_its_rule_reads_it() -> None:
    assert "torch-env" in PLAYBOOK_V3.probes
    readers = {rule.id for rule in PLAYBOOK_V3.rules_for_probe("torch-env")}
    assert readers == {"runs-on-cpu"}


def test_a_cpu_build_pasted_under_command_is_evidence_the_gpu_is_unused(
    cli: CLI, tmp_path: Path
) -> None:
    opened = cli("new", "slow training", "--id", "c", "--playbook", "gpu-throughput")
    assert opened.code == 0, opened.err
    before = share(cli, "c", "gpu-unused")
    ran = cli(
        "probe", "c", "command", "--paste", paste(tmp_path, "001"), "--load", "under-load",
        "--", "python", "-m", "torch.utils.collect_env",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assessed = [e for e in log(cli, "c") if e["type"] == "evidence.assessed"]
    (evidence,) = [e for e in assessed if e["payload"]["rule"]["id"] == "runs-on-cpu"]
    assert evidence["payload"]["outcome"] == "cpu"
    assert share(cli, "c", "gpu-unused") > 3 * before


def test_one_geforce_answers_gpu_class_and_gpu_count(cli: CLI, tmp_path: Path) -> None:
    opened = cli("new", "slow training", "--id", "g", "--playbook", "gpu-throughput")
    assert opened.code == 0, opened.err
    ran = cli(
        "probe", "g", "command", "--paste", paste(tmp_path, "005"), "--load", "under-load",
        "--", "python3", "-m", "torch.utils.collect_env",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert known_answers(cli, "g") == {"gpu-count": "one", "gpu-class": "consumer"}
    # CUDA available: no verdict on the device, so runs-on-cpu gives no evidence
    assessed = [e for e in log(cli, "g") if e["type"] == "evidence.assessed"]
    assert not [e for e in assessed if e["payload"]["rule"]["id"] == "runs-on-cpu"]


def test_several_gpus_on_the_machine_say_nothing_of_the_job(cli: CLI, tmp_path: Path) -> None:
    opened = cli("new", "slow training", "--id", "s", "--playbook", "gpu-throughput")
    assert opened.code == 0, opened.err
    ran = cli(
        "probe", "s", "command", "--paste", paste(tmp_path, "006"), "--load", "under-load",
        "--", "python3", "-m", "torch.utils.collect_env",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert known_answers(cli, "s") == {"gpu-class": "consumer"}


def test_the_environment_report_is_read_but_not_offered_as_a_next_step(cli: CLI) -> None:
    """It speaks one way only (a build that cannot use the GPU), so ranking it as a step
    would credit it with clearing the GPU left unused; the application's log, which can say
    either, is offered instead."""
    made = cli(
        "new", "whisper is slow", "--id", "te", "--playbook", "gpu-throughput",
        "--env", "software=PyTorch 2.4, openai-whisper",
    )  # fmt: skip
    assert made.code == 0, made.err
    shown = cli("status", "te", "--json")
    assert shown.code == 0, shown.err
    probes = [step["probe"] for step in json.loads(shown.out)["next_steps"]]
    assert "app-log" in probes and "torch-env" not in probes
