"""Hand-made cases for the app-log shapes of the second breadth round (samples 082-104: LLM
servers, benchmarks and fairseq): each the test that would have caught the miss or misreading
its sample showed (figures worked out by hand), beside the near misses each new pattern must
leave alone."""

from __future__ import annotations

import pytest
from casefile_probes.app_log import looks_like_app_log, parse_app_log

from casefile.domain.facts import FactValue, ParseResult


def _values(result: ParseResult) -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == "host"}


# ------------------------------------------------------------------------ rates per GPU


@pytest.mark.parametrize(
    "line",
    [
        "Per GPU Output Throughput (tokens/sec/gpu):     1740.25",
        "throughput: 1740.25 tokens/sec/gpu",
        "step 40 | 1740.25 tok/s/gpu | mfu 41.2%",
        "tokens/s/GPU: 1740.25",
    ],
)
def test_a_rate_per_gpu_is_never_the_jobs_rate(line: str) -> None:
    """'tokens/sec/gpu' ends in the per-GPU suffix after the time unit: read as the job's rate,
    a job on eight GPUs would read as one eighth of its speed."""
    values = _values(parse_app_log(line))
    assert values.get("tokens_per_s_per_gpu") == 1740.25
    assert "tokens_per_s" not in values and "throughput" not in values


# ------------------------------------------------------------------ llama-server print_timing


def test_llama_server_print_timing_gives_the_running_generation_rate() -> None:
    """'tg = 30.51 t/s' is the mean since the generation began; 'tg_3s' the last three
    seconds' window, left out."""
    text = (
        "12.46.239.704 I slot print_timing: id  0 | task 0 | n_decoded =  22968, tg =  30.00 t/s,"
        " tg_3s =  42.89 t/s\n"
        "12.49.259.638 I slot print_timing: id  0 | task 0 | n_decoded =  23084, tg =  31.00 t/s,"
        " tg_3s =  38.41 t/s\n"
        "12.52.293.061 I slot print_timing: id  0 | task 0 | n_decoded =  23200, tg =  32.00 t/s,"
        " tg_3s =  10.24 t/s\n"
    )
    assert looks_like_app_log(text)
    assert _values(parse_app_log(text)) == {"tokens_per_s": 31.0, "throughput": 31.0}


# ------------------------------------------------------------------ TensorRT-LLM [BENCHMARK]


def test_tensorrt_llm_benchmark_line_gives_the_rate_and_the_world_size() -> None:
    """gptSessionBenchmark's key-value pairs have no '=' or ':': tokens_per_sec is the run's
    output rate (not generation_tokens_per_second, which leaves the context phase out)."""
    line = (
        "[BENCHMARK] model_name llama_13b world_size 2 num_heads 40 batch_size 1 input_length 710 "
        "output_length 190 tokens_per_sec 43.09 latency(ms) 4409.816 generation_time(ms) "
        "3751.546 total_generated_tokens 189.0 generation_tokens_per_second 50.379"
    )
    assert looks_like_app_log(line)
    assert _values(parse_app_log(line)) == {
        "tokens_per_s": 43.09,
        "throughput": 43.09,
        "app.world_size": 2,
    }


def test_space_separated_world_size_is_read_only_on_a_benchmark_line() -> None:
    assert "app.world_size" not in _values(parse_app_log("the world_size 2 run was faster"))


# ---------------------------------------------------------------------------- fairseq wps


@pytest.mark.parametrize(
    ("text", "rate", "throughput"),
    [
        ("| epoch 010  2000 / 8223 loss=1.27 (1.50), wps=962, wpb=908, bsz=32, lr=0.001", 962.0,
         962.0),
        ("2020-07-17 07:11:02 | INFO | train_inner | epoch 001:   2800 / 160368 loss=9.255, "
         "ppl=611.12, wps=57.3, ups=0.04, wpb=1613, bsz=80, num_updates=2800", 57.3, 57.3),
        ("| epoch 008 | loss 6.326 | nll_loss 5.193 | ppl 36.58 | wps 12876 | ups 4.9 | wpb 2578",
         12876.0, 12876.0),
        ("| epoch 010 | train loss 1.44 | train ppl 2.72 | s/checkpoint    7747 | words/s    961 "
         "| words/batch    906 | bsz    32", 961.0, 961.0),
        # a bar: its it/s stays the throughput, since its wps comes and goes (0 at first, cut
        # off by a narrow terminal), and an A/B must compare one unit
        ("epoch 001:  10%|█| 100/1000 [00:50<07:30, 2.00it/s, loss=9.1, wps=1.5e+06, ups=2]",
         1500000.0, 2.0),
    ],
)  # fmt: skip
def test_fairseq_words_per_second_is_the_jobs_token_rate(
    text: str, rate: float, throughput: float
) -> None:
    assert looks_like_app_log(text)
    values = _values(parse_app_log(text))
    assert values["tokens_per_s"] == rate
    assert values["throughput"] == throughput


def test_fairseq_validation_speed_is_not_the_training_rate() -> None:
    """fairseq's validation lines time the forward pass only, several times the training rate."""
    text = (
        "2021-01-01 | INFO | train_inner | epoch 001:    100 / 1000 loss=5.1, wps=12000, "
        "ups=1.2, wpb=10000, bsz=64, num_updates=100\n"
        "2021-01-01 | INFO | train_inner | epoch 001:    200 / 1000 loss=5.0, wps=12100, "
        "ups=1.2, wpb=10000, bsz=64, num_updates=200\n"
        "2021-01-01 | INFO | valid | epoch 001 | valid on 'valid' subset | loss 4.9 | wps 46373.2 "
        "| wpb 9000 | bsz 60 | num_updates 200\n"
    )
    assert _values(parse_app_log(text))["tokens_per_s"] == 12050.0


def test_a_wps_without_fairseq_s_other_meters_is_not_read() -> None:
    assert "tokens_per_s" not in _values(parse_app_log("interface wlan0 mode=managed wps=1\n"))


@pytest.mark.parametrize(
    "text",
    [
        # the first intervals, before anything was timed
        "| epoch 001:   0%| | 50/11265 [02:25<9:05:31,  2.92s/it, loss=0.000, ppl=1.00, wps=0, "
        "ups=0.0, wpb=0, bsz=0",
        # an overflowed counter: no job moves 1e9 tokens a second
        "epoch 001:  13%|█▎  | 20/153 [00:09<01:04,  2.09it/s, loss=5.72711e-14, "
        "wps=8.90638e+19, ups=2.11, wpb=4.26e+19",
    ],
)
def test_fairseq_wps_that_is_no_rate_is_left_out(text: str) -> None:
    values = _values(parse_app_log(text))
    assert "tokens_per_s" not in values
    assert values["throughput"] == values["it_per_s"]


def test_words_per_second_in_prose_is_not_read() -> None:
    assert "tokens_per_s" not in _values(parse_app_log("typing speed: 3 words/s | tested"))


# ------------------------------------------------- text-generation-webui beside llama.cpp


def test_webui_rate_is_set_aside_beside_llama_cpps_own_eval_rate() -> None:
    """The webui's rate times the prompt's processing too: 64 tokens in 163.82 s, against
    llama.cpp's eval line for the same 64 tokens (248.38 ms each, 4.026 tokens/s)."""
    text = (
        "llama_print_timings: prompt eval time = 146712.89 ms /  1294 tokens (  113.38 ms per "
        "token)\n"
        "llama_print_timings:        eval time = 15896.38 ms /    64 runs   (  248.38 ms per "
        "token)\n"
        "Output generated in 163.82 seconds (0.39 tokens/s, 64 tokens, context 1623, seed 1)\n"
    )
    result = parse_app_log(text)
    assert _values(result)["tokens_per_s"] == round(1000 / 248.38, 6)
    assert any("Output generated in" in problem for problem in result.problems)
    assert any("only ms per token" in problem for problem in result.problems)


def test_webui_rate_alone_is_the_rate() -> None:
    line = "Output generated in 10.28 seconds (48.56 tokens/s, 499 tokens, context 3550, seed 1)"
    result = parse_app_log(line)
    assert _values(result)["tokens_per_s"] == 48.56
    assert result.problems == []


# ----------------------------------------------------------- a flag on a command's last line


def test_enforce_eager_on_the_last_line_of_a_continued_command_is_a_setting() -> None:
    """A multi-line 'vllm serve … \\' puts each flag on an indented line of its own; the last one
    has no backslash after it and looks like a --help entry, which is not a setting."""
    text = "vllm serve /models/qwen \\\n    --tensor-parallel-size 2 \\\n    --enforce-eager\n"
    values = _values(parse_app_log(text))
    assert values["app.cuda_graphs_off"] is True
    assert values["app.tensor_parallel"] == 2


def test_a_help_listing_is_still_not_a_setting() -> None:
    text = (
        "options:\n"
        "  --enforce-eager       Always use eager-mode PyTorch.\n"
        "  --disable-cuda-graph\n"
        "Capturing cudagraphs for decoding.\n"
    )
    assert _values(parse_app_log(text))["app.cuda_graphs_off"] is False


# ------------------------------------------------------------- llama.cpp device lines alone


@pytest.mark.parametrize(
    "text",
    [
        "ggml_cuda_init: found 4 CUDA devices:\n  Device 0: Tesla K80, compute capability 3.7\n",
        "llama_cpp_server-1  | ggml_cuda_init: found 3 CUDA devices:\n",
        "ggml_init_cublas: found 1 CUDA devices:\n",
    ],
)
def test_a_llama_cpp_device_listing_is_recognised(text: str) -> None:
    assert looks_like_app_log(text)
    assert "app.gpu_devices" in _values(parse_app_log(text))
