"""The typed views of payloads kept as stored read each field with the model's type and, where
the field is absent, the model's default."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from casefile.domain.event_types.evidence import RuleRef
from casefile.domain.event_types.probe import (
    Conditions,
    FactRecord,
    ObservationRecorded,
    ProbeRan,
    StreamTruncation,
)
from casefile.domain.event_types.stored import (
    StoredObservation,
    StoredRun,
    StoredSetAside,
    kept_likelihoods,
    unparsed_run,
)

RUN = {"probe": "lspci", "argv": ["lspci", "-vv"], "host": "gpu-box", "source": "ssh"}
OBSERVATION = {"probe_run_seq": 7, "probe": "lspci", "facts": [{"name": "link", "value": 8}]}


def test_a_run_that_leaves_fields_out_reads_as_its_model_would() -> None:
    run = StoredRun(RUN)
    model = ProbeRan.model_validate(RUN)
    assert (run.probe, run.argv, run.host, run.source) == (
        "lspci",
        ("lspci", "-vv"),
        "gpu-box",
        "ssh",
    )
    assert (run.timed_out, run.reconstructed) == (model.timed_out, model.reconstructed)
    assert (run.exit_status, run.error, run.note, run.duration_s) == (None, None, None, None)
    assert (run.stdout_artifact, run.started_at, run.truncated) == (None, None, ())
    assert run.conditions == Conditions().model_dump(mode="json", exclude_none=True)
    assert run.load == model.conditions.load == "unknown"


def test_a_run_as_written_reads_its_own_values() -> None:
    cut = {"stream": "stdout", "total_bytes": 10, "head_bytes": 4, "tail_bytes": 4}
    written = ProbeRan.model_validate(
        {
            **RUN,
            "exit_status": 1,
            "timed_out": True,
            "duration_s": 2.5,
            "truncated": [cut],
            "conditions": {"load": "under-load", "host": "gpu-box"},
        }
    ).model_dump(mode="json", exclude_none=True)
    run = StoredRun(written)
    assert (run.exit_status, run.timed_out, run.duration_s, run.load) == (
        1,
        True,
        2.5,
        "under-load",
    )
    assert run.truncated == (StreamTruncation.model_validate(cut),)
    assert run.conditions is written["conditions"]


def test_an_observation_reads_its_parse_and_facts_with_the_models_defaults() -> None:
    observation = StoredObservation(OBSERVATION)
    model = ObservationRecorded.model_validate(OBSERVATION)
    assert (observation.parsed, observation.problems) == (model.parsed, tuple(model.problems))
    [fact] = observation.facts
    assert (fact.name, fact.value, fact.unit) == ("link", 8, None)
    assert fact.subject == FactRecord.model_validate(OBSERVATION["facts"][0]).subject == "host"
    assert unparsed_run(OBSERVATION) is None
    assert unparsed_run({**OBSERVATION, "parsed": False}) == 7


def test_a_restored_stub_without_facts_reads_none() -> None:
    stub = {key: value for key, value in OBSERVATION.items() if key != "facts"}
    assert StoredObservation(stub).facts == ()
    with pytest.raises(ValidationError, match="facts"):  # a stub is no payload the model takes
        ObservationRecorded.model_validate(stub)


def test_a_set_aside_record_and_the_kept_likelihoods() -> None:
    record = {
        "observation_seq": 5,
        "rule": {"id": "r", "version": 2},
        "reason": "idle",
        "seq": 9,
        "hash": "ab",
    }
    set_aside = StoredSetAside(record)
    assert (set_aside.seq, set_aside.hash, set_aside.observation_seq) == (9, "ab", 5)
    assert (set_aside.rule, set_aside.reason) == (RuleRef(id="r", version=2), "idle")
    payload = {"likelihoods": {"h": 0.2}}
    assert kept_likelihoods(payload) is payload["likelihoods"]
