"""Review fixes to the py-spy and app-log parsers: readings that a reviewer found wrong.

py-spy: DataLoader's pin-memory thread (present in every ``pin_memory=True`` job), threads
that only wait and threads without frames made a GPU-bound job look data-heavy. app-log: any CPU
match (an offloaded optimizer's ``device='cpu'``, one operator falling back to the CPU) made a
job that says it runs on CUDA read as running on the CPU; llama.cpp's layer count was not read.
"""

from __future__ import annotations

import pytest
from casefile_probes.app_log import looks_like_app_log, parse_app_log
from casefile_probes.py_spy import parse_py_spy

from casefile.domain.facts import ParseResult


def _values(result: ParseResult) -> dict[str, object]:
    return {fact.name: fact.value for fact in result.facts}


# ----------------------------------------------------------------------------- py-spy dump

_CONV_AND_PIN = """\
Process 5120: python train.py
Python v3.11.8 (/usr/bin/python3.11)

Thread 5120 (active+gil): "MainThread"
    _conv_forward (torch/nn/modules/conv.py:456)
    forward (torch/nn/modules/conv.py:460)
    _call_impl (torch/nn/modules/module.py:1527)
    train_step (train.py:71)
Thread 5141 (idle): "Thread-1 (_pin_memory_loop)"
    wait (threading.py:331)
    get (queue.py:180)
    do_one_step (torch/utils/data/_utils/pin_memory.py:31)
    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)
    run (threading.py:982)
Thread 4076 (idle)
Thread 4077 (idle)
"""


def test_the_pin_memory_thread_is_no_data_loading_beside_a_busy_main_thread() -> None:
    facts = _values(parse_py_spy(_CONV_AND_PIN))
    assert facts["host.data_share"] == 0.0  # was 0.25: the pin-memory loop and two empty threads
    assert facts["host.gpu_wait_share"] == 0.0
    assert facts["pyspy.threads"] == 4  # still every thread the dump shows
    assert facts["pyspy.top_function"] == "_conv_forward (torch/nn/modules/conv.py:456)"


def test_a_pin_memory_thread_at_work_counts_as_work_not_as_data_loading() -> None:
    busy = _CONV_AND_PIN.replace(
        "    wait (threading.py:331)\n    get (queue.py:180)\n",
        "    pin_memory (torch/utils/data/_utils/pin_memory.py:77)\n",
    )
    assert _values(parse_py_spy(busy))["host.data_share"] == 0.0


def test_threads_that_only_wait_are_left_out_of_the_share() -> None:
    text = """\
Thread 10 (active): "MainThread"
    __getitem__ (data/my_dataset.py:40)
    fetch (torch/utils/data/_utils/fetch.py:51)
Thread 11 (idle): "Thread-1"
    sleep (time.py:1)
Thread 12 (idle): "Thread-2"
    select (selectors.py:415)
Thread 13 (idle): "pt_autograd_0"
    pthread_cond_wait (libc.so.6)
Thread 14 (active): "Thread-3"
    forward (model.py:40)
"""
    facts = _values(parse_py_spy(text))
    assert facts["host.data_share"] == 0.5  # the main thread and Thread-3, not the sleepers


def test_a_main_thread_waiting_for_data_weighs_over_its_helpers() -> None:
    text = """\
Thread 42 (idle): "MainThread"
    wait (threading.py:359)
    get (queue.py:180)
    _try_get_data (torch/utils/data/dataloader.py:1310)
    _next_data (torch/utils/data/dataloader.py:1524)
Thread 43 (idle): "Thread-2 (_pin_memory_loop)"
    select (selectors.py:415)
    wait (multiprocessing/connection.py:1136)
Thread 44 (idle): "Thread-1"
    wait (threading.py:324)
    run (tqdm/_monitor.py:60)
"""
    # the main thread is blocked too, but waiting for the DataLoader is the finding
    assert _values(parse_py_spy(text))["host.data_share"] == 1.0


def test_a_non_main_thread_blocked_on_a_cuda_wait_still_counts_as_waiting_on_the_gpu() -> None:
    text = """\
Thread 1 (active): "MainThread"
    forward (model.py:40)
Thread 2 (idle): "Thread-5"
    wait (torch/cuda/streams.py:120)
    run (worker.py:9)
"""
    assert _values(parse_py_spy(text))["host.gpu_wait_share"] == 0.5


def test_every_thread_blocked_and_no_main_thread_falls_back_to_all_framed_threads() -> None:
    text = """\
Thread 0x7F4AA36D9700 (active)
\t wait (threading.py:324)
\t _worker (my_loader.py:20)
Thread 0x7F4AA2ED8700 (active)
\t get (queue.py:180)
\t __getitem__ (data/my_dataset.py:40)
Thread 0x7F4AA2ED8701 (idle)
"""
    facts = _values(parse_py_spy(text))
    assert facts["host.data_share"] == 0.5  # __getitem__ in one of the two threads with frames


# ----------------------------------------------------------------------------- app-log device

_DEEPSPEED_ZERO = (
    "[2024-01-09 10:12:41,502] [INFO] [config.py:988:print]   zero_config .................. "
    "stage=3 contiguous_gradients=True reduce_scatter=True "
    "offload_param=DeepSpeedZeroOffloadParamConfig(device='none', nvme_path=None, "
    "buffer_count=5, buffer_size=100,000,000, max_in_cpu=1,000,000,000, pin_memory=False) "
    "offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='cpu', nvme_path=None, "
    "buffer_count=4, pin_memory=True, pipeline=False, pipeline_read=False, "
    "pipeline_write=False, fast_init=False, ratio=1.0) sub_group_size=1,000,000,000\n"
)


def test_an_offloaded_optimizer_in_a_deepspeed_config_is_not_the_job_on_the_cpu() -> None:
    result = parse_app_log(_DEEPSPEED_ZERO + "Using device: cuda:0\n")
    assert _values(result) == {"app.device_cpu": False}
    assert not result.problems  # the config's device='cpu' is not read at all
    assert "app.device_cpu" not in _values(parse_app_log(_DEEPSPEED_ZERO))


def test_an_offload_block_of_a_yaml_config_is_not_the_jobs_device() -> None:
    text = "zero_optimization:\n  stage: 3\n  offload_optimizer:\n    device: cpu\n"
    assert "app.device_cpu" not in _values(parse_app_log(text))
    # the block ends at the first line indented no deeper than its key
    after = text + "  device: cpu\n"
    assert _values(parse_app_log(after))["app.device_cpu"] is True


def test_a_device_setting_in_an_argument_namespace_still_counts() -> None:
    assert _values(parse_app_log("Namespace(batch_size=8, device='cpu', lr=0.1)\n")) == {
        "app.device_cpu": True
    }


@pytest.mark.parametrize(
    "line",
    [
        "Falling back to CPU for unsupported op aten::_linalg_eigh",
        "UserWarning: falling back to CPU for operator 'aten::nonzero'",
    ],
)
def test_an_operator_falling_back_to_the_cpu_is_not_the_job_on_the_cpu(line: str) -> None:
    assert "app.device_cpu" not in _values(parse_app_log(line + "\n"))
    assert _values(parse_app_log(f"Using device: cuda:0\n{line}\n")) == {"app.device_cpu": False}


def test_an_explicit_cuda_statement_outweighs_an_incidental_cpu_match() -> None:
    result = parse_app_log("Falling back to CPU.\nModel loaded on cuda:0\n")
    assert _values(result) == {"app.device_cpu": False}
    assert "taken as running on the GPU" in result.problems[0]
    # without the explicit statement, the fallback still says the job runs on the CPU
    assert _values(parse_app_log("Falling back to CPU.\n")) == {"app.device_cpu": True}


def test_a_failed_cuda_start_still_outweighs_an_explicit_cuda_line() -> None:
    result = parse_app_log("Using device: cuda:0\nRuntimeError: No CUDA GPUs are available\n")
    assert _values(result) == {"app.device_cpu": True}
    assert "taken as running on the CPU" in result.problems[0]


@pytest.mark.parametrize(
    ("line", "share"),
    [
        ("llm_load_tensors: offloaded 0/33 layers to GPU", 0.0),
        ("llm_load_tensors: offloaded 33/33 layers to GPU", 100.0),
        ("load_tensors: offloaded 20/32 layers to GPU", 62.5),
    ],
)
def test_llama_cpp_layers_offloaded_say_how_much_of_the_model_runs_on_the_gpu(
    line: str, share: float
) -> None:
    """A partial offload was read as "runs on CUDA", which counted against the GPU being left
    unused: the part on the CPU is what sets the pace. The count is now a share of its own and
    no longer a device statement (one line read once)."""
    assert _values(parse_app_log(line + "\n")) == {"model.gpu_share": share}
    assert looks_like_app_log(line + "\n")


def test_layers_offloaded_still_outweigh_an_incidental_cpu_mention() -> None:
    text = "Falling back to CPU.\nload_tensors: offloaded 20/32 layers to GPU\ndevice='cuda'\n"
    result = parse_app_log(text)
    assert _values(result) == {"model.gpu_share": 62.5, "app.device_cpu": False}
    assert "62.5 % of the model's layers offloaded to the GPU" in result.problems[0]
    # the smallest share where a log loads several models; a count past its total is no count
    two = (
        "offloaded 41/41 layers to GPU\noffloaded 5/37 layers to GPU\noffloaded 9/3 layers to GPU\n"
    )
    assert _values(parse_app_log(two))["model.gpu_share"] == pytest.approx(13.513514)
