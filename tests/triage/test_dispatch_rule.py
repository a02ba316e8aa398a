"""gpu-throughput@3 reads TorchBench's dispatch and GPU times (``app-log``): a step whose host
dispatch takes about as long as the GPU runs it weighs for launch overhead; one whose host runs
far ahead weighs against it. Read on the verbatim outputs in ``tests/golden/app-log``."""

from __future__ import annotations

from pathlib import Path

from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.app_log import parse_app_log

from casefile.domain.rules import Applied, Rule, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "app-log"
RULE = "dispatch-against-gpu-time"


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == RULE)


def outcome(text: str) -> str:
    verdict = evaluate(rule(), parse_app_log(text).facts, "under-load")
    assert isinstance(verdict, Applied)
    return verdict.outcome


def test_eager_resnet50_whose_dispatch_is_the_whole_gpu_time_is_host_paced() -> None:
    """pytorch/benchmark#706: 1026.9 ms of dispatch against 1034.0 ms on the GPU."""
    assert outcome((GOLDEN / "032.txt").read_text(encoding="utf-8")) == "host-paced"
    row = rule().row
    assert row("compute-launch")["host-paced"] / row("memory-bandwidth")["host-paced"] >= 2.0


def test_a_host_far_ahead_of_the_gpu_weighs_against_launch_overhead() -> None:
    text = "GPU Time: 1038.927 milliseconds\nCPU Dispatch Time: 346.313 milliseconds\n"
    assert outcome(text) == "gpu-paced"
    row = rule().row
    assert row("compute-launch")["gpu-paced"] < row("power-cap")["gpu-paced"] / 2


def test_the_app_log_probe_feeds_the_rule() -> None:
    from casefile_probes.app_log import PROBE

    from casefile.domain.beliefs.ranking import feeds

    assert RULE in {r.id for r in PLAYBOOK_V3.rules if "app-log" in r.probes}
    assert feeds(rule(), PROBE.facts)
