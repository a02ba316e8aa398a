"""Several processes' ``py-spy dump`` in one paste: each process is read with its own main
thread, not as one process's threads.

The shapes are those of real pastes: ``py-spy dump --subprocesses`` (a ``Process`` line and a
``Python`` line above each process, a ``Parent Process`` line under a child's), ray's ``ray
stack`` (py-spy 0.1 threads without names under a ``Stack dump for`` line of ``ps``; golden
py-spy 003) and SGLang's watchdog dumping each scheduler process between log lines (golden
py-spy 012, which starts inside the previous process's threads).
"""

from __future__ import annotations

from casefile_probes.py_spy import parse_py_spy

from .corpus import GOLDEN, check_result, read_sample
from .test_profilers_hand import _values

# two DDP ranks dumped one after the other: rank 0 computes, rank 1 waits for its next batch
_RANKS = """\
Process 3100: python train.py --rank 0
Python v3.11.8 (/usr/bin/python3.11)

Thread 3100 (active+gil): "MainThread"
    _conv_forward (torch/nn/modules/conv.py:456)
    forward (model.py:40)
    train_step (train.py:71)
    <module> (train.py:120)
Thread 3140 (idle): "Thread-1 (_pin_memory_loop)"
    wait (threading.py:331)
    get (queue.py:180)
    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)
    run (threading.py:982)
Thread 3141 (idle)

Process 3101: python train.py --rank 1
Python v3.11.8 (/usr/bin/python3.11)

Thread 3101 (idle): "MainThread"
    wait (threading.py:331)
    get (queue.py:180)
    _get_data (torch/utils/data/dataloader.py:1276)
    _next_data (torch/utils/data/dataloader.py:1319)
    __next__ (torch/utils/data/dataloader.py:631)
    train_step (train.py:66)
    <module> (train.py:120)
Thread 3150 (idle): "Thread-1 (_pin_memory_loop)"
    wait (threading.py:331)
    get (queue.py:180)
    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)
    run (threading.py:982)
"""


def test_each_process_s_main_thread_is_in_the_shares() -> None:
    """Rank 1's main thread waits in the DataLoader: one of the two ranks' main threads waits
    for data. Read as one process (its main thread rank 0's alone), rank 1's blocked main
    thread was left out like an idle helper thread: data share 0, and six threads."""
    result = parse_py_spy(_RANKS)
    facts = _values(result)
    assert facts["host.data_share"] == 0.5
    assert facts["host.gpu_wait_share"] == 0.0
    assert facts["pyspy.threads"] == 3  # rank 0's: its main, pin-memory and an empty thread
    assert facts["pyspy.top_function"] == "_conv_forward (torch/nn/modules/conv.py:456)"
    assert result.problems == [
        "2 processes dumped in one paste (3100, 3101): pyspy.threads counts the first one's"
        " threads, the shares are over every process's main thread and busy threads,"
        " pyspy.top_function is from process 3100's main thread"
    ]


def test_one_process_s_dump_gives_no_process_problem() -> None:
    first = _RANKS[: _RANKS.index("Process 3101")]
    result = parse_py_spy(first)
    assert result.problems == []
    assert _values(result)["host.data_share"] == 0.0


# py-spy dump --subprocesses of a training job: the main process, one DataLoader worker
# decoding, one waiting for its next index (forked: the parent's frames lie under its own)
_SUBPROCESSES = """\
Process 4200: python train.py
Python v3.10.12 (/usr/bin/python3.10)

Thread 4200 (active): "MainThread"
    forward (model.py:88)
    train_step (train.py:71)
    <module> (train.py:120)

Process 4231: python train.py
Python v3.10.12 (/usr/bin/python3.10)
Parent Process 4200: python train.py

Thread 4231 (active+gil): "MainThread"
    decode (PIL/ImageFile.py:291)
    __getitem__ (dataset.py:33)
    fetch (torch/utils/data/_utils/fetch.py:51)
    _worker_loop (torch/utils/data/_utils/worker.py:308)
    run (multiprocessing/process.py:108)
    _bootstrap (multiprocessing/process.py:314)

Process 4232: python train.py
Python v3.10.12 (/usr/bin/python3.10)
Parent Process 4200: python train.py

Thread 4232 (idle): "MainThread"
    _poll (multiprocessing/connection.py:424)
    poll (multiprocessing/connection.py:257)
    get (multiprocessing/queues.py:113)
    _worker_loop (torch/utils/data/_utils/worker.py:290)
    run (multiprocessing/process.py:108)
    _bootstrap (multiprocessing/process.py:314)
"""


def test_subprocesses_a_worker_waiting_for_work_is_not_data_loading() -> None:
    """The busy worker counts as loading data; the idle one's main thread, blocked in the
    worker loop on its index queue, has nothing to do and is left out, as a helper thread
    blocked on a queue is (counted, its worker-loop frame would read as data loading)."""
    result = parse_py_spy(_SUBPROCESSES)
    facts = _values(result)
    assert facts["host.data_share"] == 0.5  # the main process computes, one worker decodes
    assert facts["pyspy.threads"] == 1  # the process --pid named, not 3 over three processes
    assert facts["pyspy.top_function"] == "forward (model.py:88)"
    # the Parent Process lines start no process of their own
    assert result.problems[0].startswith("3 processes dumped in one paste (4200, 4231, 4232)")


def test_a_worker_dumped_alone_is_still_read() -> None:
    """Alone, an idle worker's main thread is every thread there is: its shares stay."""
    worker = _SUBPROCESSES[_SUBPROCESSES.index("Process 4232") :]
    facts = _values(parse_py_spy(worker))
    assert facts["host.data_share"] == 1.0
    assert facts["pyspy.top_function"] == "_poll (multiprocessing/connection.py:424)"


# ray stack: py-spy 0.1 threads with ids alone, the main thread neither first nor named
_RAY = (
    "Stack dump for ddrl     20768  0.1  0.1 1751908 151888 pts/0  Sl   12:48   0:01 ray_worker\n"
    "Thread 0x7F4AA36D9700 (active)\n"
    "\t _periodically_flush_profile_events (ray/profiling.py:97)\n"
    "\t run (threading.py:864)\n"
    "\t _bootstrap (threading.py:884)\n"
    "Thread 0x7F4AACDE7700 (active)\n"
    "\t get_objects (ray/worker.py:470)\n"
    "\t main_loop (ray/worker.py:1005)\n"
    "\t <module> (ray/workers/default_worker.py:105)\n"
    "\n"
    "Stack dump for ddrl     20769  0.1  0.1 1751908 151760 pts/0  Sl   12:48   0:01 ray_worker\n"
    "Thread 0x7FB6D283A700 (active)\n"
    "\t _periodically_flush_profile_events (ray/profiling.py:97)\n"
    "\t run (threading.py:864)\n"
    "\t _bootstrap (threading.py:884)\n"
)


def test_unnamed_threads_the_main_one_runs_the_script() -> None:
    """Without names, the thread whose outermost frame is ``<module>`` is the main one, not
    the first listed (a ``threading`` thread starts at ``_bootstrap``)."""
    result = parse_py_spy(_RAY)
    facts = _values(result)
    assert facts["pyspy.top_function"] == "get_objects (ray/worker.py:470)"
    assert facts["pyspy.threads"] == 2
    assert "(20768, 20769)" in result.problems[0]
    one = _values(parse_py_spy(_RAY[: _RAY.index("\nStack dump for ddrl     20769")]))
    assert one["pyspy.top_function"] == "get_objects (ray/worker.py:470)"  # was the flush


def test_named_threads_without_a_main_one_guess_none() -> None:
    """Where the dump names its threads and none is MainThread, no thread is taken for it by
    its frames: the first thread with frames gives the top function, as before."""
    text = (
        'Thread 9 (active): "worker"\n    step (job.py:3)\n'
        'Thread 10 (active): "other"\n    run (job.py:9)\n    <module> (job.py:20)\n'
    )
    assert _values(parse_py_spy(text))["pyspy.top_function"] == "step (job.py:3)"


def test_ray_stack_golden_reads_each_worker_apart() -> None:
    """golden py-spy 003: two ray workers (3 threads, then 2 cut by the excerpt)."""
    result = parse_py_spy(read_sample(GOLDEN / "py-spy" / "003.txt"))
    facts = _values(result)
    assert facts["pyspy.threads"] == 3  # was 5: both workers' threads summed
    # was the profile-flushing thread, the first listed
    assert facts["pyspy.top_function"] == "_get_next_task_from_local_scheduler (ray/worker.py:988)"
    assert "2 processes dumped in one paste (20768, 20769)" in result.problems[0]


def test_sglang_watchdog_golden_names_the_dumped_scheduler() -> None:
    """golden py-spy 012: the tail of one process's dump (no Process line), log lines, then
    scheduler PP2_TP1's: its main thread gives the top function; no thread count, the first
    process being cut above the paste."""
    result = parse_py_spy(read_sample(GOLDEN / "py-spy" / "012.txt"))
    check_result(result)
    facts = _values(result)
    assert "pyspy.threads" not in facts
    assert facts["pyspy.top_function"] == "pthread_cond_timedwait (libc.so.6)"
    assert result.problems[1] == (
        "2 processes dumped in one paste (one above the first Process line, 88693): the shares"
        " are over every process's main thread and busy threads, pyspy.top_function is from"
        " process 88693's main thread"
    )


# --subprocesses --native: the DataLoader workers' main threads wait in libc's poll under
# the worker loop's queue get
_NATIVE_WORKERS = """\
Process 1000: python train.py
Python v3.10.12 (/usr/bin/python3.10)

Thread 1000 (active): "MainThread"
    _next_data (torch/utils/data/dataloader.py:1328)
    __next__ (torch/utils/data/dataloader.py:633)
    train_step (train.py:88)
    <module> (train.py:120)

Process 1001: /usr/bin/python3.10 -c from multiprocessing.spawn import spawn_main
Python v3.10.12 (/usr/bin/python3.10)

Thread 1001 (idle): "MainThread"
    __GI___poll (libc.so.6)
    select (selectors.py:416)
    wait (multiprocessing/connection.py:931)
    get (multiprocessing/queues.py:113)
    _worker_loop (torch/utils/data/_utils/worker.py:308)
    run (multiprocessing/process.py:108)
    <module> (<string>:1)
"""


def test_an_idle_workers_main_thread_is_left_out_under_native_frames() -> None:
    """libc's poll at the top is no frame the wait check knows: the worker loop's Python
    frames say the thread waits for its next index, and it is left out as without --native
    (counted, it took the main thread's share of data loading from 1.0 to 0.5)."""
    values = _values(parse_py_spy(_NATIVE_WORKERS))
    assert values["host.data_share"] == 1.0
