"""What an application log says about a model's weights, for the decode roofline: llama.cpp's
load lines and llama-bench tables (size, backend, offloaded layers, experts, devices) and which
row of a table is the one-stream rate to hold against the GPU's bandwidth. The roofline itself is
tested in ``tests/triage/test_decode_roofline.py``."""

from __future__ import annotations

import pytest
from casefile_probes.app_log import parse_app_log

BENCH = """\
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes
| model | size | params | backend | ngl | test | t/s |
| ----- | ---: | -----: | ------- | --: | ---: | --: |
| {model} | {size} | 6.74 B | {backend} | {ngl} | pp512 | 4500.18 ± 10.73 |
| {model} | {size} | 6.74 B | {backend} | {ngl} | tg128 | 140.55 ± 0.12 |
"""


def facts_of(text: str) -> dict[str, object]:
    return {f.name: f.value for f in parse_app_log(text).facts}


def bench(
    model: str = "llama 7B Q4_0", size: str = "3.56 GiB", backend: str = "CUDA", ngl: str = "99"
) -> str:
    return BENCH.format(model=model, size=size, backend=backend, ngl=ngl)


def test_a_bench_table_gives_the_size_the_gpu_and_its_count() -> None:
    facts = facts_of(bench())
    assert facts["model.weights_gb"] == pytest.approx(3.56 * 1.073741824)
    assert facts["app.gpu_name"] == "NVIDIA GeForce RTX 3090"
    assert facts["app.gpu_devices"] == 1
    assert facts["tokens_per_s"] == 140.55
    assert "model.moe" not in facts


@pytest.mark.parametrize(
    "model",
    [
        "qwen3moe 30B.A3B Q4_K - Medium",
        "llama 8x7B Q4_0",
        "gpt-oss 20B MXFP4 MoE",
        "deepseek2 16B Q4_K",
    ],
)
def test_a_mixture_of_experts_in_a_bench_table_is_said(model: str) -> None:
    assert facts_of(bench(model=model))["model.moe"] is True


@pytest.mark.parametrize(("backend", "ngl"), [("CPU", "0"), ("CUDA", "20"), ("Metal", "99")])
def test_a_row_not_wholly_on_an_nvidia_style_gpu_is_said_and_not_picked(
    backend: str, ngl: str
) -> None:
    facts = facts_of(bench(backend=backend, ngl=ngl))
    assert facts["model.weights_on_gpu"] is False
    assert "decode.tokens_per_s" not in facts
    assert facts["model.weights_gb"] == pytest.approx(3.822521)  # still the model's size


def test_the_picked_row_is_dense_on_the_gpu_and_at_no_depth() -> None:
    """The KV cache in host memory (nkvo 1) and deep rows (they also read the KV cache) are
    not one-stream weight streaming; of the rest, the row that streams the most."""
    table = (
        "| model | size | params | backend | ngl | nkvo | test | t/s |\n"
        "| --- | ---: | ---: | --- | --: | --: | ---: | ---: |\n"
        "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | 1 | tg128 | 300.00 ± 0.1 |\n"
        "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | 0 | tg128 @ d512 | 250.00 ± 0.1 |\n"
        "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | 0 | tg128 | 120.00 ± 0.1 |\n"
        "| llama 7B Q8_0 | 6.67 GiB | 6.74 B | CUDA | 99 | 0 | tg128 | 90.00 ± 0.1 |\n"
    )
    facts = facts_of(table)
    assert facts["decode.tokens_per_s"] == 90.0  # 6.67 GiB x 90 streams more than 3.56 x 120
    assert facts["model.weights_gb"] == pytest.approx(6.67 * 1.073741824, rel=1e-6)
    assert facts["model.weights_on_gpu"] is True


def test_device_lines_count_without_a_found_line_and_other_backends_count_too() -> None:
    two = (
        "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
        "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
    )
    assert facts_of(two + bench().split("\n", 2)[2])["app.gpu_devices"] == 2
    vulkan = "ggml_vulkan: Found 2 Vulkan devices:\n" + bench().split("\n", 2)[2]
    assert facts_of(vulkan)["app.gpu_devices"] == 2


def test_a_tensor_overridden_to_the_cpu_is_weights_on_the_cpu() -> None:
    log_text = (
        "llm_load_print_meta: model size       = 16.00 GiB (4.54 BPW)\n"
        "tensor blk.3.ffn_up_exps.weight (72 MiB q4_K) buffer type overriden to CPU\n"
        "llm_load_tensors: offloaded 49/49 layers to GPU\n"
    )
    facts = facts_of(log_text)
    assert facts["model.weights_on_gpu"] is False and facts["model.gpu_share"] == 100.0


def test_one_model_told_in_two_units_is_one_size() -> None:
    facts = facts_of(
        "llm_load_print_meta: model size       = 4.58 GiB (4.89 BPW)\n"
        "llama_model_loader: file size = 4690.0 MiB\n"
        "eval time =  2000.00 ms /   199 runs   "
        "(   10.05 ms per token,    99.50 tokens per second)\n"
    )
    assert facts["model.weights_gb"] == pytest.approx(4.58 * 1.073741824, rel=2e-3)


def test_a_load_log_gives_the_size_and_the_expert_count() -> None:
    log_text = (
        "llm_load_print_meta: n_expert         = 0\n"
        "llm_load_print_meta: n_expert_used    = 0\n"
        "llm_load_print_meta: model size       = 636.18 MiB (4.85 BPW)\n"
        "llama_print_timings:        eval time =  2000.00 ms /   199 runs   "
        "(   10.05 ms per token,    99.50 tokens per second)\n"
    )
    facts = facts_of(log_text)
    assert facts["model.weights_gb"] == pytest.approx(0.636180 * 1.048576, rel=1e-4)
    assert facts["model.moe"] is False
    assert facts_of(log_text.replace("= 0\n", "= 8\n", 1))["model.moe"] is True


def test_a_parameter_class_is_no_size_and_two_sizes_are_none() -> None:
    assert "model.weights_gb" not in facts_of(
        "llama_model_load_internal: model size = 7B\n"
        "llama_print_timings:        eval time =  2000.00 ms /   199 runs   "
        "(   10.05 ms per token,    99.50 tokens per second)\n"
    )
    two = parse_app_log(
        "print_info: file size   = 4.58 GiB (4.89 BPW)\n"
        "print_info: file size   = 1.10 GiB (4.89 BPW)\n"
        "eval time =  2000.00 ms /   199 runs   "
        "(   10.05 ms per token,    99.50 tokens per second)\n"
    )
    assert "model.weights_gb" not in {f.name for f in two.facts}
    assert any("2 model sizes" in problem for problem in two.problems)
