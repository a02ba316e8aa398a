"""Hand-made cases for the app-log shapes added in the breadth round of samples 060-081: each the
test that would have caught the miss or misreading its sample showed (figures worked out by
hand), beside the near misses each new pattern must leave alone."""

from __future__ import annotations

import pytest
from casefile_probes.app_log import looks_like_app_log, parse_app_log

from casefile.domain.facts import FactValue, ParseResult


def _values(result: ParseResult) -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == "host"}


def test_openpcdet_data_time_against_batch_time_not_forward_time() -> None:
    """'Data time: 0.87(0.87)  Forward time: 3.18(3.18)  Batch time: 4.04(4.04)': the step is
    the batch time; the plain 'time:' pattern would have taken the forward time."""
    line = (
        "INFO  Train:    1/3 ( 33%) [   0/323 (  0%)]  Loss: 516.7 (517.)  LR: 1.000e-04  "
        "Time cost: 00:04/21:46 [00:04/1:05:18]  Acc_iter 1           Data time: 2.00(0.87)  "
        "Forward time: 3.00(3.18)  Batch time: 5.00(4.04)"
    )
    assert looks_like_app_log(line)
    assert _values(parse_app_log(line)) == {
        "train.data_time_s": 2.0,
        "train.step_time_s": 5.0,
        "step_time_s": 5.0,
        "train.data_share": 0.4,
    }


@pytest.mark.parametrize(
    ("text", "step"),
    [
        # Megatron-LM: the unit in brackets before the number
        (" iteration      182/  250000 | consumed samples:       186368 | elapsed time per "
         "iteration (ms): 1500.0 | learning rate: 1.365E-05 |", 1.5),
        # nanoGPT: "time" then the number with its unit, no colon
        ("iter 10: loss 3.2202, time 893.76ms, mfu 16.68%\n"
         "iter 20: loss 2.7697, time 900.00ms, mfu 16.67%\n"
         "iter 30: loss 2.6104, time 9000.00ms, mfu 16.68%\n", 0.9),
        # llama2.c: a bare ms field between bars
        ("490 | loss 5.7543 | lr 4.900000e-05 | 8060.78ms | mfu 0.21%", 8.06078),
        # MaxText: seconds after the step number
        ("completed step: 15107, seconds: 2.167, TFLOP/s: 36.722, loss: 2.191", 2.167),
    ],
)  # fmt: skip
def test_step_times_of_llm_training_loops(text: str, step: float) -> None:
    assert looks_like_app_log(text)
    values = _values(parse_app_log(text))
    values.pop("tflops", None)  # MaxText's TFLOP/s per device: app_log_trend's tests
    assert values == {"step_time_s": step}


@pytest.mark.parametrize(
    "line",
    [
        "Total time 54.0s",  # a run's total, not an iteration's
        "step 250: train loss 1.5440, val loss 1.7220",
        "490 | loss 5.7543 | done",
        "Loading took 893.76ms",
    ],
)
def test_time_lines_that_are_not_a_step(line: str) -> None:
    assert "step_time_s" not in _values(parse_app_log(line))


@pytest.mark.parametrize(
    ("line", "rate"),
    [
        # koboldcpp: the generation rate, not the prompt's (Process) before it
        ("[01:03:39] CtxLimit:56/12288, Amt:33/4096, Init:0.00s, Process:1.92s (12.01T/s), "
         "Generate:15.54s (2.12T/s), Total:17.45s", 2.12),
        ("CtxLimit: 3768/4096, Process:0.44s (442.0ms/T = 2.26T/s), "
         "Generate:0.50s (25.0ms/T = 40.00T/s), Total:0.94s (2.25T/s)", 40.0),
        # MLC: prefill and decode rates on one line; the decode one is the output rate
        ("prefill: 1.0 tok/s, decode: 5.4 tok/s", 5.4),
        ("[i: 51] decoding-time=8.44127ms tok/s: 119.053.", 119.053),
    ],
)  # fmt: skip
def test_token_rates_of_more_tools(line: str, rate: float) -> None:
    assert looks_like_app_log(line)
    assert _values(parse_app_log(line)) == {"tokens_per_s": rate, "throughput": rate}


@pytest.mark.parametrize(
    ("line", "rate"),
    [
        # torchtitan: tokens per second per GPU, thousands grouped with a comma
        ("[titan] 2026-05-18 16:04:46,338 - root - INFO - step: 14  loss:  3.24405  "
         "grad_norm:  0.8319  memory:  9.46GiB(64.99%)  tps: 17,282  tflops: 0.52  mfu: 0.17%",
         17282.0),
        ("step: 1  loss: 9.1  tps: 812.5  tflops: 1.2  mfu: 0.5%", 812.5),
        # a per-GPU training rate after its label
        ("step: 10         train loss: 3.11        test loss: 3.05         "
         "tokens/gpu/sec: 9378.40         MFU: 63.91%", 9378.4),
    ],
)  # fmt: skip
def test_a_rate_per_gpu_is_not_the_jobs(line: str, rate: float) -> None:
    """Found by a review: taken as the job's rate, eight GPUs at 2,120 each against one at
    7,300 read as a 3.4x gain from fewer GPUs, though the job moved 17k tokens/s against 7.3k."""
    assert looks_like_app_log(line)
    values = _values(parse_app_log(line))
    values.pop("tflops", None)  # torchtitan's TFLOP/s, per GPU too: never the job's rate
    assert values == {"tokens_per_s_per_gpu": rate}


def test_a_benchmarks_peak_rate_is_not_its_rate() -> None:
    """Found by a review: vLLM's serving benchmark prints its best second beside its rate, and
    the two were averaged (1000 and 3000 gave 2000)."""
    text = (
        "Output token throughput (tok/s):          1000.00\n"
        "Peak output token throughput (tok/s):     3000.00\n"
    )
    assert _values(parse_app_log(text))["tokens_per_s"] == 1000.0


def test_an_eager_decode_batch_beside_captured_graphs_says_nothing_of_the_setting() -> None:
    """Found by a review: SGLang runs a batch larger than its largest captured graph eagerly,
    with graphs on; one such line had marked the whole server as running without graphs."""
    head = "Capture cuda graph begin. This can take up to several minutes.\n"
    small = (
        "Decode batch. #running-req: 8, #token: 1000, cuda graph: True, "
        "gen throughput (token/s): 300.00\n"
    )
    large = (
        "Decode batch. #running-req: 256, #token: 9000, cuda graph: False, "
        "gen throughput (token/s): 2000.00\n"
    )
    assert _values(parse_app_log(head + small + large))["app.cuda_graphs_off"] is False
    assert _values(parse_app_log(large))["app.cuda_graphs_off"] is True


@pytest.mark.parametrize(
    "line",
    [
        # the words since the previous rate decide: each of these is about the prompt or totals
        "Prompt processed in 0.12 seconds, 15 tokens, 125.00 tokens/second",
        "decode: 5.4 tok/s".replace("decode", "prefill"),
        "input: 900.0 tok/s, total tokens: 1200.0 tok/s",
        "Per GPU Output Throughput (tps/gpu):              6957.3030",
        "Process:1.92s (12.01T/s), Total:17.45s",
        "tps: 1,23  tflops: 0.5",  # not a grouped number
    ],
)
def test_rates_that_are_not_the_output_rate(line: str) -> None:
    assert "tokens_per_s" not in _values(parse_app_log(line))


def test_yolo_validation_bars_are_not_training_steps() -> None:
    """YOLOv8 prints a validation bar after each epoch's training bar; reading it as a step
    rate mixed 3.96 it/s of validation into 1.61 it/s of training."""
    text = (
        "      1/400      17.9G       1.72      7.663      2.019         10       1280: 100%|"
        "██████████| 60/60 [00:37<00:00,  1.61it/s]\n"
        "                 Class     Images  Instances      Box(P          R      mAP50  "
        "mAP50-95): 100%|██████████| 7/7 [00:01<00:00,  3.96it/s]\n"
        "               Class     Images     Labels          P          R     mAP@.5 "
        "mAP@.5:.95: 100%|██████████| 7/7 [00:01<00:00,  5.00it/s]\n"
    )
    assert _values(parse_app_log(text)) == {"it_per_s": 1.61, "throughput": 1.61}


SGLANG = """\
[2025-09-03 18:33:18 TP0] Prefill batch. #new-seq: 1, #new-token: 103, #cached-token: 1, \
token usage: 0.00, #running-req: 0, #queue-req: 0,
[2025-09-03 18:33:19 TP0] Decode batch. #running-req: 1, #token: 137, token usage: 0.00, \
cuda graph: True, gen throughput (token/s): 1.06, #queue-req: 0,
[2025-09-03 18:33:19 TP0] Decode batch. #running-req: 1, #token: 177, token usage: 0.00, \
cuda graph: True, gen throughput (token/s): 84.00, #queue-req: 0,
[2025-09-03 18:33:20 TP0] Prefill batch. #new-seq: 1, #new-token: 18, #cached-token: 184, \
token usage: 0.00, #running-req: 1, #queue-req: 0,
[2025-09-03 18:33:21 TP0] Decode batch. #running-req: 2, #token: 234, token usage: 0.00, \
cuda graph: True, gen throughput (token/s): 150.00, #queue-req: 0,
"""


def test_sglang_decode_interval_after_an_idle_server_is_left_out() -> None:
    """The first decode line after a prefill that found nothing running spans the idle gap
    (1.06 tokens/s); one after a prefill that joined a running batch does not."""
    result = parse_app_log(SGLANG)
    assert _values(result) == {
        "tokens_per_s": 117.0,  # median of 84 and 150
        "throughput": 117.0,
        "app.cuda_graphs_off": False,
    }
    assert result.problems == [
        "1 SGLang decode interval(s) right after an idle server left out of tokens_per_s: "
        "their time includes the idle gap"
    ]


@pytest.mark.parametrize(
    ("line", "off"),
    [
        ("[TP0] Decode batch. #running-req: 1, #token: 137, cuda graph: True, "
         "gen throughput (token/s): 84.20, #queue-req: 0,", False),
        ("[TP0] Decode batch, #running-req: 4, #token: 137, cuda graph: False, "
         "gen throughput (token/s): 30.00, #queue-req: 0", True),
        # prefill batches never run as graphs: their False says nothing about the setting
        ("[TP0 EP0] Prefill batch, #new-seq: 1, #new-token: 256, #running-req: 3, "
         "cuda graph: False, input throughput (token/s): 12.33", None),
    ],
)  # fmt: skip
def test_sglang_batch_lines_say_whether_decode_runs_as_cuda_graphs(
    line: str, off: bool | None
) -> None:
    assert _values(parse_app_log(line)).get("app.cuda_graphs_off") is off
