"""Hand-made cases for the app-log parser: each computed value (data time against step time,
medians and ratios, rates and their units, parallel sizes, the device a job says it runs on,
TorchBench's dispatch time over GPU time) checked against a figure worked out by hand, and the
shapes no real sample here shows."""

from __future__ import annotations

import pytest
from casefile_probes.app_log import looks_like_app_log, parse_app_log
from casefile_probes.cpu_load import parse_mpstat, parse_pidstat, parse_top

from casefile.domain.facts import FactValue, ParseResult


def _values(result: ParseResult, subject: str = "host") -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == subject}


# ----------------------------------------------------------------------------- app-log


def test_data_share_is_the_median_of_per_line_ratios_capped_at_one() -> None:
    text = (
        "Epoch [1][10/100]  lr: 0.01, eta: 0:10:00, time: 1.000, data_time: 0.900, loss: 1.0\n"
        "Epoch [1][20/100]  lr: 0.01, eta: 0:09:00, time: 0.500, data_time: 0.100, loss: 1.0\n"
        "Epoch [1][30/100]  lr: 0.01, eta: 0:08:00, time: 0.200, data_time: 0.300, loss: 1.0\n"
        "Loading data: 5 files\nTotal time: 54.0\n"
    )
    result = parse_app_log(text)
    assert _values(result) == {
        "train.data_time_s": 0.3,
        "train.step_time_s": 0.5,
        "step_time_s": 0.5,
        "train.data_share": 0.9,  # 0.9, 0.2 and 1.5 capped at 1: median 0.9
    }


@pytest.mark.parametrize("gap", ["", " "])
def test_centernets_bar_reads_the_mean_data_time_against_the_mean_iteration(gap: str) -> None:
    """CenterNet's bar prints the data time now and its running mean, and only the running
    mean of a whole iteration ("Net"): the two means are the pair to compare, not 3.556 s of
    data in a 1.014 s iteration."""
    line = (
        "ctdet/coco_dla |####      | train: [54][4784/14785]|Tot: 1:20:53 |ETA: 6:14:23 "
        f"|loss 1.7448 |Data 3.556s{gap}(0.517s) |Net 1.014s"
    )
    assert _values(parse_app_log(line)) == {
        "train.data_time_s": 0.517,
        "train.step_time_s": 1.014,
        "step_time_s": 1.014,
        "train.data_share": 0.509862,
    }


@pytest.mark.parametrize(
    ("line", "facts"),
    [
        ("Epoch 3:  40%|####      | 40/100 [00:20<00:30,  2.00it/s, loss=0.1]",
         {"it_per_s": 2.0, "throughput": 2.0}),
        ("Epoch 3:  40%|####      | 40/100 [01:40<02:30,  2.50s/it, loss=0.1]",
         {"it_per_s": 0.4, "throughput": 0.4, "step_time_s": 2.5}),
        ("Loading checkpoint shards: 100%|##########| 2/2 [00:05<00:00,  2.71s/it]", {}),
        ("Epoch 0:   0%|          | 1/100 [00:00<00:45,  2.18it/s]", {}),
        ("100/100 [==========] - 5s 50ms/step - loss: 0.3", {"step_time_s": 0.05}),
        ("INFO:tensorflow:global step 5320: loss = 6.8 (29.31 sec/step)", {"step_time_s": 29.31}),
        ("time per iteration: 420 ms", {"step_time_s": 0.42}),
        ("Avg prompt throughput: 9.0 tokens/s, Avg generation throughput: 0.0 tokens/s, "
         "Running: 0 reqs", {}),
        ("Throughput: 4.93 requests/s, 2523.51 total tokens/s, 1262.00 output tokens/s",
         {"tokens_per_s": 1262.0, "throughput": 1262.0, "requests_per_s": 4.93}),
        ("llama_print_timings: prompt eval time =  100.00 ms /  10 tokens "
         "(10.00 ms per token, 100.00 tokens per second)", {}),
        ('2024-05-01T10:00:00Z INFO generate{time_per_token="25ms" queue_time="1ms"}: Success',
         {"tokens_per_s": 40.0, "throughput": 40.0}),
        ("Processed prompts: 100%|####| 100/100 [00:10<00:00, 9.50it/s, "
         "est. speed input: 500.00 toks/s, output: 200.00 toks/s]",
         {"tokens_per_s": 200.0, "throughput": 200.0}),
        ("Time for inference 1: 0.89 sec total, 200 tokens, 223.93 tokens/sec, 4.47 ms/token",
         {"tokens_per_s": 223.93, "throughput": 223.93}),
        ("prompt: 512 tokens at 900.5 tok/s", {}),
        # the rate after its label; a colon or '=' after a rate with no number is not one
        ("[Step 5/12000] loss=1.35 reward_avg=0.125 tok/sec=49.4 avg_resp_len=181.",
         {"tokens_per_s": 49.4, "throughput": 49.4}),
        ("Throughput: 46.3 tokens/s: ok", {"tokens_per_s": 46.3, "throughput": 46.3}),
        ("step 10 46.3 tok/s: steady", {"tokens_per_s": 46.3, "throughput": 46.3}),
        ("gen 46.3 tok/s=fast", {"tokens_per_s": 46.3, "throughput": 46.3}),
        ("Training speed: 812.5 samples/s", {"samples_per_s": 812.5, "throughput": 812.5}),
        # ExLlamaV2 spells the unit out; its prompt line is not the generation rate
        ("Response generated in 8.56 seconds, 1024 tokens, 119.64 tokens/second",
         {"tokens_per_s": 119.64, "throughput": 119.64}),
        ("Prompt processed in 0.12 seconds, 15 tokens, 125.00 tokens/second", {}),
        # Ollama --verbose: the eval rate, not the prompt eval rate
        ("eval rate:            24.61 tokens/s", {"tokens_per_s": 24.61, "throughput": 24.61}),
        ("prompt eval rate:     53.77 tokens/s", {}),
        # trtllm-bench: the unit in brackets before the colon; total tokens are not output
        ("Total Output Throughput (tokens/sec):             7517.2584",
         {"tokens_per_s": 7517.2584, "throughput": 7517.2584}),
        ("Total Token Throughput (tokens/sec):              38762.1169", {}),
        ("Per GPU Output Throughput (tps/gpu):              6957.3030", {}),
        # DeepSpeed: the current rate where the running average is printed too
        ("[timer.py:189:stop] 0/40, SamplesPerSec=83.5, MemAllocated=0.26GB",
         {"samples_per_s": 83.5, "throughput": 83.5}),
        ("epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=20.5, "
         "CurrSamplesPerSec=24.1, MemAllocated=4.1GB",
         {"samples_per_s": 24.1, "throughput": 24.1}),
        # LeRobot: the update time and the wait for the batch, apart
        ("INFO ts/train.py:232 step:9 smpl:576 loss:1.051 lr:1.8e-06 updt_s:0.300 data_s:0.900",
         {"train.data_time_s": 0.9, "train.step_time_s": 1.2, "step_time_s": 1.2,
          "train.data_share": 0.75}),
        ("Output generated in 1.83 seconds (5.46 tokens/s, 10 tokens, context 66, seed 1)",
         {"tokens_per_s": 5.46, "throughput": 5.46}),
        ("\x1b[32mINFO\x1b[0m Avg generation throughput: \x1b[1m41.2\x1b[0m tokens/s, "
         "Running: 1 reqs",
         # one request running: the one-stream rate the decode roofline reads
         {"tokens_per_s": 41.2, "throughput": 41.2, "decode.tokens_per_s": 41.2}),
    ],
)  # fmt: skip
def test_one_line_gives_what_it_says(line: str, facts: dict[str, FactValue]) -> None:
    result = parse_app_log(line)
    assert _values(result) == facts, result.problems


def test_throughput_prefers_tokens_then_samples_then_iterations() -> None:
    text = "5.00it/s]\n128 samples/sec\nAvg generation throughput: 30.0 tokens/s, Running: 2 reqs\n"
    values = _values(parse_app_log(text))
    assert values["throughput"] == 30.0
    assert (values["tokens_per_s"], values["samples_per_s"], values["it_per_s"]) == (
        30.0,
        128.0,
        5.0,
    )
    assert [f.unit for f in parse_app_log(text).facts if f.name == "throughput"] == ["tokens/s"]
    assert _values(parse_app_log(text.split("\n", 1)[1].rsplit("\n", 2)[0]))["throughput"] == 128.0


LLAMA_BENCH = """\
| model                  |     size |  params | backend | ngl |          test |          t/s |
| ---------------------- | -------: | ------: | ------- | --: | ------------: | -----------: |
| llama 8B Q4_K - Medium | 4.58 GiB |  8.03 B | CUDA    |  99 |         pp512 | 5121.3 ± 9.1 |
| llama 8B Q4_K - Medium | 4.58 GiB |  8.03 B | CUDA    |  99 |         tg128 |  120.5 ± 0.2 |
| llama 8B Q4_K - Medium | 4.58 GiB |  8.03 B | CUDA    |  99 | tg128 @ d4096 |  110.5 ± 0.4 |
"""


def test_llama_bench_generation_rows_give_the_token_rate() -> None:
    """Generation tests (tgN, at any depth) are the rate a user waits on; prompt processing
    (ppN) is not, and rows read before a header, or without one, are nobody's."""
    assert looks_like_app_log(LLAMA_BENCH)
    assert _values(parse_app_log(LLAMA_BENCH)) == {
        "tokens_per_s": 115.5,
        "throughput": 115.5,
        # for the decode roofline: the size, the row that streams most (tg128, not the deep
        # row), and the whole model on the GPU (ngl 99 on CUDA)
        "model.weights_gb": 4.917738,
        "decode.tokens_per_s": 120.5,
        "model.weights_on_gpu": True,
    }
    rows_only = "\n".join(LLAMA_BENCH.splitlines()[2:])
    assert not parse_app_log(rows_only).parsed
    moved = LLAMA_BENCH.replace("|          test |          t/s |", "|          t/s |   test |")
    assert not parse_app_log(moved).parsed  # the columns are taken where the header puts them


def test_an_idle_server_says_nothing_about_speed() -> None:
    result = parse_app_log(
        "Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs\n"
    )
    assert not result.parsed
    assert "no step or data times" in result.problems[0]


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("args: Namespace(tensor_parallel_size=4, world_size=4)",
         {"app.tensor_parallel": 4, "app.world_size": 4}),
        ("vllm serve m --tensor-parallel-size 2", {"app.tensor_parallel": 2}),
        ("'tensor_parallel_size':8,", {"app.tensor_parallel": 8}),
        ("python3 -m sglang.launch_server --model-path m --tp 2", {"app.tensor_parallel": 2}),
        ("export WORLD_SIZE=16", {"app.world_size": 16}),
        ("Namespace(distributed_world_size=8, fp16=True)", {"app.world_size": 8}),
        ("Let's use 4 GPUs!", {"app.gpus_used": 4}),
        ("Command Line Args: Namespace(num_gpus=2, resume=False)", {"app.gpus_used": 2}),
        ("Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: False",
         {"app.gpus_used": 1, "app.device_cpu": False}),
        ("TP Size:                4\nPP Size:                1\n", {"app.tensor_parallel": 4}),
    ],
)  # fmt: skip
def test_parallel_sizes_and_gpu_counts(text: str, facts: dict[str, FactValue]) -> None:
    values = _values(parse_app_log(text))
    assert values == facts
    assert all(type(values[name]) is type(value) for name, value in facts.items())


def test_several_parallel_sizes_keep_the_last_with_a_problem() -> None:
    result = parse_app_log("tensor_parallel_size=2\ntensor_parallel_size=8\n")
    assert _values(result) == {"app.tensor_parallel": 8}
    assert result.problems == [
        "tensor parallel size: the log gives several values (2, 8); the last is kept"
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Using device: cpu",
        "device='cpu'",
        "torch.cuda.is_available(): False",
        "CUDA is not available, using the CPU instead",
        "RuntimeError: No CUDA GPUs are available",
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount()",
        "found no NVIDIA driver on your system",
        "Running on CPU",
        "Process rank: 0, device: cpu, n_gpu: 0, distributed training: False",
        "GPU available: True (cuda), used: False",
        "YOLOv5 v7.0 torch 2.0.1 CPU",
    ],
)
def test_a_cpu_statement_means_the_job_runs_on_the_cpu(line: str) -> None:
    assert _values(parse_app_log(line)).get("app.device_cpu") is True


@pytest.mark.parametrize(
    "line",
    [
        "Using device: cuda:0",
        "Namespace(device='cuda', lr=0.1)",
        "GPU available: True (cuda), used: True",
        "YOLOv5 v7.0 torch 2.0.1 CUDA:0 (NVIDIA A100-SXM4-40GB, 40536MiB)",
    ],
)
def test_a_cuda_statement_means_the_gpu(line: str) -> None:
    assert _values(parse_app_log(line)) == {"app.device_cpu": False}


@pytest.mark.parametrize(
    "line", ["Using CPU Adam optimizer", "offload_device='cpu'", "CPU KV cache usage: 0.0%"]
)
def test_words_about_the_cpu_that_are_not_the_jobs_device(line: str) -> None:
    assert "app.device_cpu" not in _values(parse_app_log(line))


def test_cpu_and_cuda_statements_together_count_as_cpu_with_a_problem() -> None:
    result = parse_app_log("Use GPU: cuda:0\nRuntimeError: No CUDA GPUs are available\n")
    assert _values(result) == {"app.device_cpu": True}
    assert "names both the CPU" in result.problems[0]


@pytest.mark.parametrize("value", [None, 7, b"data_time: 1"])
def test_parsers_take_anything(value: object) -> None:
    for parse in (parse_top, parse_mpstat, parse_pidstat, parse_app_log):
        result = parse(value)  # type: ignore[arg-type]
        assert not result.parsed and result.problems


# ------------------------------------------------------------- app-log: TorchBench timings


def test_torchbench_dispatch_time_over_gpu_time() -> None:
    text = (
        "Running train method from resnet50 on cuda in eager mode.\n"
        "GPU Time:             200.000 milliseconds\n"
        "CPU Dispatch Time:     50.000 milliseconds\n"
        "CPU Total Wall Time:  201.500 milliseconds\n"
    )
    assert looks_like_app_log(text)
    values = _values(parse_app_log(text))
    assert values == {
        "app.gpu_time_ms": 200.0,
        "app.cpu_dispatch_ms": 50.0,
        "app.cpu_wall_ms": 201.5,
        "app.dispatch_share": 0.25,
    }


def test_torchbench_per_batch_lines_without_a_dispatch_time_give_no_share() -> None:
    """Later run.py versions print per-batch times and no dispatch time: nothing to divide."""
    text = (
        "GPU Time per batch:   12.500 milliseconds\n"
        "CPU Wall Time per batch:   13.000 milliseconds\n"
    )
    assert looks_like_app_log(text)
    assert _values(parse_app_log(text)) == {"app.gpu_time_ms": 12.5, "app.cpu_wall_ms": 13.0}


def test_each_dispatch_time_is_divided_by_the_gpu_time_of_its_own_run() -> None:
    text = (
        "GPU Time: 100.0 milliseconds\nCPU Dispatch Time: 90.0 milliseconds\n"
        "GPU Time: 10.0 milliseconds\nCPU Dispatch Time: 1.0 milliseconds\n"
        "GPU Time: 40.0 milliseconds\nCPU Dispatch Time: 20.0 milliseconds\n"
    )
    values = _values(parse_app_log(text))
    assert values["app.dispatch_share"] == 0.5  # median of 0.9, 0.1, 0.5
    assert values["app.gpu_time_ms"] == 40.0 and values["app.cpu_dispatch_ms"] == 20.0


def test_other_time_lines_are_not_dispatch_times() -> None:
    text = "Total time: 54.01541\nCPU time: 12.0 s\nGPU time: 3 ms\n"
    values = _values(parse_app_log(text))
    assert not any(name.startswith(("app.gpu_time", "app.cpu_", "app.dispatch")) for name in values)
