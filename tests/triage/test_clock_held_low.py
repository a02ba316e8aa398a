"""A busy GPU's SM clock against its own maximum, read by gpu-throughput@3's ``clock-held-low``.

``nvidia-smi -q`` prints the clock a GPU runs at beside the most it can run at; under load a
healthy GPU boosts toward the latter. A low clock means nothing on an idle GPU (it drops to
idle clocks by design), so the reading counts only where the same paste shows the GPU busy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.query_gpu import PROBE as QUERY
from casefile_probes.smi_q import PERFORMANCE_PROBE, PROBE

from casefile.domain.beliefs.ranking import feeds
from casefile.domain.facts import Fact
from casefile.domain.rules import CLOCK_SHARE_BUSY, Applied, derived_facts, evaluate

RULE = next(r for r in PLAYBOOK_V3.rules if r.id == "clock-held-low")
GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def gpu(subject: str = "gpu0", **values: object) -> list[Fact]:
    return [Fact(name.replace("__", "."), value, subject) for name, value in values.items()]  # type: ignore[arg-type]


def share(facts: list[Fact]) -> dict[str, object]:
    return {f.subject: f.value for f in derived_facts(facts) if f.name == CLOCK_SHARE_BUSY}


def test_a_busy_gpus_clock_is_read_against_its_maximum() -> None:
    busy = gpu(clocks__sm=600, clocks__max__sm=1980, utilization__gpu=100)
    assert share(busy) == {"gpu0": 0.303}


@pytest.mark.parametrize(
    "facts",
    [
        gpu(clocks__sm=210, clocks__max__sm=1410, utilization__gpu=0),  # idle by design
        gpu(clocks__sm=900, clocks__max__sm=1980, utilization__gpu=30),  # waiting, mostly
        gpu(clocks__sm=345, clocks__max__sm=1980),  # says nothing of how busy it is
        gpu(clocks__sm=345, clocks__max__sm=1980, clocks_event_reasons__gpu_idle=True),
        gpu(clocks__sm=345, clocks__max__sm=0, utilization__gpu=100),
    ],
)
def test_no_share_where_the_reading_does_not_show_the_gpu_busy(facts: list[Fact]) -> None:
    assert share(facts) == {}


def test_the_idle_reason_not_active_is_no_sign_of_a_busy_gpu() -> None:
    """smi-q/006: four 1080 Ti at 0 % with "Idle: Not Active", two of them at 139 MHz in P5;
    without utilisation (``-q -d PERFORMANCE,CLOCK``) nothing says they are busy."""
    data = json.loads((GOLDEN / "smi-q" / "006.json").read_text(encoding="utf-8"))
    facts = [
        Fact(f["name"], f["value"], f["subject"], f.get("unit"))
        for f in data["facts"]
        if f["name"] != "utilization.gpu"
    ]
    assert any(f.name == "clocks_event_reasons.gpu_idle" and f.value is False for f in facts)
    assert share(facts) == {}


def test_a_looped_querys_means_are_not_read() -> None:
    """An H100 queried with -l 1, idle for three samples and at 1980 MHz for three: the means
    (50 %, 1162 MHz) pair idle clocks with busy samples."""
    looped = gpu(
        clocks__sm=1162.5, clocks__max__sm=1980, utilization__gpu=50.0,
        utilization__gpu__series__max=100.0,
    )  # fmt: skip
    assert share(looped) == {}


def test_clocks_set_on_purpose_are_not_read() -> None:
    locked = gpu(
        clocks__sm=1005, clocks__max__sm=1980, utilization__gpu=100,
        clocks_event_reasons__applications_clocks_setting=True,
    )  # fmt: skip
    assert share(locked) == {}


def test_clocks_are_read_in_their_units() -> None:
    facts = [
        Fact("clocks.sm", 1.75, "gpu0", "GHz"),
        Fact("clocks.max.sm", 1980, "gpu0", "MHz"),
        Fact("utilization.gpu", 100, "gpu0", "%"),
    ]
    assert share(facts) == {"gpu0": 0.8838}
    assert share([*facts[1:], Fact("clocks.sm", 1750, "gpu0", "furlongs")]) == {}


def outcome(facts: list[Fact]) -> str | None:
    verdict = evaluate(RULE, [*facts, *PLAYBOOK_V3.context_facts(facts)], "under-load")
    return verdict.outcome if isinstance(verdict, Applied) else None


@pytest.mark.parametrize(
    ("clock", "expected"), [(600, "held-low"), (1400, "reduced"), (1755, "full")]
)
def test_the_slowest_busy_gpu_decides(clock: int, expected: str) -> None:
    facts = [
        *gpu("gpu0", clocks__sm=1980, clocks__max__sm=1980, utilization__gpu=99),
        *gpu("gpu1", clocks__sm=clock, clocks__max__sm=1980, utilization__gpu=97),
        *gpu("gpu2", clocks__sm=210, clocks__max__sm=1980, utilization__gpu=0),  # not read
    ]
    assert outcome(facts) == expected


def test_a_real_hot_card_near_its_power_limit_reads_reduced() -> None:
    """tests/golden/smi-q/005: four 2080 Ti, three of them 81-89 % busy at 79-85 C and 229-253
    of 260 W, their SM clocks 1680-1770 of 2160 MHz."""
    data = json.loads((GOLDEN / "smi-q" / "005.json").read_text(encoding="utf-8"))
    facts = [Fact(f["name"], f["value"], f["subject"], f.get("unit")) for f in data["facts"]]
    assert outcome(facts) == "reduced"


def test_the_idle_goldens_give_no_reading() -> None:
    for name in ("001", "008", "013", "017"):  # idle GPUs at 210-345 MHz
        data = json.loads((GOLDEN / "smi-q" / f"{name}.json").read_text(encoding="utf-8"))
        facts = [Fact(f["name"], f["value"], f["subject"], f.get("unit")) for f in data["facts"]]
        assert outcome(facts) is None, name


def test_the_clock_probes_are_known_to_feed_it() -> None:
    assert feeds(RULE, PROBE.facts)
    assert feeds(RULE, QUERY.facts)
    assert not feeds(RULE, PERFORMANCE_PROBE.facts)  # -q -d PERFORMANCE prints no utilisation
    assert not feeds(RULE, ("clocks.sm", "utilization.gpu"))  # no maximum to hold it against


def test_it_is_one_witness_with_the_other_readings_of_heat_and_power() -> None:
    assert set(RULE.witness) == {"gpu-heat", "gpu-power"}
    assert RULE.row("thermal-degradation")["held-low"] >= 6 * RULE.otherwise["held-low"]
    assert RULE.row("power-cap")["held-low"] >= 4 * RULE.otherwise["held-low"]
    # a clock near its maximum does not clear the power cap: compute at the limit sits there
    assert RULE.row("power-cap")["full"] >= 0.5 * RULE.otherwise["full"]
