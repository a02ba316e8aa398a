"""gpu-throughput@3 reads how often a process held the GIL (``py-spy top``'s header): Python
itself keeping the process busy points at the host's CPU, not at an unused GPU or a loader in
worker processes."""

from __future__ import annotations

from pathlib import Path

from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.py_spy import parse_py_spy

from casefile.domain.rules import Applied, Rule, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "py-spy"


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == "stack-holds-gil")


def test_a_process_holding_the_gil_weighs_for_the_hosts_cpu() -> None:
    # the vLLM engine of vllm-project/vllm#9113 (GIL: 71.43%), its source in SOURCES
    facts = parse_py_spy((GOLDEN / "007.txt").read_text(encoding="utf-8")).facts
    verdict = evaluate(rule(), facts, "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == "held"
    row = rule().row
    assert row("host-cpu")["held"] >= 2.5 * row("gpu-unused")["held"]
    assert row("host-cpu")["held"] >= 3 * row("data-loading")["held"]
    assert row("host-cpu")["held"] > row("memory-bandwidth")["held"]  # a GPU-bound job


def test_a_process_that_leaves_it_free_weighs_against_it() -> None:
    # a download tool blocked in socket reads (GIL: 6.00%)
    facts = parse_py_spy((GOLDEN / "002.txt").read_text(encoding="utf-8")).facts
    verdict = evaluate(rule(), facts, "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == "released"


def test_a_dump_has_no_gil_share_and_is_not_read() -> None:
    facts = parse_py_spy((GOLDEN / "004.txt").read_text(encoding="utf-8")).facts
    assert not isinstance(evaluate(rule(), facts, "under-load"), Applied)
