"""``nvidia-smi pmon`` read by ``compute-process-on-gpu`` as nvidia-smi's process table is: a
GPU with no compute process while the job runs says the job never reached it. Version 2 of
the rule read the table alone, and pmon was in no playbook's list, so a pasted pmon counted
for nothing."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.pmon import parse_pmon

from casefile.domain.rules import Applied, evaluate
from tests.parsers.corpus import CORPUS


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")
@pytest.mark.parametrize(
    ("sample", "reading"),
    [
        ("001.txt", "none"),  # one GPU, every cell '-': no process at all
        ("004.txt", "none"),  # four GPUs of eight, all idle
        ("003.txt", "some"),  # eight GPUs, one C process each
        ("005.txt", "some"),  # two C processes on some GPUs
    ],
)
def test_real_pmon_outputs(sample: str, reading: str) -> None:
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == "compute-process-on-gpu")
    facts = parse_pmon((CORPUS / "pmon" / sample).read_text(encoding="utf-8")).facts
    verdict = evaluate(rule, facts, "under-load")
    assert isinstance(verdict, Applied) and verdict.outcome == reading


def test_pmon_is_among_the_playbooks_probes() -> None:
    assert "nvidia-smi-pmon" in PLAYBOOK_V3.probes
