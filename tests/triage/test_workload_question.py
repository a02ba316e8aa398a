"""gpu-throughput@3's workload question says what its "benchmark" answer means.

The answer weighs as a communication test run on its own (it nearly rules out the application
and the host), so the question must not read as "any benchmark": an LLM's tokens/s benchmark is
inference. The words people use for such a test answer it; an application's benchmark does not.
"""

from __future__ import annotations

import pytest

from casefile.domain.intake import IntakeQuestion
from tests.cli.conftest import CLI, builtin_registry


def workload() -> IntakeQuestion:
    playbook = builtin_registry().playbook("gpu-throughput@3")
    return next(q for q in playbook.intake if q.id == "workload")


def test_the_question_asks_for_a_communication_benchmark_not_any_benchmark() -> None:
    question = workload()
    assert "communication benchmark on its own" in question.text
    assert "an application's own benchmark" in question.help
    assert "inference or training" in question.help


@pytest.mark.parametrize(
    ("words", "answer"),
    [
        ("communication test", "benchmark"),
        ("Communication benchmark", "benchmark"),
        ("bandwidth test", "benchmark"),
        ("nccl-tests", "benchmark"),
        ("llm benchmark", None),
        ("inference", "inference-small-batch"),
    ],
)
def test_the_words_for_such_a_test_answer_it(words: str, answer: str | None) -> None:
    assert workload().normalise(words) == answer


def test_playbook_show_says_what_the_answer_means(cli: CLI) -> None:
    out = cli("playbook", "show", "gpu-throughput@3").out
    assert "  workload: What runs: training, inference at small batch, inference at large " in out
    assert "a communication benchmark on its own (nccl-tests, a P2P bandwidth test)?" in out
    # the help that says what an answer means is shown under its question
    assert "\n    help: benchmark: nccl-tests, a P2P or bandwidth test, on its own; " in out
