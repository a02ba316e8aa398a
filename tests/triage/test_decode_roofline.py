"""The decode roofline: one-stream generation's weight streaming (tokens/s × the model's size)
against the GPU's peak memory bandwidth, read by gpu-throughput@3's ``decode-roofline``.

The sum an engineer does first on a slow local model, and the one the public threads whose
decode was memory-bound settled on by hand (ds4#773, mlxcel#680, TensorRT-Edge-LLM#60): each
computed it in prose, which casefile could not read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.app_log import PROBE as APP_LOG
from casefile_probes.app_log import parse_app_log

from casefile.domain.beliefs.ranking import feeds
from casefile.domain.expected import CaseContext
from casefile.domain.facts import Fact
from casefile.domain.playbook import load_playbook
from casefile.domain.roofline import (
    DECODE_BANDWIDTH,
    MEMORY_EXPECTED,
    device_bandwidth,
    roofline_facts,
)
from casefile.domain.rules import Applied, evaluate
from casefile.errors import RuleError
from tests.cli.conftest import CLI
from tests.parsers.test_app_log_weights import bench, facts_of
from tests.triage.test_experiments import log

TABLE = PLAYBOOK_V3.device_memory


@pytest.mark.parametrize(
    ("name", "bandwidth"),
    [
        ("NVIDIA GeForce RTX 3090", 936.0),
        ("NVIDIA GeForce RTX 3090 Ti", 1008.0),
        ("NVIDIA GeForce RTX 4090", 1008.0),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", 672.0),
        ("NVIDIA GeForce RTX 4070", 504.0),
        ("NVIDIA GeForce RTX 3060", 360.0),
        ("NVIDIA GeForce RTX 2080 Ti", 616.0),
        ("NVIDIA A100-SXM4-80GB", 2039.0),
        ("NVIDIA A100 80GB PCIe", 1935.0),
        ("NVIDIA A100-PCIE-40GB", 1555.0),
        ("NVIDIA H100 80GB HBM3", 3350.0),
        ("NVIDIA H100 PCIe", 2000.0),
        ("NVIDIA H100 NVL", 3900.0),
        ("NVIDIA H200", 4800.0),
        ("NVIDIA L4", 300.0),
        ("NVIDIA L40S", 864.0),
        ("NVIDIA A10", 600.0),
        ("NVIDIA RTX A6000", 768.0),
        ("NVIDIA RTX 6000 Ada Generation", 960.0),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 1792.0),
        ("Tesla T4", 320.0),
        ("Tesla V100-SXM2-16GB", 900.0),
        ("1x NVIDIA GB10 (DGX Spark, unified LPDDR5x)", 273.0),
        ("1x NVIDIA Jetson AGX Orin 64GB integrated GPU", 204.8),
        ("NVIDIA Jetson Orin Nano Super Developer Kit", 102.0),
        ("NVIDIA Jetson Nano 4GB", 25.6),  # not an Orin Nano
        ("NVIDIA Tegra X1", 25.6),  # the Nano's GPU, by its own name
        ("Jetson TX2", 59.7),
        ("Jetson TX2 NX", 51.2),
        ("NVIDIA GH200 480GB", 4000.0),  # not the H200's row
        ("NVIDIA GH200 144G HBM3e", 4900.0),
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 1792.0),  # a desktop card
        ("NVIDIA GeForce RTX3090", 936.0),  # written without its space
        ("NVIDIA GeForce RTX 5070", 672.0),
        ("NVIDIA GeForce GTX 1080", 320.0),
    ],
)
def test_each_gpu_name_finds_its_own_row_not_a_kins(name: str, bandwidth: float) -> None:
    assert device_bandwidth(TABLE, [name]) == bandwidth


@pytest.mark.parametrize(
    "names",
    [
        ["NVIDIA GeForce RTX 3060 Laptop GPU"],  # a laptop part: other memory, no figure
        ["NVIDIA GeForce RTX 2080 with Max-Q Design"],
        ["NVIDIA RTX A1000"],  # not an A100
        ["Quadro P1000"],  # not a P100
        ["Orin"],  # llama.cpp's name on a Jetson: AGX, NX or Nano?
        ["Jetson Orin Nano 8GB"],  # 68 GB/s, or 102 in the Super mode: the mode decides
        ["jetson-orin-nano"],  # an Orin Nano, not a Jetson Nano
        ["Jetson Orin Nano 4GB Super"],  # not the 8 GB module's figure
        ["R9 Nano"],  # not a Jetson
        ["NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4090"],  # which one streamed?
        ["Some Future GPU"],
    ],
)
def test_no_figure_beats_a_wrong_one(names: list[str]) -> None:
    assert device_bandwidth(TABLE, names) is None


def host(**values: object) -> list[Fact]:
    return [Fact(name.replace("__", "."), value, "host") for name, value in values.items()]  # type: ignore[arg-type]


def on_gpu(**values: object) -> list[Fact]:
    """A reading that shows every layer on the GPU (llama.cpp's "offloaded 33/33 layers")."""
    return [*host(**values), Fact("model.gpu_share", 100.0, "model", "%")]


def derived(facts: list[Fact], context: CaseContext | None = None) -> dict[str, object]:
    given = context or CaseContext()
    return {f.name: f.value for f in roofline_facts(TABLE, facts, lambda: given)}


def test_the_streamed_rate_is_the_rate_times_the_weights_against_the_gpus_peak() -> None:
    facts = on_gpu(
        tokens_per_s=140.0, model__weights_gb=3.8, app__gpu_name="NVIDIA GeForce RTX 3090"
    )
    assert derived(facts) == {DECODE_BANDWIDTH: pytest.approx(532.0), MEMORY_EXPECTED: 936.0}
    # a table's picked row is the one-stream rate, not the median of every row
    picked = [*facts, *host(decode__tokens_per_s=70.0)]
    assert derived(picked)[DECODE_BANDWIDTH] == pytest.approx(266.0)


@pytest.mark.parametrize(
    "extra",
    [
        {"model__moe": True},  # reads only its active experts per token
        {"app__device_cpu": True},
        {"app__gpu_devices": 2},  # the weights split between two memories
        {"model__weights_on_gpu": False},  # a tensor overridden to the CPU
    ],
)
def test_no_roofline_where_the_product_would_not_mean_a_bandwidth(extra: dict[str, object]) -> None:
    facts = on_gpu(tokens_per_s=40.0, model__weights_gb=17.0, **extra)
    assert derived(facts, CaseContext(gpus=("1x RTX 3090",))) == {}


def test_no_roofline_without_the_placement_on_the_gpu() -> None:
    """A slow reading whose placement is not shown would count for the GPU left unused by its
    slowness alone, beside the rules that read the placement itself."""
    context = CaseContext(gpus=("1x RTX 3090",))
    assert derived(host(tokens_per_s=9.0, model__weights_gb=17.0), context) == {}
    partial = [
        *host(tokens_per_s=9.0, model__weights_gb=17.0),
        Fact("model.gpu_share", 60.0, "model"),
    ]
    assert derived(partial, context) == {}
    placed = host(tokens_per_s=9.0, model__weights_gb=17.0, model__weights_on_gpu=True)
    assert MEMORY_EXPECTED in derived(placed, context)


def test_a_product_past_the_peak_is_no_roofline() -> None:
    """1.66 times an RTX 3090's peak: an assumption failed (experts not named, speculative
    decoding, a rate over concurrent requests), so no rule reads it."""
    facts = on_gpu(
        tokens_per_s=99.5, model__weights_gb=15.65, app__gpu_name="NVIDIA GeForce RTX 3090"
    )
    assert derived(facts) == {DECODE_BANDWIDTH: pytest.approx(1557.2, rel=1e-3)}
    near = on_gpu(tokens_per_s=99.5, model__weights_gb=9.8, app__gpu_name="NVIDIA GeForce RTX 3090")
    assert derived(near)[MEMORY_EXPECTED] == 936.0  # 1.04: rounding and the table's figure


def test_the_runs_own_device_count_wins_over_the_case() -> None:
    one = on_gpu(tokens_per_s=100.0, model__weights_gb=4.0, app__gpu_devices=1)
    assert MEMORY_EXPECTED in derived(one, CaseContext(gpus=("2x RTX 3090",), several_gpus=True))
    unsaid = on_gpu(tokens_per_s=100.0, model__weights_gb=4.0)
    assert derived(unsaid, CaseContext(gpus=("2x RTX 3090",), several_gpus=True)) == {}


def test_stated_facts_are_kept_and_the_rest_derived() -> None:
    stated = host(decode__weight_gbps=500.0)
    assert derived(stated, CaseContext(gpus=("1x RTX 3090",))) == {MEMORY_EXPECTED: 936.0}
    both = host(decode__weight_gbps=500.0, memory__bw__expected=900.0)
    assert derived(both) == {}


def test_the_case_names_the_gpu_only_where_the_reading_does_not() -> None:
    asked: list[int] = []

    def context() -> CaseContext:
        asked.append(1)
        return CaseContext(gpus=("1x RTX 4090",))

    named = on_gpu(
        tokens_per_s=100.0, model__weights_gb=4.0, app__gpu_name="NVIDIA GeForce RTX 3090"
    )
    assert {f.name: f.value for f in roofline_facts(TABLE, named, context)}[
        MEMORY_EXPECTED
    ] == 936.0
    unnamed = on_gpu(tokens_per_s=100.0, model__weights_gb=4.0)
    assert {f.name: f.value for f in roofline_facts(TABLE, unnamed, context)}[
        MEMORY_EXPECTED
    ] == 1008.0
    assert roofline_facts(TABLE, on_gpu(tokens_per_s=100.0), context) == []
    assert asked == [1, 1]  # once a reading, and only where it gave a rate and weights


def rule_outcome(facts: list[Fact]) -> str:
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == "decode-roofline")
    verdict = evaluate(rule, [*facts, *PLAYBOOK_V3.context_facts(facts)], "under-load")
    assert isinstance(verdict, Applied), verdict
    return verdict.outcome


@pytest.mark.parametrize(
    ("rate", "outcome"),
    [(230.0, "at-peak"), (140.0, "at-floor"), (60.0, "partway"), (12.0, "far-below")],
)
def test_the_rule_reads_the_share_of_the_peak(rate: float, outcome: str) -> None:
    facts = on_gpu(
        tokens_per_s=rate, model__weights_gb=3.82, app__gpu_name="NVIDIA GeForce RTX 3090"
    )
    assert rule_outcome(facts) == outcome


def test_the_application_log_is_known_to_feed_the_roofline() -> None:
    """The ranking offers a probe for the rules its facts can feed: the roofline's two facts
    are derived, from the log's rate and the model's size."""
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == "decode-roofline")
    assert feeds(rule, APP_LOG.facts)
    assert not feeds(rule, ("tokens_per_s",))  # a rate without the model's size is no roofline


def test_the_rule_weighs_the_floor_for_memory_bandwidth_and_far_below_against_it() -> None:
    row = next(r for r in PLAYBOOK_V3.rules if r.id == "decode-roofline").row
    assert row("memory-bandwidth")["at-floor"] >= 3 * row("compute-launch")["at-floor"]
    assert row("host-side")["far-below"] >= 5 * row("memory-bandwidth")["far-below"]
    # below the peak, milder than the GPU's own memory counter, which reads the same state …
    share = next(r for r in PLAYBOOK_V3.rules if r.id == "memory-bandwidth-share").row
    at_floor = row("memory-bandwidth")["at-floor"] / row("otherwise")["at-floor"]
    assert at_floor < share("memory-bandwidth")["high"] / share("otherwise")["high"]
    # … at it, the sharper: three quarters of the peak leaves no room for another limit
    at_peak = row("memory-bandwidth")["at-peak"] / row("otherwise")["at-peak"]
    assert at_peak > share("memory-bandwidth")["high"] / share("otherwise")["high"]
    for other in ("compute-launch", "host-side", "host-transfer", "power-thermal", "otherwise"):
        assert row("memory-bandwidth")["at-peak"] >= 8 * row(other)["at-peak"]
    # at-floor keeps about version 1's weight for half the peak and more (3x otherwise)
    assert 2.5 <= at_floor <= 3.0
    # between the two, a small model on a fast GPU: launch gaps are the common reason
    assert row("compute-launch")["partway"] > row("memory-bandwidth")["partway"]


def test_device_memory_rows_are_checked_when_the_playbook_loads() -> None:
    head = '[playbook]\nid = "p"\n[question]\nid = "q"\ntext = "?"\ncatch_all = 0.1\n'
    hypothesis = '[[hypothesis]]\nid = "h"\ntext = "h"\nprior = 0.9\n'
    for row, message in (
        ('gpu = "X"\nbandwidth = -1\nsource = "s"', "bandwidth"),
        ('gpu = "("\nbandwidth = 1\nsource = "s"', "not a pattern"),
        ('gpu = "X"\nbandwidth = 1', "source"),
    ):
        with pytest.raises(RuleError, match=message):
            load_playbook(f"{head}{hypothesis}[[device_memory]]\n{row}\n", "t.toml")


GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "app-log"


@pytest.mark.parametrize(
    ("sample", "outcome"),
    [
        ("053.txt", "partway"),  # 3090 Ti, 7B Q4_0, nkvo 0: 3.82 GB x 127.4 tok/s of 1008 GB/s
        ("054.txt", "at-peak"),  # 4090, the F16 row streams most: 13.5 GB x 61.0 tok/s
        ("055.txt", None),  # gpt-oss 20B: a mixture of experts
        ("056.txt", None),  # qwen3moe 30B.A3B
        ("057.txt", None),  # four 3090s, ngl 7: split, partly on the CPU, and MoE
        ("058.txt", "partway"),  # V100, pythia 2.8B Q4_0: 1.6 GB x 165 tok/s of 900 GB/s
        ("059.txt", None),  # llama-perplexity's "inf tokens per second": no rate
    ],
)
def test_real_llama_cpp_outputs_give_a_roofline_only_where_it_holds(
    sample: str, outcome: str | None
) -> None:
    facts = parse_app_log((GOLDEN / sample).read_text(encoding="utf-8")).facts
    derived = PLAYBOOK_V3.context_facts(facts)
    if outcome is None:
        assert MEMORY_EXPECTED not in {f.name for f in derived}
    else:
        assert rule_outcome(facts) == outcome


def test_the_4090s_f16_row_alone_streams_at_its_peak() -> None:
    """llama.cpp's own benchmark on an RTX 4090 (PR #4766): 7B F16, 12.55 GiB at 61.03 tok/s,
    is 82 % of the card's 1,008 GB/s, as fast as device memory is read in practice; the
    table's three models are cut to that one row."""
    lines = (GOLDEN / "054.txt").read_text(encoding="utf-8").splitlines()
    f16 = "\n".join(line for line in lines if "Q8_0" not in line and "Q4_0" not in line)
    assert rule_outcome(parse_app_log(f16).facts) == "at-peak"


# --- through the CLI -------------------------------------------------------------------------


def open_case(cli: CLI, case: str, gpus: str) -> None:
    opened = cli(
        "new", "slow decode", "--id", case, "--playbook", "gpu-throughput",
        "--env", f"gpus={gpus}", "--env", "workload=inference-small-batch",
    )  # fmt: skip
    assert opened.code == 0, opened.err


def roofline_evidence(cli: CLI, case: str) -> list[dict[str, Any]]:
    payloads: list[dict[str, Any]] = [
        cast("dict[str, Any]", e["payload"])
        for e in log(cli, case)
        if e["type"] == "evidence.assessed"
    ]
    return [p for p in payloads if (p.get("rule") or {}).get("id") == "decode-roofline"]


def test_a_pasted_bench_table_on_one_gpu_is_read_at_its_floor(cli: CLI, tmp_path: Path) -> None:
    open_case(cli, "one", "1x RTX 3090")
    paste = tmp_path / "bench.txt"
    paste.write_text(bench())
    ran = cli("probe", "one", "app-log", "--paste", str(paste), "--", "llama-bench", "-m", "m.gguf")
    assert ran.code == 0, ran.err
    (evidence,) = roofline_evidence(cli, "one")
    assert evidence["outcome"] == "at-floor"
    assert evidence["statistic"] == pytest.approx(140.55 * 3.56 * 1.073741824 / 936.0, rel=1e-3)


def test_a_job_on_several_gpus_is_not_held_to_one_gpus_floor(cli: CLI, tmp_path: Path) -> None:
    """A table that names no device is judged on the case: two GPUs, no one GPU's floor."""
    open_case(cli, "two", "2x RTX 3090")
    paste = tmp_path / "bench.txt"
    paste.write_text(bench().split("\n", 2)[2])
    ran = cli("probe", "two", "app-log", "--paste", str(paste), "--", "llama-bench", "-m", "m.gguf")
    assert ran.code == 0, ran.err
    assert roofline_evidence(cli, "two") == []


def test_a_stated_sum_of_what_each_token_streams_is_read_against_the_peak(cli: CLI) -> None:
    """A mixture of experts reads its active experts, not its file: the person's own sum of
    the bytes a token reads times the rate (ds4#773: 10-13 GB a token at 55 ms) is stated as
    the streamed rate. The app-log probe refused it as a fact it does not give, though the
    roofline was written to take it as stated; no run of app-log is offered for it."""
    open_case(cli, "moe", "1x NVIDIA GB10")
    ran = cli("probe", "moe", "app-log", "--stated", "decode.weight_gbps=200 GB/s",
              "--load", "under-load")  # fmt: skip
    assert ran.code == 0, ran.err
    (evidence,) = roofline_evidence(cli, "moe")
    assert evidence["outcome"] == "at-floor" and evidence["kind"] == "reported"
    assert evidence["statistic"] == pytest.approx(200 / 273)
    assert DECODE_BANDWIDTH in APP_LOG.stated_facts and DECODE_BANDWIDTH not in APP_LOG.facts
    # past the peak, an assumption failed (a rate summed over requests): no roofline
    past = cli("probe", "moe", "app-log", "--stated", "decode.weight_gbps=400",
               "--load", "under-load")  # fmt: skip
    assert past.code == 0 and len(roofline_evidence(cli, "moe")) == 1


def known_answers(cli: CLI, case: str) -> dict[str, str]:
    listed = cli("intake", case, "--list", "--json")
    assert listed.code == 0, listed.err
    rows: list[dict[str, Any]] = json.loads(listed.out)
    return {row["id"]: row["known"]["answer"] for row in rows if row["known"]}


def test_a_llama_cpp_log_answers_how_many_gpus_and_which_class(cli: CLI, tmp_path: Path) -> None:
    """A llama.cpp log that lists one device says the job has one GPU, and its device line
    names the GPU's class: both are offered as known answers."""
    opened = cli(
        "new", "slow decode", "--id", "l", "--playbook", "gpu-throughput",
        "--env", "workload=inference-small-batch",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    paste = tmp_path / "bench.txt"
    paste.write_text(bench())
    ran = cli("probe", "l", "app-log", "--paste", str(paste), "--", "llama-bench", "-m", "m.gguf")
    assert ran.code == 0, ran.err
    assert known_answers(cli, "l") == {"gpu-count": "one", "gpu-class": "consumer"}
    (evidence,) = roofline_evidence(cli, "l")  # the GPU named by the log, not by the case
    assert evidence["outcome"] == "at-floor"
    four = tmp_path / "four.txt"
    four.write_text((GOLDEN / "057.txt").read_text(encoding="utf-8"))
    opened = cli("new", "slow", "--id", "f", "--playbook", "gpu-throughput")
    assert opened.code == 0, opened.err
    ran = cli("probe", "f", "app-log", "--paste", str(four), "--", "llama-bench")
    assert ran.code == 0, ran.err
    # four devices listed need not be four used (-sm none, --device): the count answers nothing
    assert known_answers(cli, "f") == {"gpu-class": "consumer"}


# --- vLLM: its weights line and its one-request intervals -----------------------------------

#: vLLM V0's own line (as printed in a public notebook's log): the figure is GiB
VLLM_WEIGHTS = "INFO 08-06 01:39:21 model_runner.py:1115] Loading model weights took 7.1694 GB\n"


def vllm_log(*extra: str) -> str:
    """vLLM's weights line, then golden 007's throughput lines (vllm#12314: one request)."""
    return VLLM_WEIGHTS + "".join(extra) + (GOLDEN / "007.txt").read_text(encoding="utf-8")


def test_a_vllm_log_gives_its_weights_and_its_one_request_rate() -> None:
    facts = facts_of(vllm_log())
    assert facts["model.weights_gb"] == pytest.approx(7.1694 * 1.073741824, rel=1e-6)
    assert facts["decode.tokens_per_s"] == 41.7
    assert facts["model.weights_on_gpu"] is True
    context = CaseContext(gpus=("1x NVIDIA GeForce RTX 3090",))
    found = derived(parse_app_log(vllm_log()).facts, context)
    assert found[DECODE_BANDWIDTH] == pytest.approx(7.698 * 41.7, rel=1e-3)  # 321 of 936 GB/s


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ("INFO x worker.py:1] args: cpu_offload_gb=4, tensor_parallel_size=1\n", "offload"),
        ("INFO x engine.py:1] Initializing an LLM engine with config: model='Qwen/Qwen3-30B-A3B', "
         "tensor_parallel_size=1\n", "experts"),
        ("INFO x engine.py:1] Initializing an LLM engine with config: model='m', "
         "tensor_parallel_size=4\n", "four ranks"),
        ("INFO 03-17 16:21:39 model_runner.py:1115] Loading model weights took 3.3143 GB\n",
         "a draft model beside the target"),
    ],
)  # fmt: skip
def test_a_vllm_log_gives_no_roofline_where_it_would_not_hold(extra: str, why: str) -> None:
    context = CaseContext(gpus=("1x NVIDIA GeForce RTX 3090",))
    assert derived(parse_app_log(vllm_log(extra)).facts, context) == {}, why


def test_a_distilled_model_is_not_read_as_its_teachers_experts() -> None:
    line = "INFO x engine.py:1] config: model='deepseek-ai/DeepSeek-R1-Distill-Qwen-7B'\n"
    assert "model.moe" not in facts_of(vllm_log(line))


def test_decode_at_its_memory_peak_leads_with_memory_bandwidth(cli: CLI, tmp_path: Path) -> None:
    """llama.cpp's own table on an RTX 4090 (054.txt): the F16 row streams 82 % of the card's
    memory bandwidth. Read as "near the floor" alone (version 1 of the rule), three times
    likelier under memory bandwidth than otherwise, it left memory bandwidth at 10 % and a
    misconfiguration leading; at the peak nothing else can hold the tokens back, and memory
    bandwidth leads."""
    open_case(cli, "peak", "1x RTX 4090")
    paste = tmp_path / "054.txt"
    paste.write_text((GOLDEN / "054.txt").read_text(encoding="utf-8"))
    ran = cli("probe", "peak", "app-log", "--paste", str(paste), "--", "llama-bench")
    assert ran.code == 0, ran.err
    (evidence,) = roofline_evidence(cli, "peak")
    assert evidence["outcome"] == "at-peak"
    status = cli("status", "peak", "--json")
    assert status.code == 0, status.err
    (question,) = json.loads(status.out)["questions"]
    assert question["leader"] == "memory-bandwidth"
