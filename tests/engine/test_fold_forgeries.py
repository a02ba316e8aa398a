"""A saved fold whose columns were forged is refused, and a fold restores the values it saved.

Each case here was once believed: a column of evidence that should hold nulls read as
integers, a run stub without what a run's detail reads, and an int likelihood saved next to
an equal float coming back as the float (so warm and cold output differed).
"""

from __future__ import annotations

import array
import dataclasses
import json
from typing import Any

import pytest

from casefile.domain.beliefs import project
from casefile.domain.beliefs.fold_codec import FoldUnreadable, dump_fold, restore_fold

from .test_fold_codec import reference_events, reference_fold, seal, split


def test_a_null_column_forged_as_integers_is_refused() -> None:
    _, state, binary = split(reference_fold())
    count = len(state["evidence"]["id"])
    assert state["evidence"]["supersedes"].__class__ is dict  # no evidence supersedes any
    forged = binary + array.array("q", [7] * count).tobytes()
    state["binary"] = len(forged)
    state["evidence"]["supersedes"] = {"ints": ["q", len(binary), count]}
    with pytest.raises(FoldUnreadable, match="supersedes"):
        restore_fold(seal(state, forged))


@pytest.mark.parametrize(
    ("key", "value"),
    [("argv", None), ("argv", "nvidia-smi -q"), ("source", 3), ("exit_status", "x")],
)
def test_a_run_stub_without_what_a_run_detail_reads_is_refused(key: str, value: Any) -> None:
    _, state, binary = split(reference_fold())
    shapes: list[dict[str, Any]] = state["probe_runs"]["shapes"]
    if value is None:
        del shapes[0][key]
    else:
        shapes[0][key] = value
    with pytest.raises(FoldUnreadable, match="stub"):
        restore_fold(seal(state, binary))


def test_an_int_likelihood_beside_an_equal_float_restores_as_saved() -> None:
    events = list(reference_events())
    assessed = [e.seq for e in events if e.type == "evidence.assessed"]

    def with_likelihood(seq: int, value: float) -> None:
        event = events[seq - 1]
        payload = json.loads(json.dumps(event.payload))
        payload["likelihoods"][next(iter(payload["likelihoods"]))] = value
        events[seq - 1] = dataclasses.replace(event, payload=payload)

    with_likelihood(assessed[0], 1.0)
    with_likelihood(assessed[-1], 1)  # an imported case may hold 1 where 1.0 was meant
    cold = project(events, trajectory=False)
    warm = restore_fold(dump_fold(cold))
    for eid, evidence in cold.evidence.items():
        assert json.dumps(warm.evidence[eid].likelihoods) == json.dumps(evidence.likelihoods)


@pytest.mark.parametrize("restates", ["x9", ["x1"], 1])
def test_an_experiment_restating_what_it_could_not_is_refused(restates: Any) -> None:
    """A saved experiment may restate only one recorded before it, as the fold checks."""
    from pathlib import Path

    from casefile.store.casedir import read_case_dir

    case = Path(__file__).resolve().parents[2] / "cases/dev/llama.cpp-1665-a6000-default-threads"
    events, _ = read_case_dir(case)
    _, state, binary = split(dump_fold(project(events)))
    records: list[dict[str, Any]] = state["experiments"]
    assert records[1]["restates"] == "x1"  # the thread's closing retelling of its A/B
    assert restore_fold(seal(state, binary)).experiments["x2"]["restates"] == "x1"
    records[1]["restates"] = restates
    with pytest.raises(FoldUnreadable, match="restates"):
        restore_fold(seal(state, binary))
