"""A review's findings on ``casefile experiment``'s measured A/B: which way is better for a
figure with no unit, what both runs hold when the rule's figures are missing, and reading the
same two runs again another way.

A measured ``step_time`` of 1.2 s falling to 0.6 s was read as a slowdown: the figure had no
unit, and the rule's "higher is better" (its own metric's, a throughput's) was applied to a
metric the person chose. Retrying with ``--direction lower`` or ``--restates`` was refused as
the same pair compared twice, so the wrong reading could not be corrected.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casefile.domain.better_way import settle_direction
from casefile.domain.units import name_direction, normal_unit, unit_direction
from tests.cli.conftest import CLI
from tests.triage.test_experiments import ab, log

PIPELINE = "num_workers=16"


@pytest.fixture
def case(cli: CLI) -> str:
    made = cli("new", "slow training", "--id", "st", "--env", "gpus=1x RTX 4090")
    assert made.code == 0, made.err
    assert cli("playbook", "open", "st", "gpu-throughput@3").code == 0
    return "st"


def _run(cli: CLI, case: str, tmp_path: Path, step: float, *, setup: bool = False) -> str:
    """A pasted training log of one step time, its ``step_time`` fact without a unit (the
    application's own parser adds ``step_time_s`` in seconds)."""
    path = tmp_path / f"{step}.txt"
    path.write_text(f"step 100: {step:.2f} s/step\n")
    done = cli(
        "probe", case, "command", "--paste", str(path), "--json",
        *(("--setup", PIPELINE) if setup else ()),
        "--fact", r"step_time=([0-9.]+) s/step", "--", "./train.sh",
    )  # fmt: skip
    assert done.code == 0, done.err
    return str(json.loads(done.out.splitlines()[0])["probe_run_seq"])


@pytest.fixture
def pair(cli: CLI, case: str, tmp_path: Path) -> list[str]:
    """The baseline at 1.2 s a step, the variant (num_workers=16) at 0.6 s: twice as fast."""
    base, variant = _run(cli, case, tmp_path, 1.2), _run(cli, case, tmp_path, 0.6, setup=True)
    return ["--change", PIPELINE, "--baseline", base, "--variant", variant]


# --- which way is better for a figure with no unit -------------------------------------------


@pytest.mark.parametrize(
    ("name", "higher"),
    [
        ("step_time", False), ("step_time_s", False), ("latency_p99_ms", False),
        ("ttft", False), ("TTFT", False), ("avgLatencyMs", False), ("decode_duration", False),
        ("elapsed_sec", False), ("s_per_step", False), ("time_per_token", False),
        ("tokens_per_s", True), ("it_per_s", True), ("throughput", True),
        ("bandwidth.h2d", True), ("h2d_gbps", True), ("nccl.busbw.large", True),
        ("decode_tok_per_sec", True),
        ("score", None), ("loss", None), ("timestamp", None), ("num_workers", None),
        ("gpu_util", None), ("tokens", None),
        # a rate per GPU per second; a statistic after a dot is no unit; a price says neither
        ("tokens_per_gpu_per_s", True), ("tokens/gpu/s", True),
        ("nvbandwidth.device_to_device_memcpy_read_ce.min", None), ("latency.p99", False),
        ("cost_per_hour", None), ("time_min", False),
    ],
)  # fmt: skip
def test_a_metrics_name_says_which_way_is_better_as_a_unit_would(
    name: str, higher: bool | None
) -> None:
    assert name_direction(name) is higher


def test_the_rules_way_is_its_own_metrics_and_not_a_metric_a_person_chose() -> None:
    from casefile_gpu_playbook import PLAYBOOK

    rule = next(r for r in PLAYBOOK.experiments if r.id == "data-pipeline")
    assert rule.higher_is_better is True and "step_time" not in rule.metric
    by_name = settle_direction(None, None, rule, "step_time")
    assert by_name is not None and (by_name.higher_is_better, by_name.source) == (False, "metric")
    assert by_name.describe(None) == "lower is better for step_time, as its name says"
    assert settle_direction(None, None, rule, "score") is None  # asked, or left unread
    own = settle_direction(None, None, rule, rule.metric[0])
    assert own is not None and (own.higher_is_better, own.source) == (True, "rule")
    # a unit still comes first, and one that says nothing leaves it open whatever the name
    by_unit = settle_direction(None, "tok/s", rule, "step_time")
    assert by_unit is not None and (by_unit.higher_is_better, by_unit.source) == (True, "unit")
    assert settle_direction(None, "points", rule, "step_time") is None


def test_a_measured_step_time_that_halves_is_read_as_faster(
    cli: CLI, case: str, pair: list[str]
) -> None:
    out = ab(cli, case, *pair, "--metric", "step_time")
    assert (out["outcome"], out["speedup"]) == ("faster", pytest.approx(2.0))
    assert out["direction"] == "lower is better for step_time, as its name says"
    recorded = [e for e in log(cli, case) if e["type"] == "experiment.recorded"][-1]
    assert recorded["payload"]["higher_is_better"] is False  # type: ignore[index]


def test_a_chosen_metric_whose_name_says_neither_is_not_given_the_rules_way(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    seqs = []
    for score in (30, 60):
        path = tmp_path / f"{score}.txt"
        path.write_text(f"score {score}\n")
        done = cli(
            "probe", case, "command", "--paste", str(path), "--json",
            "--fact", r"score=score ([0-9]+)", "--", "bench",
        )  # fmt: skip
        assert done.code == 0, done.err
        seqs.append(str(json.loads(done.out.splitlines()[0])["probe_run_seq"]))
    out = ab(
        cli, case, "--change", PIPELINE, "--baseline", seqs[0], "--variant", seqs[1],
        "--metric", "score",
    )  # fmt: skip
    assert out["evidence_id"] is None and out["speedup"] is None
    assert "score (no unit) does not say whether higher is better" in str(out["unread"])


def test_runs_without_the_rules_figures_are_told_which_figures_both_hold(
    cli: CLI, case: str, pair: list[str]
) -> None:
    before = len(log(cli, case))
    tried = cli("experiment", case, *pair)
    assert tried.code == 1
    assert "both runs hold step_time, step_time_s; --metric names the fact" in tried.err
    assert len(tried.err.strip().splitlines()) == 1
    assert len(log(cli, case)) == before


# --- the same two runs read again --------------------------------------------------------------


def _confidences(cli: CLI, case: str) -> dict[str, float]:
    hypotheses = json.loads(cli("status", case, "--json").out)["hypotheses"]
    return {h["id"]: round(h["confidence"], 12) for h in hypotheses}


def test_a_wrong_reading_is_corrected_by_reading_the_runs_the_other_way(
    cli: CLI, case: str, pair: list[str], tmp_path: Path
) -> None:
    wrong = ab(cli, case, *pair, "--metric", "step_time", "--direction", "higher")
    assert wrong["outcome"] == "slower"
    right = ab(cli, case, *pair, "--metric", "step_time", "--direction", "lower")
    assert right["outcome"] == "faster"
    assert (right["restates"], right["supersedes"]) == ("x1", wrong["evidence_id"])
    # the correction counts once, as if the wrong reading had never been made
    assert cli("new", "slow training", "--id", "ok", "--env", "gpus=1x RTX 4090").code == 0
    assert cli("playbook", "open", "ok", "gpu-throughput@3").code == 0
    once = ["--change", PIPELINE, "--baseline", _run(cli, "ok", tmp_path, 1.2)]
    once += ["--variant", _run(cli, "ok", tmp_path, 0.6, setup=True), "--metric", "step_time"]
    ab(cli, "ok", *once)
    assert _confidences(cli, case) == _confidences(cli, "ok")


def test_the_same_reading_again_is_refused_and_a_restating_is_not(
    cli: CLI, case: str, pair: list[str]
) -> None:
    first = ab(cli, case, *pair, "--metric", "step_time")
    before = len(log(cli, case))
    again = cli("experiment", case, *pair, "--metric", "step_time", "--direction", "lower")
    assert again.code == 1 and "experiment x1 already compares seqs" in again.err
    assert "the same reading again would count twice" in again.err and "--restates" in again.err
    assert len(log(cli, case)) == before
    told = ab(cli, case, *pair, "--metric", "step_time", "--restates", "x1")
    assert (told["restates"], told["supersedes"]) == ("x1", first["evidence_id"])
    # another metric is another reading: it replaces the one in force
    other = ab(cli, case, *pair, "--metric", "step_time_s")
    assert (other["restates"], other["supersedes"]) == ("x2", told["evidence_id"])


def test_restating_another_ab_or_reading_nothing_is_refused(
    cli: CLI, case: str, pair: list[str]
) -> None:
    ab(cli, case, *pair, "--metric", "step_time")
    ab(cli, case, "--change", "iommu=pt", "--outcome", "same")  # x2: another finding
    elsewhere = cli("experiment", case, *pair, "--metric", "step_time", "--restates", "x2")
    assert elsewhere.code == 1 and "x2 is no telling of it" in elsewhere.err
    missing = cli("experiment", case, *pair, "--metric", "step_time", "--restates", "x9")
    assert missing.code == 1 and "no experiment 'x9' to restate" in missing.err
    unread = cli("experiment", case, *pair, "--metric", "step_time", "--unit", "points")
    assert unread.code == 1 and "would be read by nothing; --direction" in unread.err


# --- units ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unit", "higher"),
    [
        ("usec", False), ("usecs", False), ("sec.", False), ("Sec.", False), ("GPU hours", False),
        ("GPU-hours", False), ("ms (p99)", False), ("TTFT ms", False), ("ms/step (p50)", False),
        ("Hz", True), ("MHz", True), ("tokens/s (decode)", True), ("tok/s [p50]", True),
    ],
)  # fmt: skip
def test_more_units_say_which_way_is_better(unit: str, higher: bool) -> None:
    assert unit_direction(unit) is higher


def test_a_unit_spelt_short_is_the_same_unit() -> None:
    assert normal_unit("usec") == normal_unit("us") == "us"
    assert normal_unit("sec.") == normal_unit("s")
    assert normal_unit("GPU hours") == "gpu h"
    assert normal_unit("ms (p99)") != normal_unit("ms (p50)")  # the note is the unit's own


def test_the_same_runs_swapped_are_a_re_reading_and_the_refusal_names_the_earlier_order(
    cli: CLI, case: str, pair: list[str]
) -> None:
    """Baseline and variant swapped read the other way round: a re-reading that replaces the
    first, not "the same reading again"; the same swap again is refused, naming the runs in
    the order the earlier A/B compared them."""
    first = ab(cli, case, *pair, "--metric", "step_time")
    base, variant = pair[pair.index("--baseline") + 1], pair[pair.index("--variant") + 1]
    swapped = ["--change", pair[1], "--baseline", variant, "--variant", base]
    second = ab(cli, case, *swapped, "--metric", "step_time")
    assert (second["outcome"], second["restates"]) == ("slower", first["experiment_id"])
    again = cli("experiment", case, *swapped, "--metric", "step_time")
    assert again.code == 1
    assert f"already compares seqs {variant} and {base}" in again.err, again.err
