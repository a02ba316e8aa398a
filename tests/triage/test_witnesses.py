"""Readings of one state of a GPU count as one witness, not several.

A heat-soaked GPU is hot, sets a thermal slowdown reason and sags its clocks, all from the one
heat; counted as independent, the readings multiplied a case to 97 % on one GPU. Rules that
name one state (``witness``) now count the k-th reading in force on a host at 1/k of their
reliability, written into the evidence so a replay gives the same confidences.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from casefile_gpu_playbook import PLAYBOOK

from casefile.domain.kinds import STATED_RELIABILITY
from casefile.domain.rule_loading import rule_from_dict
from casefile.errors import RuleError
from tests.cli.conftest import CLI
from tests.parsers.corpus import CORPUS

RULES = {rule.id: rule for rule in PLAYBOOK.rules}
HOT = "temperature.gpu=88"
THERMAL = "clocks_event_reasons.hw_thermal_slowdown=Active"


def _evidence(cli: CLI, case: str) -> list[dict[str, Any]]:
    events = json.loads(cli("log", case, "--json").out)
    return [
        e["payload"] for e in events if e["type"] == "evidence.assessed" and "rule" in e["payload"]
    ]


def _state(cli: CLI, case: str, *facts: str, host: str = "rig", note: str = "") -> None:
    stated = [arg for fact in facts for arg in ("--stated", fact)]
    extra = ["--note", note] if note else []
    result = cli(
        "probe", case, "nvidia-smi-q", *stated, "--load", "under-load", "--host", host, *extra
    )  # fmt: skip
    assert result.code == 0, result.err


def _case(cli: CLI) -> str:
    return str(cli("new", "slow after an hour", "--playbook", "gpu-throughput").out.strip())


def test_the_heat_power_and_use_rules_name_the_states_they_read() -> None:
    heat = {r.id for r in PLAYBOOK.rules if "gpu-heat" in r.witness}
    power = {r.id for r in PLAYBOOK.rules if "gpu-power" in r.witness}
    assert heat == {
        "clock-event-reasons",
        "clock-sag",
        "clock-held-low",
        "temperature-trend",
        "temperature-level",
        "throughput-falls",
    }
    assert power == {
        "power-headroom",
        "clock-event-reasons",
        "clock-sag",
        "clock-held-low",
        "throughput-falls",
    }
    use = {r.id for r in PLAYBOOK.rules if "gpu-use" in r.witness}
    assert use == {"gpu-memory-held", "compute-process-on-gpu", "runs-on-cpu", "model-on-gpu-share"}


def test_a_second_reading_of_the_same_heat_counts_half(cli: CLI) -> None:
    case = _case(cli)
    _state(cli, case, THERMAL)
    _state(cli, case, HOT)
    first, second = _evidence(cli, case)
    assert (first["rule"]["id"], second["rule"]["id"]) == (
        "clock-event-reasons",
        "temperature-level",
    )
    assert first["reliability"] == STATED_RELIABILITY
    assert second["reliability"] == STATED_RELIABILITY / 2
    assert (
        f"clock-event-reasons ({first['evidence_id']}) read gpu-heat, already in force on rig"
        in second["rationale"]
    )


def test_the_third_counts_a_third_and_another_host_counts_in_full(cli: CLI) -> None:
    case = _case(cli)
    _state(cli, case, THERMAL)
    _state(cli, case, HOT)
    _state(cli, case, HOT, host="other-rig")
    _state(cli, case, "temperature.gpu=90", note="an hour later, the same GPU")
    reliabilities = [e["reliability"] for e in _evidence(cli, case)]
    assert reliabilities == pytest.approx(
        [STATED_RELIABILITY, STATED_RELIABILITY / 2, STATED_RELIABILITY, STATED_RELIABILITY / 3]
    )


def test_a_reading_of_another_state_counts_in_full(cli: CLI) -> None:
    case = _case(cli)
    _state(cli, case, HOT)
    _state(cli, case, "pcie.link.gen.current[e3:00.0]=2", "pcie.link.gen.max[e3:00.0]=5")
    assert [e["reliability"] for e in _evidence(cli, case)] == [STATED_RELIABILITY] * 2


def test_one_verbatim_paste_read_by_four_rules_is_counted_as_one_witness_each_state(
    cli: CLI, tmp_path: Any
) -> None:
    """smi-q/005 (a 2080 Ti at 85 C, the software power cap active, 229 W): the power
    headroom rule reads it first and counts in full; the clock reasons share the power state
    with it, so count half; the busy GPUs' clocks held under their maximum share both states
    with those two, and the temperature the heat with the clock reasons and the clocks, so
    each counts a third."""
    sample = CORPUS / "smi-q" / "005.txt"
    if not sample.is_file():
        pytest.skip("the shared corpus is not beside the checkout")
    case = _case(cli)
    result = cli(
        "probe", case, "nvidia-smi-q", "--paste", str(sample), "--load", "under-load",
        "--host", "rig",
    )  # fmt: skip
    assert result.code == 0, result.err
    read = {e["rule"]["id"]: e for e in _evidence(cli, case)}
    full = RULES["power-headroom"].reliability
    assert read["power-headroom"]["reliability"] == full
    assert (
        read["clock-event-reasons"]["reliability"] == RULES["clock-event-reasons"].reliability / 2
    )
    assert read["clock-held-low"]["reliability"] == RULES["clock-held-low"].reliability / 3
    assert read["temperature-level"]["reliability"] == RULES["temperature-level"].reliability / 3
    assert read["clock-event-reasons"]["outcome"] == "power-cap"
    assert read["clock-held-low"]["outcome"] == "reduced"
    assert read["temperature-level"]["outcome"] == "hot"


@pytest.mark.parametrize("witness", [3, [""], ["a", 2]])
def test_a_malformed_witness_is_refused_when_the_playbook_loads(witness: object) -> None:
    table = {
        "id": "r", "version": 1, "rationale": "why", "probes": ["p"],
        "statistic": {"aggregate": "max", "fact": "f"},
        "outcomes": [{"name": "hi", "at_least": 1}, {"name": "lo"}],
        "likelihoods": {"otherwise": {"hi": 0.5, "lo": 0.5}}, "witness": witness,
    }  # fmt: skip
    with pytest.raises(RuleError, match="rule r: 'witness' must name the states"):
        rule_from_dict(table, "q")


def test_an_empty_gpu_by_its_memory_and_its_processes_is_one_witness(cli: CLI) -> None:
    """nvidia-smi's table says both at once: a job not on the GPU holds no memory there and
    runs no process there; the second reading of that one fact counts half."""
    case = _case(cli)
    result = cli(
        "probe", case, "nvidia-smi", "--stated", "memory.used[gpu0]=3", "--stated",
        "processes.compute[gpu0]=0", "--load", "under-load", "--host", "rig",
    )  # fmt: skip
    assert result.code == 0, result.err
    read = {e["rule"]["id"]: e["reliability"] for e in _evidence(cli, case)}
    assert read == {
        "gpu-memory-held": STATED_RELIABILITY,
        "compute-process-on-gpu": STATED_RELIABILITY / 2,
    }


def test_the_same_rule_read_again_and_again_counts_as_the_sum_of_1_over_k(cli: CLI) -> None:
    """Eight pastes of one hot GPU on one host: the k-th counts 1/k, not half each time."""
    case = _case(cli)
    for run in range(1, 9):
        _state(cli, case, f"temperature.gpu={85 + run}", note=f"run {run}")
    reliabilities = [e["reliability"] for e in _evidence(cli, case)]
    assert reliabilities == pytest.approx([STATED_RELIABILITY / k for k in range(1, 9)])
    last = _evidence(cli, case)[-1]["rationale"]
    assert "temperature-level (e7 and 6 more) read gpu-heat" in last


def test_a_reading_superseded_no_longer_counts_as_a_witness(cli: CLI) -> None:
    case = _case(cli)
    _state(cli, case, THERMAL)
    (first,) = _evidence(cli, case)
    withdrawn = cli(
        "evidence", "add", case, "--likelihood", "thermal-degradation=0.5", "--because",
        "the reading was of another machine", "--supersedes", first["evidence_id"],
    )  # fmt: skip
    assert withdrawn.code == 0, withdrawn.err
    _state(cli, case, HOT)
    assert _evidence(cli, case)[-1]["reliability"] == STATED_RELIABILITY


def test_readings_without_a_host_say_so(cli: CLI) -> None:
    case = _case(cli)
    for fact in (THERMAL, HOT):
        assert (
            cli("probe", case, "nvidia-smi-q", "--stated", fact, "--load", "under-load").code == 0
        )
    said = _evidence(cli, case)[-1]["rationale"]
    assert "on the same unnamed host (--host tells machines apart)" in said
