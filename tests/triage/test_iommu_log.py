"""The kernel log's IOMMU lines read by ``kernel-iommu-translation`` beside the command line:
the default domain the kernel chose ("iommu: Default domain type: Passthrough") is what it
did, where ``/proc/cmdline`` is what was asked. Version 1 of the rule read the command line
alone, and the ``iommu-dmesg`` probe was in no playbook's list, so a pasted log counted for
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.iommu_dmesg import parse_iommu_dmesg

from casefile.domain.rules import Applied, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "iommu-dmesg"


@pytest.mark.parametrize(
    ("sample", "reading"),
    [
        ("001.txt", None),  # DMAR units enabled: says nothing of the domain type
        ("003.txt", "bypassed"),  # 'iommu: Default domain type: Passthrough'
        ("004.txt", "bypassed"),  # the log's own 'Command line:' with iommu=pt
    ],
)
def test_real_kernel_logs(sample: str, reading: str | None) -> None:
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == "kernel-iommu-translation")
    facts = parse_iommu_dmesg((GOLDEN / sample).read_text(encoding="utf-8")).facts
    verdict = evaluate(rule, facts, "idle")
    assert (verdict.outcome if isinstance(verdict, Applied) else None) == reading


def test_the_kernel_log_is_among_the_playbooks_probes() -> None:
    assert "iommu-dmesg" in PLAYBOOK_V3.probes
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == "kernel-iommu-translation")
    assert "iommu-dmesg" in rule.probes
