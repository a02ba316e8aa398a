"""Review fixes to the py-spy and app-log parsers: readings that a reviewer found wrong.

py-spy: DataLoader's pin-memory thread (present in every ``pin_memory=True`` job), threads
that only wait and threads without frames made a GPU-bound job look data-heavy.
"""

from __future__ import annotations

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
