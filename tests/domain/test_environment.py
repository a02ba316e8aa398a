"""A case's ``--env`` keys are read by what they name, however they are typed: ``GPUs``,
``gpu`` and ``gpus`` are one key, ``Software`` is ``software``, ``after_upgrade`` is
``after-upgrade``. Read by exact spelling, each other spelling answered nothing, silently."""

from __future__ import annotations

import pytest
from casefile_probes.torch_profiler import PROBE as TORCH_PROFILER

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.domain.environment import entry, key_form, value, values
from casefile.report.times import case_zone
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry


@pytest.mark.parametrize(
    ("typed", "form"),
    [
        ("gpus", "gpu"),
        ("GPUs", "gpu"),
        ("GPU", "gpu"),
        (" Software ", "software"),
        ("after_upgrade", "after-upgrade"),
        ("After Upgrade", "after-upgrade"),
        ("gpu.model", "gpu-model"),
        ("gpu-class", "gpu-class"),  # "ss" is not a plural
        ("os", "os"),  # too short to be one
        ("nodes", "node"),
    ],
)
def test_a_key_is_read_by_what_it_names(typed: str, form: str) -> None:
    assert key_form(typed) == form


def test_the_exact_spelling_wins_and_the_entry_keeps_its_typed_key() -> None:
    environment = {"GPU": "1x RTX 4090", "gpus": "2x A100"}
    assert value(environment, "gpus") == "2x A100"
    assert entry(environment, "gpu") == ("GPU", "1x RTX 4090")
    assert value(environment, "software") is None
    assert values(environment, ("gpus", "gpu_model")) == ("1x RTX 4090", "2x A100")


def test_a_capitalised_key_answers_intake_and_scopes_probes() -> None:
    """``--env GPUs=… --env Software=…`` as a person types them: the GPU count and class are
    answered, and a llama.cpp case is offered no PyTorch profiler."""
    environment = {"GPUs": "1x GeForce RTX 4090", "Software": "llama.cpp b4500"}
    assert not TORCH_PROFILER.suits(environment)
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case(
            "slow decode", environment=environment, playbook="gpu-throughput@3", who=Who("t")
        )
        items = {item.id: item for item in service.reader.intake(case)}
        names = {c.probe for c in service.reader.candidates(service.reader.projection(case))}
    assert items["gpu-count"].answer == "one"
    assert items["gpu-class"].answer == "consumer"
    assert items["gpu-class"].basis == "--env GPUs=1x GeForce RTX 4090"
    assert "torch-profiler" not in names


def test_a_report_reads_a_capitalised_time_zone_key() -> None:
    assert case_zone({"TimeZone": "Europe/Berlin"})[1] == "Europe/Berlin"


def test_a_question_s_own_id_is_an_env_key_too() -> None:
    """``--env Degrades-Over-Time=yes`` answers the question whose id it spells, as its
    declared key ``degrades`` does."""
    from casefile_gpu_playbook import PLAYBOOK_V3

    question = PLAYBOOK_V3.intake_question("degrades-over-time")
    known = question.from_environment({"Degrades-Over-Time": "yes"})
    assert known is not None and known.answer == "yes"
    assert question.named_by("degrades") and question.named_by("DEGRADES_OVER_TIME")
    assert not question.named_by("degraded")


@pytest.mark.parametrize(
    ("question_id", "environment", "answer"),
    [
        # an answer that opens a described value, a separator after it
        ("degrades-over-time", {"degrades": "yes, after ten minutes"}, "yes"),
        ("after-upgrade", {"upgrade": "no (fresh install)"}, "no"),
        ("platform", {"platform": "vm (AWS)"}, "vm"),
        ("nvlink", {"nvlink": "no (PCIe only)"}, "no"),
        # a value that only starts with an answer's letters, or runs on without a separator
        ("after-upgrade", {"after-upgrade": "not stated"}, None),
        ("after-upgrade", {"after-upgrade": "nothing changed"}, None),
        ("degrades-over-time", {"degrades": "yes it does not"}, None),
        # another word for an answer, a word that takes it back, another answer after it
        ("workload", {"workload": "inference, large batch"}, None),
        ("after-upgrade", {"upgrade": "CUDA: unchanged; driver 535 -> 550"}, None),
        ("after-upgrade", {"upgrade": "torch (no change), NCCL 2.18 -> 2.19"}, None),
        ("degrades-over-time", {"degrades": "yes (probably)"}, None),
        # counts in the count questions' own keys
        ("nodes", {"nodes": "2"}, "multi"),
        ("nodes", {"nodes": "16 (measured on 2)"}, "multi"),
        ("nodes", {"nodes": "1"}, "single"),
        ("gpu-count", {"gpu-count": "3"}, "several"),
        ("gpu-count", {"gpu-count": "1"}, "one"),
        ("gpu-count", {"gpu-count": "1.5"}, None),
    ],
)
def test_a_described_value_answers_by_the_answer_it_opens_with(
    question_id: str, environment: dict[str, str], answer: str | None
) -> None:
    from casefile_gpu_playbook import PLAYBOOK_V3

    known = PLAYBOOK_V3.intake_question(question_id).from_environment(environment)
    assert (None if known is None else known.answer) == answer
