"""How people write the one thing they changed between two runs, and which A/B rule reads it.

Each change below is a public report's own words (trimmed to the change, never reworded), about
a slow GPU job: training, inference servers, llama.cpp and Ollama, NCCL and several GPUs, data
loading, power and heat, PCIe and firmware, drivers and versions. Each says which rule of
gpu-throughput@3 should read it, as a GPU performance engineer would, and whether it runs that
rule's own A/B (``backwards=False``) or its reverse (``backwards=True``: the variant is the
rule's baseline, what :meth:`ExperimentRule.undoes` should say); ``None`` where no rule should.
The rule is the one ``casefile experiment`` picks (:func:`experiment_rule`, the first in file
order whose pattern reads the change) for a case that states no intake answers, so no rule's
``requires`` rules it out.

A change the current playbook reads wrong (another rule, no rule, or the wrong way round) is
marked ``xfail(strict=True)`` with what goes wrong: the file passes today, and a fix that reads
one right turns its xfail into a failure to be lifted.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.app.experiment_reading import experiment_rule
from tests.triage.wordings_fresh import FRESH
from tests.triage.wordings_fresh2 import FRESH2
from tests.triage.wordings_fresh3 import FRESH3
from tests.triage.wordings_host_work import HOST_WORK
from tests.triage.wordings_more import MORE
from tests.triage.wordings_multi_gpu import MULTI_GPU
from tests.triage.wordings_single_gpu import SINGLE_GPU

WORDINGS = [*MULTI_GPU, *SINGLE_GPU, *MORE, *FRESH, *FRESH2, *FRESH3, *HOST_WORK]


def _reading(change: str) -> tuple[str | None, bool]:
    """The rule the experiment command picks for ``change`` in a gpu-throughput@3 case with no
    intake answers, and whether that rule reads the change the other way round."""
    registry = SimpleNamespace(playbook=lambda _name: PLAYBOOK_V3)
    question = SimpleNamespace(playbook="gpu-throughput@3", id=PLAYBOOK_V3.question_id, answers={})
    projection = SimpleNamespace(questions={question.id: question})
    rule = experiment_rule(cast(Any, registry), cast(Any, projection), change, None, None)
    return (None, False) if rule is None else (rule.id, rule.undoes(change))


def test_the_wordings_are_many_and_distinct() -> None:
    changes = [p.values[0] for p in WORDINGS]
    assert len(changes) >= 100
    assert len(set(changes)) == len(changes)


@pytest.mark.parametrize(("change", "rule", "backwards"), WORDINGS)
def test_the_rule_that_should_read_a_change_reads_it_the_right_way(
    change: str, rule: str | None, backwards: bool
) -> None:
    assert _reading(change) == (rule, backwards)
