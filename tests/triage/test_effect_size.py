"""An A/B's size is read: five times the throughput under CUDA graphs says far more for launch
overhead than 12 % does (spikingjelly-pr-740 read its 5× gain as an ordinary "faster", and a
control A/B at batch 96 left data loading leading). A rule lists the hypotheses that can give
its large effect; the rest rarely do, by Amdahl's law."""

from __future__ import annotations

import json
import math

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain import effect_size
from casefile.domain.effect_size import LARGE_AT, LARGE_FROM, LargeEffect, large_lean
from casefile.domain.experiment_outcome import read_speedup
from casefile.domain.experiments import ExperimentRule, experiment_from_dict
from casefile.errors import RuleError
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

RULES = {r.id: r for r in PLAYBOOK_V3.experiments}
GRAPHS = RULES["cuda-graphs"]


def reading(rule: ExperimentRule, speedup: float) -> tuple[float, float]:
    """(likelihood of the rule's first large-effect hypothesis, otherwise) for a speedup."""
    scaled = rule.in_noise_units(speedup, "app-log")
    verdict = read_speedup(rule.rule, scaled, speedup, rule.large)
    first = rule.large[0].hypotheses[0] if rule.large else None
    named = first or next(iter(rule.rule.likelihoods))
    return verdict.likelihoods[named], verdict.otherwise


def ratio(rule: ExperimentRule, speedup: float) -> float:
    named, otherwise = reading(rule, speedup)
    return named / otherwise


def test_a_large_gain_counts_far_more_than_a_modest_one() -> None:
    full = GRAPHS.rule.likelihoods["compute-launch"]["faster"] / GRAPHS.rule.otherwise["faster"]
    modest, large = ratio(GRAPHS, 1.2), ratio(GRAPHS, 5.0)
    # a modest gain: a little over half what the whole column says; a large one: five times more
    assert modest == pytest.approx(full * 0.5 / 0.9)
    assert large == pytest.approx(full * 0.5 / 0.1)
    assert modest < full < large


def test_the_tiers_split_the_column_so_every_row_still_sums_to_one() -> None:
    for rule in PLAYBOOK_V3.experiments:
        for effect in rule.large:
            side = effect.outcome
            rows = {**rule.rule.likelihoods, None: rule.rule.otherwise}
            for hypothesis, row in rows.items():
                modest = effect_size.tiered(row[side], effect, hypothesis, 0.0)
                large = effect_size.tiered(row[side], effect, hypothesis, 1.0)
                assert modest + large == pytest.approx(row[side]), (rule.id, hypothesis)


def test_a_listed_row_keeps_half_its_column_for_large_and_the_rest_a_tenth() -> None:
    large = read_speedup(GRAPHS.rule, GRAPHS.in_noise_units(5.0, "app-log"), 5.0, GRAPHS.large)
    assert large.likelihoods["compute-launch"] == pytest.approx(0.425)  # 0.85 of "faster"
    assert large.otherwise == pytest.approx(0.015)  # 0.15 of "faster"
    modest = read_speedup(GRAPHS.rule, GRAPHS.in_noise_units(1.3, "app-log"), 1.3, GRAPHS.large)
    assert modest.likelihoods["compute-launch"] == pytest.approx(0.425)
    assert modest.otherwise == pytest.approx(0.135)


def test_the_margin_has_no_step_where_the_rule_reads_sizes() -> None:
    """Inside the margin the side blended with is its modest tier, which the margin's edge
    reads beyond it: no step there either."""
    soak = RULES["heat-soak"]
    edge = 1 / 1.10
    inside = read_speedup(soak.rule, soak.in_noise_units(edge * (1 + 1e-6), "app-log"),
                          edge * (1 + 1e-6), soak.large)  # fmt: skip
    outside = read_speedup(soak.rule, soak.in_noise_units(edge * (1 - 1e-6), "app-log"),
                           edge * (1 - 1e-6), soak.large)  # fmt: skip
    assert inside.outcome == "same" and outside.outcome == "slower"
    assert inside.likelihoods["thermal-degradation"] == pytest.approx(
        outside.likelihoods["thermal-degradation"], abs=1e-4
    )
    assert "(its modest tier)" in inside.said()


def test_a_wide_margin_never_lets_a_same_carry_the_large_tier() -> None:
    """With a noise of 60 %, 1.55× is still inside the margin: it leans to the modest tier."""
    known = {"compute-launch"}
    wide = experiment_from_dict(_rule(large_gain=["compute-launch"], noise=0.6), "q", known, "t")
    reading = read_speedup(wide.rule, wide.in_noise_units(1.55, "app-log"), 1.55, wide.large)
    assert reading.outcome == "same" and reading.leans_to == "faster"
    modest = 0.85 * (1 - effect_size.NAMED_SHARE)
    expected = (1 - reading.lean) * 0.12 + reading.lean * modest
    assert reading.likelihoods["compute-launch"] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("scaled", "ratio"), [(3.0, None), (3.0, 0.0), (3.0, -2.0), (3.0, math.nan), (3.0, 0.5)]
)
def test_a_size_that_is_not_the_speedup_is_refused(scaled: float, ratio: float | None) -> None:
    with pytest.raises(ValueError, match="is not the speedup"):
        read_speedup(GRAPHS.rule, scaled, ratio, GRAPHS.large)


@pytest.mark.parametrize(
    ("size", "words"),
    [
        (1.5, "1.5× is a modest effect (1.5× or less)"),
        (1.4999, "1.5× is a modest effect (1.5× or less)"),
        (443.36, "443× is a large effect (2× or more, which compute-launch explains)"),
        (1.8, "1.8× is read 63% as a large effect"),
    ],
)
def test_the_size_is_said_as_read(size: float, words: str) -> None:
    effect = GRAPHS.large[0]
    assert effect_size.said(effect, size, large_lean(size)).startswith(words)
    many = LargeEffect("faster", ("a", "b"))
    assert effect_size.said(many, 3.0, 1.0).endswith("which a, b explain)")


def test_there_is_no_cliff_at_either_end_of_the_blend() -> None:
    for edge in (LARGE_FROM, LARGE_AT):
        below, above = ratio(GRAPHS, edge * (1 - 1e-7)), ratio(GRAPHS, edge * (1 + 1e-7))
        assert below == pytest.approx(above, rel=1e-4)
    steps = [ratio(GRAPHS, 1.5 + k / 100) for k in range(51)]
    assert steps == sorted(steps) and steps[0] < steps[-1]


@pytest.mark.parametrize(
    ("size", "lean"), [(1.0, 0.0), (1.5, 0.0), (2.0, 1.0), (40.0, 1.0), (math.sqrt(3.0), 0.5)]
)
def test_the_lean_runs_on_the_log_of_the_ratio(size: float, lean: float) -> None:
    assert large_lean(size) == pytest.approx(lean, abs=1e-6)


def test_a_slowdown_the_rule_reads_as_its_own_is_read_in_tiers_too() -> None:
    """A run that heat-soaks to half the speed of a cold one is throttling, far more than one
    that loses 12 %."""
    soak = RULES["heat-soak"]
    assert [e.outcome for e in soak.large] == ["slower"]
    assert ratio(soak, 1 / 1.9) > 2 * ratio(soak, 1 / 1.15)
    # its "faster" side names no large effect: the whole column at any size
    assert reading(soak, 3.0) == reading(soak, 1.2)


def test_a_rule_that_lists_no_large_effect_reads_any_size_alike() -> None:
    """A larger batch raises throughput many times over for launch-bound and memory-bound
    decode alike, and a version bundles every change its release made: their size says
    nothing more."""
    for rid in ("batch-size", "version"):
        assert RULES[rid].large == ()
        assert reading(RULES[rid], 16.0) == reading(RULES[rid], 1.3)


def test_an_outcome_inside_the_margin_never_reads_large() -> None:
    plain = read_speedup(GRAPHS.rule, GRAPHS.in_noise_units(1.02, "app-log"), 1.02, GRAPHS.large)
    assert plain.outcome == "same" and plain.size is None
    assert plain.likelihoods["compute-launch"] == GRAPHS.rule.likelihoods["compute-launch"]["same"]


def _rule(**extra: object) -> dict[str, object]:
    return {
        "id": "graphs",
        "version": 1,
        "change": "cuda.?graph",
        "metric": "throughput",
        "noise": 0.1,
        "noise_why": "reruns vary",
        "probes": ["app-log"],
        "rationale": "launches",
        "likelihoods": {
            "compute-launch": {"faster": 0.85, "same": 0.12, "slower": 0.03},
            "otherwise": {"faster": 0.15, "same": 0.70, "slower": 0.15},
        },
        **extra,
    }


def test_a_rule_lists_only_hypotheses_its_table_has_a_row_for() -> None:
    known = {"compute-launch", "data-loading"}
    built = experiment_from_dict(_rule(large_gain=["compute-launch"]), "q", known, "t")
    assert built.large == (LargeEffect("faster", ("compute-launch",)),)
    with pytest.raises(RuleError, match="'large_gain' names \\['data-loading'\\]"):
        experiment_from_dict(_rule(large_gain=["data-loading"]), "q", known, "t")
    for bad in ("compute-launch", [], [3]):
        with pytest.raises(RuleError, match="'large_loss' must list"):
            experiment_from_dict(_rule(large_loss=bad), "q", known, "t")


def test_a_recorded_large_gain_says_so_and_weighs_more(cli: CLI) -> None:
    for case in ("big", "small"):
        new = cli(
            "new", "decode is slow", "--id", case, "--playbook", "gpu-throughput@3",
            "--env", "gpus=1x RTX 4090",
        )  # fmt: skip
        assert new.code == 0, new.err
    figures = {"big": "100:500", "small": "100:120"}
    for case, reported in figures.items():
        done = cli(
            "experiment", case, "--change", "--enforce-eager -> CUDA graphs on",
            "--reported", reported, "--unit", "tokens/s",
        )  # fmt: skip
        assert done.code == 0, done.err
    big, small = (log(cli, case)[-1]["payload"] for case in figures)
    assert "5× is a large effect (2× or more, which compute-launch explains)" in str(
        big["rationale"]  # type: ignore[index]
    )
    assert "1.2× is a modest effect" in str(small["rationale"])  # type: ignore[index]

    def weight(payload: object) -> float:
        likelihoods = payload["likelihoods"]  # type: ignore[index]
        return float(likelihoods["compute-launch"]) / float(payload["otherwise"])  # type: ignore[index]

    assert weight(big) > 5 * weight(small)
    share = {
        case: next(
            h["confidence"]
            for h in json.loads(cli("status", case, "--json").out)["hypotheses"]
            if h["id"] == "compute-launch"
        )
        for case in figures
    }
    assert share["big"] > share["small"]


@pytest.mark.parametrize(
    ("change", "figures", "unit"),
    [
        # the rule's A/B run backwards: graphs turned off, five times slower
        ("CUDA graphs on -> --enforce-eager", "500:100", "tokens/s"),
        # a duration: lower is better, 10 ms -> 2 ms per step is five times faster
        ("--enforce-eager -> CUDA graphs on", "10:2", "ms"),
    ],
)
def test_a_large_effect_reads_large_backwards_and_in_durations(
    cli: CLI, change: str, figures: str, unit: str
) -> None:
    new = cli("new", "slow", "--id", "b", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    done = cli("experiment", "b", "--change", change, "--reported", figures, "--unit", unit)
    assert done.code == 0, done.err
    payload = log(cli, "b")[-1]["payload"]
    assert payload["outcome"] == "faster"  # type: ignore[index]
    assert "5× is a large effect" in str(payload["rationale"])  # type: ignore[index]
    assert payload["likelihoods"]["compute-launch"] == pytest.approx(0.425)  # type: ignore[index]


def test_better_stated_in_words_has_no_size_and_reads_the_whole_column(cli: CLI) -> None:
    new = cli("new", "slow", "--id", "w", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    done = cli("experiment", "w", "--change", "CUDA graphs enabled", "--outcome", "better")
    assert done.code == 0, done.err
    payload = log(cli, "w")[-1]["payload"]
    row = GRAPHS.rule.likelihoods["compute-launch"]
    assert payload["likelihoods"]["compute-launch"] == row["faster"]  # type: ignore[index]


def test_fixed_stated_in_words_reads_as_a_large_effect(cli: CLI) -> None:
    """A stated "fixed" says the change took the trouble away, as a gain of 2x or more does:
    the same likelihoods as a measured 5x (above)."""
    new = cli("new", "slow", "--id", "w", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    done = cli("experiment", "w", "--change", "CUDA graphs enabled", "--outcome", "fixed")
    assert done.code == 0, done.err
    payload = log(cli, "w")[-1]["payload"]
    assert payload["likelihoods"]["compute-launch"] == pytest.approx(0.425)  # type: ignore[index]
    assert "'fixed' reads as a large effect" in str(payload["rationale"])  # type: ignore[index]


def test_the_rule_listing_says_which_hypotheses_a_large_effect_counts_for(cli: CLI) -> None:
    listed = cli("experiment", "rules", "--playbook", "gpu-throughput@3")
    assert listed.code == 0, listed.err
    assert (
        "size:    a gain of 2× or more (half the time removed) counts far more for "
        "compute-launch than for the rest" in listed.out
    )
    rules = json.loads(cli("experiment", "rules", "--playbook", "gpu-throughput@3", "--json").out)
    sizes = {rule["id"]: rule["size"] for rule in rules}
    assert sizes["experiment.batch-size"] == ""
    assert "a loss of 2× or more (the time doubled)" in sizes["experiment.heat-soak"]


def test_the_experiment_command_says_the_tier_it_read(cli: CLI) -> None:
    new = cli("new", "slow", "--id", "t", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    said = {}
    for figures in ("100:500", "100:175", "100:120"):
        done = cli(
            "experiment", "t", "--change", "CUDA graphs enabled", "--reported", figures,
            "--unit", "tokens/s", "--json",
        )  # fmt: skip
        assert done.code == 0, done.err
        said[figures] = json.loads(done.out)["large"]
    assert said == {"100:500": 1.0, "100:175": pytest.approx(0.536, abs=1e-3), "100:120": 0.0}
    plain = cli("experiment", "t", "--change", "CUDA graphs enabled", "--reported", "100:500",
                "--unit", "tokens/s", "--restates", "x1")  # fmt: skip
    assert "rule experiment.cuda-graphs: faster (large) → evidence" in plain.out
    unsized = cli("experiment", "t", "--change", "batch size 1 -> 16", "--reported", "100:500",
                  "--unit", "tokens/s", "--json")  # fmt: skip
    assert json.loads(unsized.out)["large"] is None


def test_a_subnormal_figure_inverted_reads_as_an_infinite_large_effect(cli: CLI) -> None:
    """A change read backwards inverts its speedup: 1e-310 inverted overflows to infinity, a
    huge effect, not a refusal."""
    new = cli("new", "slow", "--id", "s", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    done = cli(
        "experiment", "s", "--change", "CUDA graphs on -> --enforce-eager",
        "--reported", "1e10:1e-300", "--unit", "tokens/s",
    )  # fmt: skip
    assert done.code == 0, done.err
    assert "faster (large)" in done.out


def test_a_ratio_of_one_is_refused_beside_a_speedup() -> None:
    with pytest.raises(ValueError, match="is not the speedup"):
        read_speedup(GRAPHS.rule, GRAPHS.in_noise_units(5.0, "app-log"), 1.0, GRAPHS.large)
    same = read_speedup(GRAPHS.rule, 0.0, 1.0, GRAPHS.large)
    assert same.outcome == "same"


@pytest.mark.parametrize(
    ("figures", "said"),
    [
        ("100:199.9", "faster (over 99% large)"),
        ("100:150.07", "faster (under 1% large)"),
        ("100:104", "same, leaning to 'faster' (22%, its modest tier)"),
    ],
)
def test_a_tier_near_its_ends_never_says_0_or_100_percent(
    cli: CLI, figures: str, said: str
) -> None:
    new = cli("new", "slow", "--id", "n", "--playbook", "gpu-throughput@3")
    assert new.code == 0, new.err
    done = cli(
        "experiment", "n", "--change", "CUDA graphs enabled", "--reported", figures,
        "--unit", "tokens/s",
    )  # fmt: skip
    assert done.code == 0, done.err
    assert f"rule experiment.cuda-graphs: {said} → evidence" in done.out
    shape = cli(
        "experiment", "n", "--change", "CUDA graphs enabled", "--reported", figures,
        "--unit", "tokens/s", "--json", "--restates", "x1",
    )  # fmt: skip
    large = json.loads(shape.out)["large"]
    assert large is not None and 0.0 <= large < 1.0
