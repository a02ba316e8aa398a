"""gpu-throughput@3's A/B on the host's CPU resources (``experiment.host-threads``): which
changes it reads, and what a faster run says.

A change of the job's CPU resources (thread counts, affinity, other load on the same cores)
that moves throughput says the host's CPU sets the pace. It speaks much less for data loading
(the loader's workers are processes of their own) or an unused GPU (a thread count does not put
the work on the GPU).
"""

from __future__ import annotations

import pytest

from casefile.domain.experiments import ExperimentRule
from tests.cli.conftest import builtin_registry

#: how much more a faster run must say for host-cpu than for each of these, at least
HOST_CPU_OVER = {"data-loading": 3.0, "gpu-unused": 3.0}


def playbook_rules() -> tuple[ExperimentRule, ...]:
    return builtin_registry().playbook("gpu-throughput@3").experiments


def reading_rule(change: str) -> str | None:
    """The first experiment rule of version 3 that reads ``change`` (the service's order)."""
    return next((r.id for r in playbook_rules() if r.matches(change)), None)


@pytest.mark.parametrize(
    "change",
    [
        "OMP_NUM_THREADS=8",
        "-t 7",
        "CPU thread count set to 7 (-t 7)",
        "run with 8 threads instead of 32",
        "two PyCharm windows (other CPU load) closed",
        "stopped the background jobs on the box",
        "killed other programs using the CPU",
        "docker run --cpus 16",
        "pinned to a cpuset of 16 cores",
        "taskset -c 0-15",
    ],
)
def test_changes_of_the_hosts_cpu_resources_are_read_as_such(change: str) -> None:
    assert reading_rule(change) == "host-threads"


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ("num_workers 2 -> 8", "data-pipeline"),
        ("dataset moved from HDD to NVMe", "data-pipeline"),
        ("-ngl 99", "gpu-offload"),
    ],
)
def test_changes_to_the_pipeline_or_the_offload_are_not(change: str, rule: str) -> None:
    assert reading_rule(change) == rule


def test_a_faster_run_speaks_for_host_cpu_far_more_than_for_data_loading_or_an_idle_gpu() -> None:
    rule = next(r for r in playbook_rules() if r.id == "host-threads").rule
    host_cpu = rule.likelihoods["host-cpu"]["faster"]
    for other, at_least in HOST_CPU_OVER.items():
        ratio = host_cpu / rule.likelihoods[other]["faster"]
        assert ratio >= at_least, f"host-cpu against {other}: {ratio:.2f}"
    # and each still more than a cause the CPU does not touch
    for other in HOST_CPU_OVER:
        assert rule.likelihoods[other]["faster"] > rule.otherwise["faster"]
