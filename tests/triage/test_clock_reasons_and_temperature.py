"""Which clock slowdown reason is active, and how hot the GPU runs, tell power from heat.

gpu-throughput@3's rule clock-event-reasons read the five reasons as one bit, so a thermal
slowdown counted for a power cap as much as for heat, and a software power cap (set whenever a
busy GPU boosts to its limit, and by some GeForce drivers at low draw) counted as strongly as a
thermal slowdown. Version 3 of the rule reads which reason is active; the rule
temperature-level reads how hot the hottest GPU runs under load, so a stated or pasted
temperature speaks too.
"""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK
from casefile_probes.smi_q import parse_smi_q

from casefile.domain.facts import Fact
from casefile.domain.rules import Applied, SetAside, compute_statistic, evaluate
from casefile.domain.stated import stated_fact
from tests.parsers.corpus import CORPUS, read_sample

RULES = {rule.id: rule for rule in PLAYBOOK.rules}
REASONS = RULES["clock-event-reasons"]
TEMPERATURE = RULES["temperature-level"]


def outcome(rule_id: str, facts: list[Fact], load: str = "under-load") -> str:
    verdict = evaluate(RULES[rule_id], facts, load)
    assert isinstance(verdict, Applied), verdict
    return verdict.outcome


def stated(*lines: str) -> list[Fact]:
    return [stated_fact(*line.split("=", 1)) for line in lines]


ALL_CLEAR = tuple(f"{name}=Not Active" for name in REASONS.statistic.facts)


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        (("clocks_event_reasons.sw_thermal_slowdown=true",), "thermal"),
        # stated as nvidia-smi -q prints it: "Active" is the flag, not text
        (("clocks_event_reasons.hw_thermal_slowdown[gpu1]=Active",), "thermal"),
        # heat outranks the power cap set beside it: the cap is what boosting GPUs report
        (
            (
                "clocks_event_reasons.sw_power_cap=true",
                "clocks_event_reasons.hw_thermal_slowdown=true",
            ),
            "thermal",
        ),
        (("clocks_event_reasons.hw_power_brake_slowdown=true",), "power-brake"),
        (("clocks_event_reasons.sw_power_cap=Active",), "power-cap"),
        (("clocks_event_reasons.hw_slowdown=true",), "hw-slowdown"),
        (ALL_CLEAR, "clear"),
    ],
)
def test_the_active_reason_names_the_outcome(facts: tuple[str, ...], expected: str) -> None:
    assert outcome("clock-event-reasons", stated(*facts)) == expected


@pytest.mark.parametrize(
    "facts",
    [
        # a query of one column clears nothing it did not ask about
        ("clocks_event_reasons.sw_power_cap=false",),
        ("clocks_event_reasons.sw_power_cap=false", "clocks_event_reasons.sw_thermal_slowdown=no"),
        # text is no reading of a flag
        ("clocks_event_reasons.sw_thermal_slowdown=maybe",),
    ],
)
def test_no_reason_set_is_a_reading_only_where_every_reason_was_read(
    facts: tuple[str, ...],
) -> None:
    verdict = evaluate(REASONS, stated(*facts), "under-load")
    assert not isinstance(verdict, Applied), verdict


def test_a_verbatim_q_paste_with_no_reason_active_is_clear() -> None:
    """An H800's -q (corpus smi-q/001): every reason printed, none active."""
    path = CORPUS / "smi-q" / "001.txt"
    if not path.is_file():
        pytest.skip("the shared corpus is not beside the checkout")
    assert outcome("clock-event-reasons", parse_smi_q(read_sample(path)).facts) == "clear"


def test_the_reasons_are_told_apart_in_the_likelihoods() -> None:
    """A thermal slowdown is evidence for heat over a power cap, and the reverse."""
    thermal = REASONS.row("thermal-degradation")
    power = REASONS.row("power-cap")
    assert thermal["thermal"] / power["thermal"] >= 10
    assert power["power-cap"] / thermal["power-cap"] >= 4
    assert power["power-brake"] / thermal["power-brake"] >= 4
    # a software power cap alone weighs less than a thermal slowdown: busy GPUs report it
    assert power["power-cap"] / REASONS.otherwise["power-cap"] < (
        thermal["thermal"] / REASONS.otherwise["thermal"]
    )


def test_active_lists_the_true_flags_of_every_subject() -> None:
    facts = [
        Fact("clocks_event_reasons.sw_power_cap", True, "gpu0"),
        Fact("clocks_event_reasons.sw_power_cap", False, "gpu1"),
        Fact("clocks_event_reasons.hw_thermal_slowdown", True, "gpu1"),
        Fact("clocks_event_reasons.sw_thermal_slowdown", "Active", "gpu1"),  # not a flag
    ]
    assert compute_statistic(REASONS.statistic, facts) == frozenset(
        {"clocks_event_reasons.sw_power_cap", "clocks_event_reasons.hw_thermal_slowdown"}
    )
    assert compute_statistic(REASONS.statistic, []) is None  # nothing read: no reading


def test_a_verbatim_q_paste_under_load() -> None:
    """A 2080 Ti at 229 of 260 W and 85 °C, software power cap active (corpus smi-q/005)."""
    path = CORPUS / "smi-q" / "005.txt"
    if not path.is_file():
        pytest.skip("the shared corpus is not beside the checkout")
    facts = parse_smi_q(read_sample(path)).facts
    assert outcome("clock-event-reasons", facts) == "power-cap"
    assert outcome("temperature-level", facts) == "hot"
    # the same paste taken at idle says nothing about what limits throughput
    assert isinstance(evaluate(REASONS, facts, "idle"), SetAside)


@pytest.mark.parametrize(
    ("temperature", "expected"),
    [("87 C", "hot"), ("85", "hot"), ("84.5 C", "warm"), ("78", "warm"), ("65 C", "cool")],
)
def test_a_stated_temperature_is_read(temperature: str, expected: str) -> None:
    assert outcome("temperature-level", stated(f"temperature.gpu={temperature}")) == expected


def test_the_hottest_gpu_decides() -> None:
    facts = stated("temperature.gpu[gpu0]=60", "temperature.gpu[gpu1]=88")
    assert outcome("temperature-level", facts) == "hot"


def test_a_hot_reading_supports_heat_more_than_a_cool_one_clears_it() -> None:
    thermal, other = TEMPERATURE.row("thermal-degradation"), TEMPERATURE.otherwise
    assert thermal["hot"] / other["hot"] >= 4
    assert other["cool"] / thermal["cool"] < thermal["hot"] / other["hot"]
    # a GPU that does no work does not run hot
    assert TEMPERATURE.row("gpu-unused")["hot"] < other["hot"]
