"""Shapes of real pastes that a survey of public threads found read wrongly or not at all
(samples in ``tests/golden``: app-log 105-115, nsys-stats 011, torch-profiler 020, py-spy 012,
query-csv/issues 006). Each test names the shape; the lines are written after those samples,
so that each behaviour is pinned apart from its golden file."""

from __future__ import annotations

from casefile_probes.app_log import parse_app_log
from casefile_probes.dmon import parse_dmon
from casefile_probes.nccl import parse_nccl
from casefile_probes.nccl_debug import parse_nccl_debug
from casefile_probes.nsys_stats import parse_nsys_stats
from casefile_probes.py_spy import looks_like_py_spy, parse_py_spy
from casefile_probes.query_gpu import PROBE as QUERY_GPU
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table
from casefile_probes.torch_profiler import parse_torch_profiler

from .corpus import check_result


def _facts(text: str) -> tuple[dict[str, object], list[str]]:
    result = parse_app_log(text)
    check_result(result)
    return {fact.name: fact.value for fact in result.facts}, result.problems


def test_a_rate_after_its_label_keeps_its_thousands() -> None:
    """nanochat: "tok/sec: 529,882" was read as 529 (the comma ended the number)."""
    facts, _ = _facts(
        "step 00004/21400 (0.02%) | loss: 8.89 | dt: 989.44ms | tok/sec: 529,882 | mfu: 74.13\n"
        "step 00005/21400 (0.02%) | loss: 8.53 | dt: 991.09ms | tok/sec: 529,000 | mfu: 74.00\n"
    )
    assert facts["tokens_per_s"] == 529441.0
    assert facts["step_time_s"] == 0.990265


def test_a_list_of_rates_is_not_one_grouped_number() -> None:
    facts, _ = _facts("gen tok/s: 12,5 tokens\n")
    assert facts["tokens_per_s"] == 12.0


def test_grouped_thousands_before_a_separator() -> None:
    """A review: "tok/s: 529,882, mfu 40.1" still gave 529 (the comma after the group)."""
    facts, _ = _facts("step 10, tok/s: 529,882, mfu 40.1\n")
    assert facts["tokens_per_s"] == 529882.0
    facts, _ = _facts("tokens/s: 1,234.5, loss 2.0\n")
    assert facts["tokens_per_s"] == 1234.5


def test_a_time_step_or_an_environment_rate_is_no_training_step() -> None:
    """ "dt:" needs a loss before it; an RL loop's "env steps/sec" is its simulator's rate."""
    facts, _ = _facts("step 100 | dt: 0.01s\n")
    assert "step_time_s" not in facts
    facts, _ = _facts("env steps/sec: 12000 | step 5\n")
    assert "it_per_s" not in facts


def test_a_step_time_in_hours_minutes_and_seconds() -> None:
    """OpenSeq2Seq: "time per step = 0:00:1.390" read as 0 s."""
    facts, _ = _facts("Global step 73968: loss = 1.0840, time per step = 0:00:1.390\n")
    assert facts["step_time_s"] == 1.39
    facts, _ = _facts("Global step 3: loss = 1.0, time per step = 1:02:03.5\n")
    assert facts["step_time_s"] == 3723.5


def test_tensorflow_steps_per_second_and_seconds_per_batch() -> None:
    facts, _ = _facts("INFO:tensorflow:global_step/sec: 1.25\n" * 2)
    assert facts["it_per_s"] == 1.25 and facts["step_time_s"] == 0.8
    facts, _ = _facts("train | step:    160 | steps/sec:    0.5 | output:\n")
    assert facts["step_time_s"] == 2.0
    facts, _ = _facts(
        "2017-03-28 14:49:10.061204: step 10, loss = 4.59 (821.9 examples/sec; 0.156 sec/batch)\n"
    )
    assert facts["step_time_s"] == 0.156 and facts["samples_per_s"] == 821.9


def test_megatron_deepspeed_iteration_time() -> None:
    facts, _ = _facts("steps: 2 loss: 12.6157 iter time (s): 2.673 samples/sec: 95.775\n")
    assert facts["step_time_s"] == 2.673


def test_a_timestamp_or_quote_before_an_anchored_line() -> None:
    """nanoGPT's line read only where it opened the line."""
    for prefix in ("2023-03-22 09:30:39 ", "> 2023-03-22 09:30:39 ", "[2023-03-22 09:30:39,841] "):
        facts, _ = _facts(f"{prefix}iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%\n")
        assert facts["step_time_s"] == 1.09934, prefix


def test_ollama_server_log_gives_the_share_of_layers_on_the_gpu() -> None:
    facts, _ = _facts(
        "time=2025-02-18T02:21:25.646Z level=INFO source=server.go:130 msg=offload "
        "library=cuda layers.requested=-1 layers.model=81 layers.offload=44 "
        "layers.split=11,11,11,11\n"
    )
    assert facts["model.gpu_share"] == round(100 * 44 / 81, 6)
    facts, _ = _facts('level=INFO msg="offload to cuda" layers.model=49 layers.offload=49\n')
    assert facts["model.gpu_share"] == 100.0


def test_vllm_progress_bar_rate_is_its_last_reading() -> None:
    """Its "output: … toks/s" is the mean since the bar began: a median of it was no rate."""
    bar = (
        "Processed prompts: {p}%| | {n}/3273 [{t}<00:47, 47.53it/s, est. speed input: 1 toks/s, "
        "output: {r} toks/s]\n"
    )
    text = "".join(
        bar.format(p=p, n=n, t=t, r=r)
        for p, n, t, r in ((0, 0, "00:00", "0.00"), (30, 980, "00:00", "15042.04"),
                           (31, 1000, "00:14", "174.56"), (32, 1055, "00:53", "55.51"))
    )  # fmt: skip
    facts, problems = _facts(text)
    assert facts["tokens_per_s"] == 55.51
    assert any("last output rate kept" in p for p in problems)


def test_runs_far_apart_are_not_pooled_into_one_rate() -> None:
    """Two machines' llama.cpp summaries (1.02 and 57.04 tokens/s) gave 29.03."""
    eval_line = (
        "llama_perf_context_print:        eval time = {ms} ms /   127 runs   ( {per} ms per "
        "token, {r} tokens per second)\n"
    )
    text = eval_line.format(ms="124973.60", per="984.04", r="1.02") + eval_line.format(
        ms="2226.40", per="17.53", r="57.04"
    )
    result = parse_app_log(text)
    assert not result.parsed and "differ 55.9-fold" in result.problems[0]
    # near each other they are one job's runs, and their median is its rate
    facts, problems = _facts(eval_line.format(ms="1", per="1", r="50.0") * 2)
    assert facts["tokens_per_s"] == 50.0 and not problems


def test_one_jobs_requests_are_one_setup() -> None:
    """A review: a request cut after one token (41,666 tokens/s) made a llama-server's log
    "several setups"; a long prompt's slower decode (21 beside 46) did too."""
    eval_line = "eval time = {ms} ms / {n} tokens ( {per} ms per token, {r} tokens per second)\n"
    text = "".join(eval_line.format(ms=1, n=100, per=1, r=r) for r in (45.64, 45.9, 45.9))
    facts, problems = _facts(text + eval_line.format(ms=0.02, n=1, per=0.02, r=41666.67))
    assert facts["tokens_per_s"] == 45.9 and not problems
    text = "".join(eval_line.format(ms=1, n=100, per=1, r=r) for r in (45.64, 21.09, 45.9))
    facts, problems = _facts(text)
    assert facts["tokens_per_s"] == 45.64
    assert any("differ 1.4-fold: their median is given" in p for p in problems)
    # Ollama's short reply: its count, on the line above, leaves it out of the runs
    facts, problems = _facts(
        "eval count:           10 token(s)\neval rate:  104 tokens/s\n"
        "eval count:    1024 token(s)\neval rate:   48.8 tokens/s\n"
    )
    assert facts["tokens_per_s"] == 76.4 and not problems


def test_each_vllm_bar_is_a_run_of_its_own() -> None:
    """A review: four generate() calls' bars gave the last one's rate, and a bar done within
    its first second gave nothing."""
    bar = (
        "Processed prompts: 100%|##| {n}/{t} [00:0{s}<00:00, 1.0it/s, est. speed input: 1 "
        "toks/s, output: {r} toks/s]\n"
    )
    facts, _ = _facts("".join(bar.format(n=10, t=10, s=5, r=r) for r in (48.1, 47.9, 46.5, 12)))
    assert facts["tokens_per_s"] == 47.2
    facts, _ = _facts(bar.format(n=4, t=4, s=0, r=152.03))
    assert facts["tokens_per_s"] == 152.03


def test_runs_somewhat_apart_keep_their_median_with_a_word() -> None:
    facts, problems = _facts("eval rate:            10.63 tokens/s\neval rate:   17.66 tokens/s\n")
    assert facts["tokens_per_s"] == 14.145
    assert any("differ 1.7-fold" in p for p in problems)


def test_nsys_in_a_localised_number_format_is_refused_not_misread() -> None:
    """ "19,0  285 118 634  355  803 151,0 …" read as 2609 kernels of 0 µs, all short."""
    text = (
        "CUDA Kernel Statistics:\n\n"
        " Time(%)  Total Time (ns)  Instances      Average         Minimum        Maximum  Name\n"
        " -------  ---------------  ---------  ---------------  -------------  -------------  -\n"
        "    19,0  285 118 634        355      803 151,0      171 872  2 669 212  void kernel_a\n"
        "    11,0  170 736 919         80  2 134 211,0      365 760  5 615 639  kernel_b\n"
    )
    result = parse_nsys_stats(text)
    assert not result.facts
    assert "not in the format nsys prints in English" in result.problems[0]
    # a review: rows under 10 % read as numbers below 100, and the table was misread again
    result = parse_nsys_stats(text.replace("19,0", " 9,0").replace("11,0", " 8,0"))
    assert not result.facts and "'9,0'" in result.problems[0]


_PROFILE_HEADER = (
    "-------------  ------------  ------------  ------------  ------------\n"
    "         Name    Self CPU %      Self CPU     Self CUDA   Self CUDA %\n"
    "-------------  ------------  ------------  ------------  ------------\n"
)


def test_a_cut_table_sorted_by_host_time_gives_no_top_op() -> None:
    """exllama: four operators sorted by CPU time, 31.5 % of the device time shown, no
    footer: the top op was "aten::matmul" at 9.65 %."""
    rows = (
        "aten::matmul        19.15%        1.393s     747.086ms         9.65%\n"
        "cudaLaunchKernel    10.55%     767.541ms       0.000us         0.00%\n"
        "aten::transpose      8.61%     625.975ms     562.149ms         7.26%\n"
        "aten::reshape        8.57%     622.928ms     598.814ms         7.73%\n"
    )
    result = parse_torch_profiler(_PROFILE_HEADER + rows)
    assert "profiler.top_op" not in {fact.name for fact in result.facts}
    assert any(p.startswith("no top op") for p in result.problems)


#: two operators of exllama's table, sorted by host time, 17 % of the device time between them
_TWO_HOST_SORTED_ROWS = (
    "aten::matmul        19.15%        1.393s     747.086ms         9.65%\n"
    "aten::transpose      8.61%     625.975ms     562.149ms         7.26%\n"
)


def test_a_row_limited_table_with_its_footer_is_weighed_the_same() -> None:
    """A review: ``table(sort_by="cpu_time_total", row_limit=4)`` prints its footer, and the
    footer let the first operator through as the top op."""
    footer = "Self CPU time total: 7.274s\nSelf CUDA time total: 7.742s\n"
    result = parse_torch_profiler(_PROFILE_HEADER + _TWO_HOST_SORTED_ROWS + footer)
    assert "profiler.top_op" not in {fact.name for fact in result.facts}


def test_two_rows_in_order_are_no_sort() -> None:
    result = parse_torch_profiler(_PROFILE_HEADER + _TWO_HOST_SORTED_ROWS)
    assert "profiler.top_op" not in {fact.name for fact in result.facts}


def test_a_cut_table_sorted_by_device_time_keeps_its_top_op() -> None:
    rows = (
        "aten::mm            1.00%        1.000ms     900.000ms        60.00%\n"
        "aten::empty        40.00%       40.000ms       0.000us         0.00%\n"
        "aten::add           2.00%        2.000ms     100.000ms         6.67%\n"
        "aten::copy_         2.00%        2.000ms      50.000ms         3.33%\n"
    )
    result = parse_torch_profiler(_PROFILE_HEADER + rows)
    assert {f.name: f.value for f in result.facts}["profiler.top_op"] == "aten::mm"


_NATIVE_DUMP = """Process 88693: sglang::scheduler
Python v3.12.3 (/usr/bin/python3.12)

Thread 88693 (idle): "MainThread"
    0x7fa2d1487d71 (libc.so.6)
    pthread_cond_timedwait (libc.so.6)
    PyThread_acquire_lock_timed (python3.12)
    wait (threading.py:359)
    event_loop (scheduler.py:900)
"""


def test_a_native_py_spy_dump_is_recognised_and_named_by_a_frame_with_a_name() -> None:
    """SGLang's watchdog dumps (--native): libc's bare address came out as the top function,
    and the thread's Python frames, under native ones, were not looked for."""
    assert looks_like_py_spy(_NATIVE_DUMP)
    facts = {f.name: f.value for f in parse_py_spy(_NATIVE_DUMP).facts}
    assert facts["pyspy.top_function"] == "pthread_cond_timedwait (libc.so.6)"


def test_query_gpu_csv_is_offered_to_no_other_probe_by_its_content() -> None:
    """A query CSV printed by another command (``cat`` of a log) is no reading of the GPUs:
    a forged one at 100 % would be believed (tests/ingest/test_record_pty.py). So the probe
    has no recogniser; a pasted CSV is recorded under ``nvidia-smi-query`` itself."""
    assert QUERY_GPU.recognises is None


def test_a_q_fragment_below_the_pci_header_keeps_its_throughput() -> None:
    """A paste from the middle of ``nvidia-smi -q`` (its PCI header cut): "Tx/Rx Throughput"
    live only under PCI, so they are attributed; "Used" could be the frame buffer's or BAR1's,
    and stays unread."""
    text = (
        "        Tx Throughput                     : 2318 KB/s\n"
        "        Rx Throughput                     : 3641 KB/s\n"
        "        Used                              : 1731 MiB\n"
        "    Performance State                     : P0\n"
    )
    result = parse_smi_q(text)
    facts = {fact.name: fact.value for fact in result.facts}
    assert facts["pcie.tx_throughput"] == 2318 and facts["pcie.rx_throughput"] == 3641
    assert "memory.used" not in facts
    assert any("1 line(s) without their section header" in p for p in result.problems)


def test_dmon_on_a_gpu_that_cannot_report_it_says_so() -> None:
    """keylase/nvidia-patch#89: dmon and pmon on a 2019 GeForce driver print only this."""
    result = parse_dmon("Not supported on the device(s)\nFailed to process command line\n")
    assert not result.parsed
    assert result.problems == ["nvidia-smi reported an error: Not supported on the device(s)"]


def test_a_shortened_bus_id_keeps_the_row_cells_apart() -> None:
    """NVIDIA/DCGM#152: a bus cell cut to "00000000:" let the GPU's name run across the "|"
    and read the ECC cell's "On" as persistence mode."""
    text = (
        "| NVIDIA-SMI 535.104.12   Driver Version: 535.104.12   CUDA Version: 12.2 |\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "|   3  NVIDIA A100-SXM4-80GB          Off | 00000000: Off |                   On |\n"
        "| N/A   33C    P0              85W / 400W |      0MiB / 81920MiB |     0%     Default |\n"
    )
    facts = {(f.name, f.subject): f.value for f in parse_smi_table(text).facts}
    assert facts[("name", "gpu3")] == "NVIDIA A100-SXM4-80GB"
    assert facts[("persistence_mode", "gpu3")] == "Disabled"
    assert facts[("ecc.mode.current", "gpu3")] == "Enabled"


def test_one_rank_from_two_processes_is_two_runs_not_one_job() -> None:
    """nccl-tests without MPI under ``mpirun -np 2``: each process is a one-rank run."""
    rank = "#   Rank  0 Pid   {pid} on {host} device  0 [0x00] Tesla V100-SXM2-16GB\n"
    result = parse_nccl(
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
        + rank.format(pid=1320, host="a")
        + rank.format(pid=2066, host="b")
    )
    facts = {f.name: f.value for f in result.facts}
    assert facts["nccl.ranks"] == 1
    assert any("rank 0 printed by more than one process" in p for p in result.problems)
    # the whole banner printed by each rank of one MPI job is one rank each
    result = parse_nccl(rank.format(pid=1, host="a") * 2 + rank.format(pid=1, host="a"))
    assert not any("more than one process" in p for p in result.problems)


def test_channels_count_from_zero() -> None:
    """NVIDIA/nccl#660: lines for channels 02 and 03 were counted as two channels."""
    line = "host:1:2 [0] NCCL INFO Channel {c}/0 : 0[0] -> 1[1] via P2P/IPC\n"
    facts = {
        f.name: f.value for f in parse_nccl_debug(line.format(c="02") + line.format(c="03")).facts
    }
    assert facts["nccl.channels"] == 4
