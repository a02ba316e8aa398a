"""An A/B's difference inside the noise margin is graded, not a cliff: a 5.5 % slowdown once
heat-soaked, against a 10 % margin, no longer counts seven to one against throttling as an
identical run would (club-3090-178 read it so before)."""

from __future__ import annotations

import json
import math

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain.experiment_outcome import PLAIN_SAME_WITHIN, read_speedup
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

HEAT_SOAK = next(r for r in PLAYBOOK_V3.experiments if r.id == "heat-soak")
ROW = HEAT_SOAK.rule.likelihoods["thermal-degradation"]


def scaled(speedup: float, margin: float = 0.10) -> float:
    return math.log(speedup) / math.log1p(margin)


def test_a_rerun_wobble_is_plain_same() -> None:
    reading = read_speedup(HEAT_SOAK.rule, scaled(1.02))
    assert reading.outcome == "same" and reading.leans_to is None
    assert reading.likelihoods["thermal-degradation"] == ROW["same"]
    assert reading.otherwise == HEAT_SOAK.rule.otherwise["same"]


def test_beyond_the_margin_the_reading_is_the_outcome_column() -> None:
    faster = read_speedup(HEAT_SOAK.rule, scaled(1.2))
    slower = read_speedup(HEAT_SOAK.rule, scaled(0.8))
    assert (faster.outcome, faster.likelihoods["thermal-degradation"]) == ("faster", ROW["faster"])
    assert (slower.outcome, slower.likelihoods["thermal-degradation"]) == ("slower", ROW["slower"])


def test_a_difference_near_the_margin_blends_same_with_its_side() -> None:
    reading = read_speedup(HEAT_SOAK.rule, scaled(1.055))
    assert reading.outcome == "same" and reading.leans_to == "faster"
    expected = (scaled(1.055) - PLAIN_SAME_WITHIN) / (1 - PLAIN_SAME_WITHIN)
    assert reading.lean == pytest.approx(expected, abs=1e-6)
    low, high = sorted((ROW["same"], ROW["faster"]))
    assert low < reading.likelihoods["thermal-degradation"] < high
    assert reading.likelihoods["thermal-degradation"] != pytest.approx(low)
    assert "leaning to 'faster'" in reading.said()
    down = read_speedup(HEAT_SOAK.rule, scaled(1 / 1.055))
    assert down.leans_to == "slower" and down.lean == reading.lean


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_there_is_no_step_at_the_margin(side: float) -> None:
    inside = read_speedup(HEAT_SOAK.rule, side * (1 - 1e-9))
    outside = read_speedup(HEAT_SOAK.rule, side * (1 + 1e-9))
    for hypothesis, value in outside.likelihoods.items():
        assert inside.likelihoods[hypothesis] == pytest.approx(value, abs=1e-6)
    assert inside.otherwise == pytest.approx(outside.otherwise, abs=1e-6)


def test_the_reading_moves_one_way_as_the_difference_grows() -> None:
    """Hotter runs slower and slower: the heat-soak rule's "slower" (the hot run is the
    variant) rises for throttling from its "same" to its "slower" column, never back."""
    values = [
        read_speedup(HEAT_SOAK.rule, scaled(1 / (1 + k / 200))).likelihoods["thermal-degradation"]
        for k in range(0, 30)
    ]
    assert values == sorted(values)
    assert values[0] == ROW["same"] and values[-1] == ROW["slower"]


def test_a_recorded_a_b_near_the_margin_says_how_it_was_read(cli: CLI) -> None:
    new = cli(
        "new", "decode slows on the upper card", "--id", "h1", "--playbook", "gpu-throughput@3",
        "--env", "gpus=2x GeForce RTX 3090",
    )  # fmt: skip
    assert new.code == 0, new.err
    recorded = cli(
        "experiment", "h1", "--change", "heat-soaked after 3.5 min of decode -> cold start",
        "--reported", "64.97:68.55", "--probe", "app-log", "--unit", "tokens/s",
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    assert "heat-soak: same, leaning to 'slower' (42%, its modest tier)" in recorded.out
    verdict = log(cli, "h1")[-1]["payload"]
    assert verdict["rule"]["id"] == "experiment.heat-soak"  # type: ignore[index]
    assert verdict["outcome"] == "same"  # type: ignore[index]
    assert "leaning to 'slower'" in verdict["rationale"]  # type: ignore[index]
    thermal = verdict["likelihoods"]["thermal-degradation"]  # type: ignore[index]
    # heat-soaked -> cold is the rule's A/B run backwards: cold faster is hot slower, which is
    # what throttling predicts. Inside the margin it says little: about two to one against
    # (the margin's edge is a modest loss, which the rule's large_loss leaves weaker than a
    # halved run), where a plain "same" counted about seven to one against throttling
    assert ROW["same"] < thermal < ROW["slower"]
    plain = ROW["same"] / HEAT_SOAK.rule.otherwise["same"]
    assert plain < 0.2 < 0.4 < thermal / verdict["otherwise"] < 1.0  # type: ignore[index]


def test_the_json_says_where_a_reading_leans_and_a_plain_one_does_not(cli: CLI) -> None:
    new = cli("new", "slow", "--id", "h2", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    near = cli(
        "experiment", "h2", "--change", "heat-soaked after an hour -> cold start",
        "--reported", "64.97:68.55", "--probe", "app-log", "--unit", "tokens/s", "--json",
    )  # fmt: skip
    assert near.code == 0, near.err
    leaning = json.loads(near.out)["leaning"]
    assert leaning["to"] == "slower" and 0.41 < leaning["share"] < 0.43
    plain = cli(
        "experiment", "h2", "--change", "batch size 1 -> 16",
        "--reported", "10:11", "--probe", "app-log", "--unit", "tokens/s", "--json",
    )  # fmt: skip
    assert plain.code == 0, plain.err
    assert json.loads(plain.out)["leaning"] is None


@pytest.mark.parametrize(
    ("figures", "margin"), [((100, 103), 0.03), ((100, 115), 0.15), ((100, 120), 0.20)]
)
def test_a_difference_of_exactly_the_margin_is_beyond_it(
    figures: tuple[int, int], margin: float
) -> None:
    """log(1.03)/log(1.03) is 0.9999999999999997 in floating point: it must not name "same"
    while reading as the "faster" column."""
    baseline, variant = figures
    up = read_speedup(HEAT_SOAK.rule, scaled(variant / baseline, margin))
    down = read_speedup(HEAT_SOAK.rule, scaled(baseline / variant, margin))
    assert (up.outcome, up.leans_to) == ("faster", None)
    assert (down.outcome, down.leans_to) == ("slower", None)


def test_just_past_a_quarter_of_the_margin_is_still_plain_same() -> None:
    reading = read_speedup(HEAT_SOAK.rule, 0.2500001)
    assert (reading.outcome, reading.leans_to) == ("same", None)


def test_a_stated_fixed_reads_the_large_tier_of_its_side() -> None:
    """A stated "fixed" on the slower side a rule reads in tiers (a heat soak's large loss, the
    change undone) is its large tier; "better" and "worse" are their whole columns."""
    from casefile.domain.effect_size import NAMED_SHARE, OTHER_SHARE
    from casefile.domain.experiment_outcome import read_stated

    (loss,) = [e for e in HEAT_SOAK.large if e.outcome == "slower"]
    fixed = read_stated(HEAT_SOAK.rule, "fixed", "slower", HEAT_SOAK.large)
    for hypothesis, row in HEAT_SOAK.rule.likelihoods.items():
        share = NAMED_SHARE if hypothesis in loss.hypotheses else OTHER_SHARE
        assert fixed.likelihoods[hypothesis] == pytest.approx(row["slower"] * share)
    assert fixed.large_lean == 1.0 and fixed.size is not None and "fixed" in fixed.size
    worse = read_stated(HEAT_SOAK.rule, "worse", "slower", HEAT_SOAK.large)
    assert worse.likelihoods["thermal-degradation"] == ROW["slower"] and worse.size is None
    # a side the rule reads whole: the column, whatever the word
    faster = read_stated(HEAT_SOAK.rule, "fixed", "faster", HEAT_SOAK.large)
    assert faster.likelihoods["thermal-degradation"] == ROW["faster"] and faster.size is None
