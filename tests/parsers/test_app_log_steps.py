"""A log's first step and its runs (``casefile_probes.app_log_steps``), on real logs: the
golden samples of ``tests/golden/app-log`` as they were pasted, alone and pasted one after
another, as people paste a run before and after a change."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.app_log import parse_app_log
from casefile_probes.app_log_steps import step_counter

from .corpus import GOLDEN, check_result

SAMPLES: Path = GOLDEN / "app-log"


def _sample(stem: str) -> str:
    return (SAMPLES / f"{stem}.txt").read_text(encoding="utf-8")


def _facts(text: str) -> tuple[dict[str, object], list[str]]:
    result = parse_app_log(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}, result.problems


def test_the_first_step_is_left_out_where_later_steps_were_read() -> None:
    """Megatron-DeepSpeed (115): step 1 took 5.4 s, step 2 2.673 s; the median of the two was
    4.04 s, a time no step took after start-up."""
    facts, problems = _facts(_sample("115"))
    assert facts["step_time_s"] == 2.673
    assert facts["samples_per_s"] == 95.775  # step 1's 47.4 samples/s left out with it
    assert problems == [
        "a run's first step is left out of the step time (1 reading(s): 5.4 s): it includes the "
        "run's start-up"
    ]


def test_iteration_zero_is_a_first_step_too() -> None:
    """nanoGPT (061) prints iteration 0 at 9.37 s, then about 0.894 s a step."""
    facts, problems = _facts(_sample("061"))
    assert facts["step_time_s"] == 0.894415
    assert problems and "9.37181 s)" in problems[0]


def test_a_first_step_alone_is_kept_with_a_word() -> None:
    first = _sample("061").splitlines()[0]
    assert first.startswith("iter 0:")
    facts, problems = _facts(first)
    assert facts["step_time_s"] == 9.37181
    assert problems == [
        "only a run's first step gives the step time (9.37181 s): it includes the run's "
        "start-up, and a later step's is the steadier figure"
    ]


def test_two_runs_far_apart_give_no_step_time() -> None:
    """Megatron-DeepSpeed's 2.67 s steps, then nanoGPT's 0.89 s ones: the step counter starts
    again, and the pooled median would be neither run's."""
    facts, problems = _facts(_sample("115") + "\n" + _sample("061"))
    assert "step_time_s" not in facts
    assert any("2 runs (the step counter starts again)" in p and "2.99-fold" in p for p in problems)
    assert any("2.673, 0.894415 s" in p for p in problems)


def test_two_runs_less_than_twice_apart_give_their_median_with_a_word() -> None:
    """MaxText at 2.17 s a step (070), then nanoGPT quoted at 1.10 s (108)."""
    facts, problems = _facts(_sample("070") + "\n" + _sample("108"))
    assert facts["step_time_s"] == 1.0973  # the median of all, most of them nanoGPT's
    assert problems == [
        "2 runs (the step counter starts again) whose step times are 1.97-fold apart "
        "(2.165, 1.09694 s): their median is given; if they are different setups, paste each "
        "run on its own"
    ]


def test_lines_a_step_out_of_order_are_one_run() -> None:
    """Two ranks' lines flushed a step out of order ("step 15109", then "step 15108"), the
    late one a slow step: it is no run of its own, set against the others."""
    first, second, third = _sample("070").splitlines()[:3]
    late = second.replace("seconds: 2.164", "seconds: 9.164", 1)
    assert late != second
    facts, problems = _facts("\n".join([first, third, late]))
    assert facts["step_time_s"] == 2.167
    assert problems == []


LEROBOT = (
    "INFO 2025-07-11 08:20:13 ts/train.py:232 step:{step} smpl:{samples} ep:2 epch:0.00 "
    "loss:1.051 grdn:4.482 lr:1.8e-06 updt_s:{update} data_s:0.001"
)


def test_a_rounded_counter_is_no_counter() -> None:
    """LeRobot prints big numbers rounded ("step:1K", as "smpl:1K" in golden 045): read as
    step 1 it made steps 1000-1499 a first step and a second run."""
    early = [LEROBOT.format(step=s, samples="51K", update="0.620") for s in (200, 400, 600, 800)]
    late = [LEROBOT.format(step=s, samples="64K", update="0.300") for s in ("1K", "1K", "2K")]
    facts, problems = _facts("\n".join(early + late))
    assert facts["step_time_s"] == 0.621  # one run, the median of its seven steps
    assert problems == []


def test_a_counter_that_starts_again_with_the_epoch_is_the_same_run() -> None:
    """A cold first epoch at 0.5 s a step, then two at 0.22 s: one run, whose epochs each
    count their steps from 1."""
    lines = [
        f"Epoch [{epoch}/10], Step [{step}/600], Loss: 0.2134, time per step: {seconds}"
        for epoch, seconds in ((1, "0.500"), (2, "0.220"), (3, "0.220"))
        for step in (1, 100, 200, 300, 400, 500, 600)
    ]
    facts, problems = _facts("\n".join(lines))
    assert facts["step_time_s"] == 0.22
    assert problems == [  # epoch 1's step 1 only: the run's
        "a run's first step is left out of the step time (1 reading(s): 0.5 s): it includes the "
        "run's start-up"
    ]


def test_the_tails_of_two_runs_are_two_runs() -> None:
    """The last steps of a run before a change and after it, the counter back by less than
    half but by many of the log's intervals."""
    before = [f"iter {n}: loss 3.2202, time 100.00ms, mfu 16.68%" for n in range(4900, 5010, 10)]
    after = [f"iter {n}: loss 3.2202, time 300.00ms, mfu 5.56%" for n in range(4900, 5010, 10)]
    facts, problems = _facts("\n".join(before + after))
    assert "step_time_s" not in facts
    assert problems == [
        "2 runs (the step counter starts again) whose step times are 3.00-fold apart (0.1, "
        "0.3 s): several setups pasted together, so none is given (paste each run on its own, "
        "or record them as an A/B with `casefile experiment`)"
    ]


def test_a_rate_withheld_is_said_beside_the_step_time_kept() -> None:
    """Two Megatron-DeepSpeed runs at the same step time, the second at twice the batch: the
    step time stands, the sample rate is two setups', and both are said."""
    one = _sample("115")
    two = one.replace("samples/sec: 95.775", "samples/sec: 191.55").replace(
        "samples/sec: 47.411", "samples/sec: 94.822"
    )
    facts, problems = _facts(one + "\n" + two)
    assert facts["step_time_s"] == 2.673
    assert "samples_per_s" not in facts
    assert problems[0].startswith("a run's first step is left out of the step time (2 reading")
    assert "whose sample rates are 2.00-fold apart" in problems[1]


def test_a_bar_at_its_first_iteration_is_a_first_step() -> None:
    """YOLOv5's bar pasted at 1/78 (golden app-log 121): the only reading is the first
    iteration's, kept with a word; at 2/78 it is an ordinary step."""
    bar = (
        "     0/299      5.2G      0.11    0.1612   0.03867    0.3099        28      1280:   "
        "1%|▌   | {done}/78 [00:04<05:27,  4.26s/it]"
    )
    facts, problems = _facts(bar.format(done=1))
    assert facts["step_time_s"] == 4.26
    assert problems == [
        "only a run's first step gives the step time (4.26 s): it includes the run's start-up, "
        "and a later step's is the steadier figure"
    ]
    facts, problems = _facts(bar.format(done=1) + "\n" + bar.format(done=2).replace("4.26", "1.26"))
    assert facts["step_time_s"] == 1.26
    assert problems[0].startswith("a run's first step is left out of the step time (1 reading")
    _, problems = _facts(bar.format(done=2))
    assert problems == []


def test_two_runs_that_each_name_their_epochs_are_two_runs() -> None:
    """An epoch that goes back (2, then 1) is no next epoch: the counter starting again there
    starts another run."""
    run = [
        f"Epoch [{epoch}/3], Step [{step}/600], Loss: 0.2, time per step = {{seconds}}"
        for epoch, step in ((1, 100), (1, 200), (2, 100), (2, 200))
    ]
    text = "\n".join(
        [line.format(seconds="0.10") for line in run]
        + [line.format(seconds="0.40") for line in run]
    )
    result = parse_app_log(text)
    assert not result.parsed and result.problems[0].startswith("2 runs (the step counter starts")
    assert "4.00-fold apart" in result.problems[0]


def test_a_paste_from_a_later_epoch_has_no_first_step() -> None:
    """A paste that starts at epoch 3's step 1 starts mid-run: nothing is start-up."""
    text = "\n".join(
        f"Epoch 3/10 step {step}/500 loss 2.1 time per step = {seconds}"
        for step, seconds in ((1, "0.25"), (100, "0.26"), (200, "0.26"))
    )
    facts, problems = _facts(text)
    assert facts["step_time_s"] == 0.26
    assert problems == []


def test_nemo_step_timing_in_either_form() -> None:
    """NeMo 2's "train_step_timing in s: 0.03146" (golden 118) and NeMo 1's tqdm postfix
    "train_step_timing in s=0.377"."""
    facts, _ = _facts(_sample("118"))
    assert facts["step_time_s"] == 0.0316
    bar = (
        "Epoch 0:  10%|█         | 50/500 [00:20<03:00, 2.50it/s, loss=2.1, "
        "train_step_timing in s=0.377]"
    )
    facts, _ = _facts(bar)
    assert facts["step_time_s"] == 0.377


def test_a_running_mean_of_steps_a_second_is_read_by_its_last_reading() -> None:
    """ms-swift's 'train_speed(iter/s)' is a mean since the run began (golden 119): its last
    reading is the run's, and its climb while it settles is no trend."""
    line = (
        "{{'loss': 0.42, 'train_speed(iter/s)': {speed}, 'epoch': 0.01, "
        "'global_step/max_steps': '{step}/4491'}}"
    )
    text = "\n".join(
        line.format(speed=speed, step=step)
        for step, speed in ((5, 0.08), (10, 0.12), (15, 0.15), (20, 0.17), (25, 0.18), (30, 0.19))
    )
    facts, _ = _facts(text)
    assert facts["it_per_s"] == 0.19
    assert facts["step_time_s"] == round(1 / 0.19, 6)
    assert "app.throughput_trend" not in facts


def test_one_run_is_one_run() -> None:
    for stem in ("061", "070", "108", "110", "112", "024"):
        _, problems = _facts(_sample(stem))
        assert not any("runs (the step counter" in p for p in problems), stem


@pytest.mark.parametrize(
    ("line", "counter"),
    [
        ("INFO:tensorflow:loss = 0.053051353, step = 62400 (82.396 sec)", 62400),
        ("Global step 73968: loss = 1.0840, time per step = 0:00:1.390", 73968),
        ("steps: 1 loss: 12.6199 iter time (s): 5.400 samples/sec: 47.411", 1),
        ("iter 10: loss 3.2202, time 893.76ms, mfu 16.68%", 10),
        ("step 00004/21400 (0.02%) | loss: 8.893647 | dt: 989.44ms", 4),
        ("[Rank 0] step=2, skipped=0, lr=[3e-07, 3e-07]", 2),
        ("completed step: 15107, seconds: 2.167, TFLOP/s: 36.722", 15107),
        ("INFO 2025-07-11 ts/train.py:232 step:9 smpl:576 ep:2", 9),
        ("Step 200 per-step time 0.260s", 200),
        ("step 1,000 | loss 2.1 | 0.250 s/step", 1000),
        ("Epoch 1, step 1, loss 2.1", 1),
        # not counters
        ("OpenSeq2Seq: time per step = 0:00:1.390", None),
        ("INFO:tensorflow:global_step/sec: 1.09456", None),
        ("steps/sec: 0.1", None),
        ("max_steps=1000 warmup_steps: 100", None),
        ("(after 1 iterations) memory (MB)", None),
        ("iter time (s): 2.673", None),
        (
            "Training epoch 0, iteration 120/149 | global_step: 120 | train_step_timing in s: 0.03",
            120,
        ),
        ("INFO ts/train.py:232 step:1K smpl:64K ep:200", None),
        ("Steps:  45%|####      | 450/1000 [03:45<04:35,  2.00it/s]", None),
    ],
)
def test_a_step_counter_is_read_where_a_line_states_one(line: str, counter: int | None) -> None:
    assert step_counter(line) == counter
