"""gpu-throughput@3 reads two things nvidia-smi's table already gave and no rule read: the device
memory the job holds and whether any process is on the GPU, under load.

Both separate the GPU left unused from a GPU left waiting (data loading, host code), which low
utilisation alone cannot: a job that waits on its data still holds its model in memory."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.smi_table import parse_smi_table

from casefile.domain.rules import Applied, Rule, derived_facts, evaluate
from tests.parsers.corpus import CORPUS as SHARED_CORPUS

CORPUS = SHARED_CORPUS / "smi-table"


def rule(rule_id: str) -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == rule_id)


def _read(sample: str, rule_id: str, load: str = "under-load") -> str | None:
    facts = parse_smi_table((CORPUS / sample).read_text(encoding="utf-8")).facts
    verdict = evaluate(rule(rule_id), [*facts, *derived_facts(facts)], load)
    return verdict.outcome if isinstance(verdict, Applied) else None


@pytest.mark.parametrize(
    ("sample", "memory", "processes"),
    [
        ("003.txt", "empty", "none"),  # 1 MiB of 40960, "No running processes found"
        ("002.txt", "some", "some"),  # a python process with its context only, 803 of 46068
        ("001.txt", "some", "some"),  # 1583 of 24564 MiB; Xorg (G) beside four compute
        ("018.txt", "held", "some"),  # processes holding 27426 of 46068 MiB
    ],
)
def test_nvidia_smi_says_whether_the_job_is_on_the_gpu(
    sample: str, memory: str, processes: str
) -> None:
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the checkout")
    assert _read(sample, "gpu-memory-held") == memory
    assert _read(sample, "compute-process-on-gpu") == processes


def test_an_idle_reading_is_set_aside() -> None:
    """At idle every GPU is empty and no process is listed: that says nothing of the job."""
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the checkout")
    assert _read("003.txt", "gpu-memory-held", load="idle") is None
    assert _read("003.txt", "compute-process-on-gpu", load="idle") is None


def test_an_empty_gpu_separates_unused_from_waiting() -> None:
    row = rule("gpu-memory-held").row
    # a loader that cannot keep up leaves the GPU idle but its model in memory
    assert row("gpu-unused")["empty"] >= 5 * row("data-loading")["empty"]
    # a small model holds little, on any card: launch-bound work is not read as unused
    assert row("compute-launch")["some"] >= row("gpu-unused")["some"] * 0.9
    assert row("data-loading")["held"] >= 3 * row("gpu-unused")["held"]
    # an empty process list counts little: containers hide the processes of the host
    listed = rule("compute-process-on-gpu").row
    assert 1.5 <= listed("gpu-unused")["none"] / listed("data-loading")["none"] <= 3
