"""A review's findings on how ``casefile experiment`` takes what a person writes: stated
figures named by their unit, the direction question's answers, ``--outcome`` words, and
``--reported`` figures in the forms threads write them."""

from __future__ import annotations

import io
import json

import pytest

from casefile.domain.triage import STATED_OUTCOMES, STATED_SYNONYMS
from tests.cli.conftest import CLI
from tests.triage.test_experiments import ab, log

WORKERS = "num_workers 2 -> 8"
NUMA = "numactl --cpunodebind=0 --membind=0"


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow training", "--id", "one", "--playbook", "gpu-throughput@3").code == 0
    return "one"


# --- stated figures are named by what their unit measures ---------------------------------


@pytest.mark.parametrize(
    ("change", "figures", "probe", "metric"),
    [
        (WORKERS, ["10:5", "--unit", "s"], (), "time"),
        (WORKERS, ["10:5", "--unit", "ms/step"], (), "time"),
        # a rate by the rule's metric that names one: not its first, a bandwidth
        (NUMA, ["10:20", "--unit", "tok/s"], (), "throughput"),
        (NUMA, ["10:20", "--unit", "GB/s"], (), "bandwidth.h2d"),
        (WORKERS, ["10:20", "--unit", "samples/s"], (), "throughput"),
        (WORKERS, ["10:20", "--unit", "GB/s"], (), "bandwidth"),  # the rule has none
        (WORKERS, ["10:20"], (), "throughput"),  # no unit: the rule's own figure
        ("CUDA graphs enabled", ["10:5", "--unit", "ms"], ("--probe", "command"), "time"),
    ],
)
def test_stated_figures_are_named_as_their_unit_says(
    cli: CLI, case: str, change: str, figures: list[str], probe: tuple[str, ...], metric: str
) -> None:
    out = ab(cli, case, "--change", change, "--reported", *figures, *probe)
    assert out["metric"] == metric
    assert out["outcome"] == "faster"


@pytest.mark.parametrize(
    ("metrics", "unit", "named"),
    [
        (("bandwidth.h2d", "nccl.busbw.large"), "tok/s", "tokens_per_s"),
        (("nccl.busbw.large", "tokens_per_s"), "samples/s", "samples_per_s"),
        (("samples_per_s", "tokens_per_s"), "tok/s", "tokens_per_s"),
        (("samples_per_s",), "img/s", "throughput"),
        (("step_time_s", "throughput"), "ms/step", "time"),
    ],
)
def test_a_rule_with_no_metric_of_the_units_kind_names_it_by_the_unit(
    metrics: tuple[str, ...], unit: str, named: str
) -> None:
    import dataclasses

    from casefile_gpu_playbook import PLAYBOOK

    from casefile.app.experiments import stated_metric

    rule = next(r for r in PLAYBOOK.experiments if r.id == "data-pipeline")
    assert stated_metric(dataclasses.replace(rule, metric=metrics), unit, "command") == named


def test_the_rationale_says_what_was_measured(cli: CLI, case: str) -> None:
    ab(cli, case, "--change", WORKERS, "--reported", "10:5", "--unit", "s")
    said = next(e for e in log(cli, case) if e["type"] == "evidence.assessed")
    assert "made time 10 → 5 s (2.00×" in said["payload"]["rationale"]  # type: ignore[index]


# --- the direction question -----------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("reply", "outcome", "asked"),
    [
        ("lower\n", "slower", 1),
        ("L\n", "slower", 1),
        ("higher\n", "faster", 1),
        ("h\n", "faster", 1),
        ("Yes\n", "faster", 1),
        ("maybe\nlower\n", "slower", 2),
        ("\nhigher\n", "faster", 2),
    ],
)
def test_the_direction_question_takes_higher_and_lower_and_asks_again(
    cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch, reply: str, outcome: str, asked: int
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal(reply))
    done = cli(
        "experiment", case, "--change", WORKERS, "--reported", "50:80", "--unit", "points",
        "--json",
    )  # fmt: skip
    assert done.code == 0, done.err
    assert json.loads(done.out)["outcome"] == outcome
    assert done.err.count("for points") == asked


@pytest.mark.parametrize(("reply", "asked"), [("a\nb\nc\nhigher\n", 3), ("", 1)])
def test_no_answer_leaves_it_unread_after_a_few_asks(
    cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch, reply: str, asked: int
) -> None:
    """Three replies that are no answer, or the end of input, record the A/B unread."""
    monkeypatch.setattr("sys.stdin", _Terminal(reply))
    done = cli(
        "experiment", case, "--change", WORKERS, "--reported", "50:80", "--unit", "points",
        "--json",
    )  # fmt: skip
    assert done.code == 0, done.err
    assert json.loads(done.out)["evidence_id"] is None
    assert done.err.count("for points") == asked


# --- --outcome words ------------------------------------------------------------------------


def test_the_synonyms_name_words_the_domain_reads() -> None:
    assert set(STATED_SYNONYMS.values()) <= set(STATED_OUTCOMES)
    assert "fixed" not in STATED_SYNONYMS.values()  # fixed says more than better


@pytest.mark.parametrize(
    ("word", "stated", "outcome"),
    [
        ("faster", "better", "faster"),
        ("slower", "worse", "slower"),
        ("no change", "same", "same"),
        ("No  Change", "same", "same"),
        ("unchanged", "same", "same"),
        ("Fixed", "fixed", "faster"),
        ("BETTER", "better", "faster"),
    ],
)
def test_an_outcome_is_taken_in_any_case_and_in_the_tools_own_words(
    cli: CLI, case: str, word: str, stated: str, outcome: str
) -> None:
    out = ab(cli, case, "--change", "CUDA graphs enabled", "--outcome", word)
    assert (out["stated"], out["outcome"]) == (stated, outcome)


def test_fixed_still_reads_as_a_large_gain_and_faster_does_not(cli: CLI, case: str) -> None:
    ab(cli, case, "--change", WORKERS, "--outcome", "Fixed")
    ab(cli, case, "--change", WORKERS, "--outcome", "faster")
    fixed, better = [
        str(e["payload"]["rationale"])  # type: ignore[index]
        for e in log(cli, case)
        if e["type"] == "evidence.assessed"
    ]
    assert "'fixed' reads as a large effect" in fixed
    assert "stated as 'better'" in better and "large" not in better


@pytest.mark.parametrize(
    ("word", "says"),
    [
        ("2x faster", "give figures with --reported (2x faster: --reported 1:2)"),
        ("fixed by that setting", "what was said besides goes in --note"),
        ("cured", "(also: faster, slower, no change, unchanged)"),
    ],
)
def test_an_outcome_that_is_no_word_says_where_it_goes(
    cli: CLI, case: str, word: str, says: str
) -> None:
    done = cli("experiment", case, "--change", "iommu=pt", "--outcome", word)
    assert done.code == 2 and says in done.err, done.err
    assert len(done.err.strip().splitlines()) == 1
    assert [e for e in log(cli, case) if e["type"] == "experiment.recorded"] == []


def test_the_help_shows_the_four_words_and_the_others(cli: CLI) -> None:
    shown = cli("experiment", "--help")
    assert shown.code == 0, shown.err
    text = " ".join(shown.out.split())
    assert "--outcome {fixed,better,same,worse}" in text
    assert '(also: faster, slower, "no change", unchanged; any case)' in text


# --- --reported figures as threads write them ------------------------------------------------


@pytest.mark.parametrize(
    ("figures", "unit", "values", "said"),
    [
        ("10s:5s", (), (10.0, 5.0), "s"),
        ("27 tok/s:48 tok/s", (), (27.0, 48.0), "tok/s"),
        ("27 tok/s : 48 tokens/s", (), (27.0, 48.0), "tok/s"),
        ("1,200:2,400", ("--unit", "img/s"), (1200.0, 2400.0), "img/s"),
        ("27->48", ("--unit", "tok/s"), (27.0, 48.0), "tok/s"),
        ("27 → 48", ("--unit", "tok/s"), (27.0, 48.0), "tok/s"),
        ("10 sec:5 sec", ("--unit", "s"), (10.0, 5.0), "s"),  # --unit the same unit
    ],
)
def test_reported_figures_in_a_threads_forms(
    cli: CLI,
    case: str,
    figures: str,
    unit: tuple[str, ...],
    values: tuple[float, float],
    said: str,
) -> None:
    out = ab(cli, case, "--change", WORKERS, "--reported", figures, *unit)
    assert (out["baseline_value"], out["variant_value"], out["unit"]) == (*values, said)
    assert out["evidence_id"] is not None


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["27 -> 48 tok/s"], "the unit apart: --reported 27:48 --unit tok/s"),
        (["27 tok/s:48 GB/s"], "the unit apart: --reported 27:48 --unit tok/s"),
        (["1,5:2,5"], "the unit apart: --reported 27:48 --unit tok/s"),
        (["10s:5s", "--unit", "tok/s"], "--reported gives its figures in s, --unit says tok/s"),
    ],
)
def test_reported_figures_that_cannot_be_read_say_the_form_that_can(
    cli: CLI, case: str, args: list[str], says: str
) -> None:
    done = cli("experiment", case, "--change", WORKERS, "--reported", *args)
    assert done.code != 0 and says in done.err, done.err
    assert len(done.err.strip().splitlines()) == 1
    assert [e for e in log(cli, case) if e["type"] == "experiment.recorded"] == []
