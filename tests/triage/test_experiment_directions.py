"""Which way is better in an A/B: from the figures' unit, ``--direction``, the rule, or asked."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from casefile.domain.better_way import settle_direction
from casefile.domain.units import unit_direction
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

DURATIONS = ["s", "ms", "us", "µs", "min", "h", "s/step", "s/it", "ms/token", "sec", "seconds",
             "ms per token", "hours", "s/step per GPU", "microseconds", "(Seconds)", "days",
             "Seconds per iteration", "msec/tok"]  # fmt: skip


RATES = ["tok/s", "tokens/s", "it/s", "fps", "GB/s", "Gb/s", "samples/s", "req/s", "runs/day",
         "TFLOPS", "x", "tokens per second", "relative throughput", "img/s per GPU",
         "tok/s/user", "Tokens per second", "[tok/sec]", "images/sec", "iters/s",
         "steps/hour"]  # fmt: skip


@pytest.mark.parametrize("unit", DURATIONS)
def test_every_duration_is_better_lower(unit: str) -> None:
    assert unit_direction(unit) is False


@pytest.mark.parametrize("unit", RATES)
def test_every_rate_is_better_higher(unit: str) -> None:
    assert unit_direction(unit) is True


@pytest.mark.parametrize("unit", [None, "", "%", "widgets", "W"])
def test_a_unit_that_says_neither_says_nothing(unit: str | None) -> None:
    assert unit_direction(unit) is None


@pytest.mark.parametrize(
    ("unit", "normal"),
    [
        ("Tokens per second", "tok/s"),
        ("[tok/sec]", "tok/s"),
        ("(Seconds)", "s"),
        ("ms (p99)", "ms (p99)"),  # a bracket inside is the unit's own (a review's finding)
        ("images/sec", "img/s"),
    ],
)
def test_one_spelling_of_a_unit_for_the_repeat_guard_and_the_direction(
    unit: str, normal: str
) -> None:
    from casefile.domain.units import normal_unit

    assert normal_unit(unit) == normal


def test_the_rule_speaks_only_for_figures_without_a_unit() -> None:
    from casefile_gpu_playbook import PLAYBOOK_V2

    rule = next(r for r in PLAYBOOK_V2.experiments if r.id == "cuda-graphs")
    assert rule.higher_is_better is True
    lower = settle_direction(None, "s", rule)
    assert lower is not None and (lower.higher_is_better, lower.source) == (False, "unit")
    by_rule = settle_direction(None, None, rule)
    assert by_rule is not None and (by_rule.higher_is_better, by_rule.source) == (True, "rule")
    assert settle_direction(None, "widgets", rule) is None
    stated = settle_direction(False, "tok/s", rule)
    assert stated is not None and (stated.higher_is_better, stated.source) == (False, "stated")


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow training", "--id", "d1", "--playbook", "gpu-throughput@2").code == 0
    return "d1"


def _reported(cli: CLI, case: str, *words: str) -> dict[str, object]:
    result = cli(
        "experiment", case, "--change", "CUDA graphs enabled", "--probe", "command", "--json",
        *words,
    )  # fmt: skip
    assert result.code == 0, result.err
    out: dict[str, object] = json.loads(result.out)
    return out


def test_a_duration_that_halves_is_faster(cli: CLI, case: str) -> None:
    """12.0 s per step before CUDA graphs, 6.0 s after: twice as fast, not a slowdown."""
    out = _reported(cli, case, "--reported", "12.0:6.0", "--unit", "s")
    assert (out["rule"], out["outcome"]) == ("experiment.cuda-graphs", "faster")
    assert out["speedup"] == pytest.approx(2.0)
    assert out["direction"] == "lower is better for s"
    recorded = next(e for e in log(cli, case) if e["type"] == "experiment.recorded")
    assert recorded["payload"]["higher_is_better"] is False  # type: ignore[index]


def test_a_measured_duration_is_read_by_its_unit(cli: CLI, case: str, tmp_path: Path) -> None:
    seqs = []
    for name, step in (("a.txt", 0.84), ("b.txt", 0.21)):
        path = tmp_path / name
        path.write_text(f"step time: {step} s\n")
        result = cli(
            "probe", case, "command", "--paste", str(path), "--json",
            "--fact", r"step_time=step time: ([0-9.]+)", "--", "train.py",
        )  # fmt: skip
        assert result.code == 0, result.err
        seqs.append(str(json.loads(result.out.splitlines()[0])["probe_run_seq"]))
    result = cli(
        "experiment", case, "--change", "CUDA graphs enabled", "--baseline", seqs[0],
        "--variant", seqs[1], "--metric", "step_time", "--unit", "s/step", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["outcome"], out["speedup"]) == ("faster", pytest.approx(4.0))


def test_direction_overrides_the_unit(cli: CLI, case: str) -> None:
    out = _reported(cli, case, "--reported", "400:200", "--unit", "tok/s", "--direction", "lower")
    assert (out["outcome"], out["speedup"]) == ("faster", pytest.approx(2.0))
    assert out["direction"] == "lower is better as stated (--direction)"


def test_without_a_unit_the_rules_direction_holds(cli: CLI, case: str) -> None:
    out = _reported(cli, case, "--reported", "400:800")
    assert (out["outcome"], out["direction"]) == ("faster", "higher is better by the rule")


def test_an_unknown_unit_off_a_terminal_is_recorded_and_not_read(cli: CLI, case: str) -> None:
    before = len(log(cli, case))
    result = cli(
        "experiment", case, "--change", "CUDA graphs enabled", "--probe", "command",
        "--reported", "30:60", "--unit", "widgets",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "saying which way is would let it be read (--direction)" in result.out
    assert len(result.out.strip().splitlines()) == 1
    events = log(cli, case)[before:]
    assert [e["type"] for e in events] == ["experiment.recorded"]
    payload = events[0]["payload"]
    assert "speedup" not in payload and "higher_is_better" not in payload  # type: ignore[operator]
    assert "which way is better unsaid" in cli("log", case).out


def test_the_same_runs_compared_again_with_a_direction_are_read(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    """An A/B left unread for want of a direction does not block comparing the same runs
    again with --direction; one that was read does."""
    seqs = []
    for name, score in (("a.txt", 30), ("b.txt", 60)):
        path = tmp_path / name
        path.write_text(f"score {score}\n")
        result = cli(
            "probe", case, "command", "--paste", str(path), "--json",
            "--fact", r"score=score ([0-9]+)", "--", "bench",
        )  # fmt: skip
        assert result.code == 0, result.err
        seqs.append(str(json.loads(result.out.splitlines()[0])["probe_run_seq"]))
    pair = ["--change", "CUDA graphs enabled", "--baseline", seqs[0], "--variant", seqs[1],
            "--metric", "score", "--unit", "points"]  # fmt: skip
    first = cli("experiment", case, *pair, "--json")
    assert first.code == 0, first.err
    assert json.loads(first.out)["evidence_id"] is None
    again = cli("experiment", case, *pair, "--direction", "higher", "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["outcome"] == "faster"
    third = cli("experiment", case, *pair, "--direction", "higher")
    assert third.code == 1 and "already compares" in third.err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("reply", "outcome"), [("y\n", "faster"), ("n\n", "slower")])
def test_at_a_terminal_an_unknown_unit_is_asked_in_one_line(
    cli: CLI,
    case: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reply: str,
    outcome: str,
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal(reply))
    result = cli(
        "experiment", case, "--change", "CUDA graphs enabled", "--probe", "command",
        "--reported", "30:60", "--unit", "widgets", "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.err.strip() == "is higher better for widgets? [y/n]"
    out = json.loads(result.out)
    assert out["outcome"] == outcome
    assert out["direction"].endswith("for widgets, as answered")


def test_an_experiment_without_a_speedup_survives_a_saved_fold(cli: CLI, case: str) -> None:
    from casefile.domain.beliefs import project
    from casefile.domain.beliefs.fold_codec import dump_fold, restore_fold
    from casefile.domain.events import Event

    _reported(cli, case, "--reported", "30:60", "--unit", "widgets")
    events = [Event(**e) for e in log(cli, case)]  # type: ignore[arg-type]
    folded = project(events)
    assert dump_fold(restore_fold(dump_fold(folded))) == dump_fold(folded)
