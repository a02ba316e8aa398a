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


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        (("clocks_event_reasons.sw_thermal_slowdown=true",), "thermal"),
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
        (("clocks_event_reasons.sw_power_cap=true",), "power-cap"),
        (("clocks_event_reasons.hw_slowdown=true",), "hw-slowdown"),
        (
            (
                "clocks_event_reasons.sw_power_cap=false",
                "clocks_event_reasons.sw_thermal_slowdown=false",
            ),
            "clear",
        ),
    ],
)
def test_the_active_reason_names_the_outcome(facts: tuple[str, ...], expected: str) -> None:
    read = [f for f in stated(*facts) if f.value is True or f.value is False]
    if len(read) < len(facts):  # "Active" is how nvidia-smi -q prints it: parse that line
        read = parse_smi_q(_q_section(facts)).facts
    assert outcome("clock-event-reasons", read) == expected


def _q_section(facts: tuple[str, ...]) -> str:
    """A -q PERFORMANCE section with the one reason named Active (the rest Not Active)."""
    active = {f.split("=")[0].split(".")[1].split("[")[0] for f in facts}
    rows = [
        ("SW Power Cap", "sw_power_cap"),
        ("HW Slowdown", "hw_slowdown"),
        ("HW Thermal Slowdown", "hw_thermal_slowdown"),
        ("HW Power Brake Slowdown", "hw_power_brake_slowdown"),
        ("SW Thermal Slowdown", "sw_thermal_slowdown"),
    ]
    body = "\n".join(
        f"            {label:<28}: {'Active' if key in active else 'Not Active'}"
        for label, key in rows
    )
    return (
        "==============NVSMI LOG==============\n\nAttached GPUs : 1\nGPU 00000000:01:00.0\n"
        f"    Performance State : P0\n    Clocks Event Reasons\n{body}\n"
    )


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
