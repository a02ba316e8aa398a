"""Hand-written cases for the py-spy parser: each share computed from a small ``py-spy dump``
or ``py-spy top`` whose answer can be checked on paper, and each rule of thumb its module
docstring states (what counts as data loading or a wait on the GPU, when the GIL share is
given)."""

from __future__ import annotations

import pytest
from casefile_probes.py_spy import parse_py_spy

from .corpus import check_result
from .test_profilers_hand import _values

DUMP = """\
Process 4242: python train.py
Python v3.10.12 (/usr/bin/python3.10)

Thread 4250 (idle): "pt_autograd_0"
    pthread_cond_wait (libc.so.6)
Thread 4242 (active+gil): "MainThread"
    cudaStreamSynchronize (libcudart.so.12)
    synchronize (torch/cuda/__init__.py:801)
        Arguments:
            device: None
    train_step (train.py:88)
Thread 4260 (idle): "Thread-2 (_pin_memory_loop)"
    wait (threading.py:324)
    get (queue.py:180)
    do_one_step (torch/utils/data/_utils/pin_memory.py:31)
    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)
Thread 4270 (active): "Thread-3"
    __getitem__ (torch/nn/modules/container.py:295)
    forward (model.py:40)
"""


def test_py_spy_dump_shares_of_threads() -> None:
    facts = _values(parse_py_spy(DUMP))
    assert facts["pyspy.threads"] == 4
    # over the main thread and Thread-3: the autograd and pin-memory threads only wait
    assert facts["host.data_share"] == 0.0  # a ModuleList is not data, nor the pin-memory loop
    assert facts["host.gpu_wait_share"] == 0.5  # the main thread, under a native frame
    assert facts["pyspy.top_function"] == "cudaStreamSynchronize (libcudart.so.12)"


TOP = """\
Collecting samples from 'python train.py' (python v3.10.12)
Total Samples 400
GIL: 40.00%, Active: 200.00%, Threads: 9

  %Own   %Total  OwnTime  TotalTime  Function (filename)
 90.00%  90.00%    3.00s     3.00s   decode (PIL/ImageFile.py)
 50.00%  50.00%    2.00s     2.00s   synchronize (torch/cuda/__init__.py)
 40.00%  40.00%    4.00s     4.00s   wait (threading.py)
 20.00%  20.00%    1.00s     1.00s   __getitem__ (data/my_dataset.py)
"""


@pytest.mark.parametrize("crlf", [False, True])
def test_py_spy_top_shares_of_own_time(crlf: bool) -> None:
    text = TOP.replace("\n", "\r\n") if crlf else TOP
    facts = _values(parse_py_spy(text))
    assert facts["host.data_share"] == 0.4  # decode and __getitem__: 4 s of 10 s
    assert facts["host.gpu_wait_share"] == 0.2  # a threading wait is not a GPU wait
    # threading's wait holds the most own time, but an idle thread's wait is no one's work
    assert facts["pyspy.top_function"] == "decode (PIL/ImageFile.py)"
    assert facts["pyspy.threads"] == 9


def test_py_spy_top_names_its_top_function_by_own_time_not_share() -> None:
    """%Own is the last second's; OwnTime the whole run's, which the top function is read by."""
    top = (
        "  %Own   %Total  OwnTime  TotalTime  Function (filename)\n"
        " 90.00%  90.00%    3.00s     3.00s   decode (PIL/ImageFile.py)\n"
        " 10.00%  10.00%    6.00s     6.00s   forward (model.py)\n"
    )
    assert _values(parse_py_spy(top))["pyspy.top_function"] == "forward (model.py)"


def test_py_spy_top_reads_the_share_of_samples_holding_the_gil() -> None:
    """top's header says how often a thread held the GIL (Python itself busy); a dump, or a
    top table pasted without its header, says nothing about it."""
    assert _values(parse_py_spy(TOP))["host.gil_share"] == 0.4
    held = TOP.replace("GIL: 40.00%", "GIL: 100.00%")
    assert _values(parse_py_spy(held))["host.gil_share"] == 1.0
    table = TOP[TOP.index("  %Own") :]
    assert "host.gil_share" not in _values(parse_py_spy(table))
    assert "host.gil_share" not in _values(parse_py_spy(DUMP))


def test_py_spy_top_gil_of_zero_beside_python_that_ran_is_a_failed_detection() -> None:
    """Python code runs only under the GIL: 0.00% above Python rows with own time in the last
    second is py-spy not finding the GIL (Python 3.12+, some older builds), not an idle GIL."""
    blind = TOP.replace("GIL: 40.00%", "GIL: 0.00%")
    result = parse_py_spy(blind)
    assert "host.gil_share" not in _values(result)
    assert any("could not detect the GIL" in problem for problem in result.problems)
    native = (
        "GIL: 0.00%, Active: 100.00%, Threads: 2\n\n"
        "  %Own   %Total  OwnTime  TotalTime  Function (filename)\n"
        "100.00% 100.00%    3.00s     3.00s   cudaStreamSynchronize (libcudart.so.12)\n"
        "  0.00%  50.00%    1.00s     2.00s   train_step (train.py)\n"
    )
    assert _values(parse_py_spy(native))["host.gil_share"] == 0.0  # only native code ran


def test_py_spy_not_its_output() -> None:
    for text in ("", "Thread 1 started\n", "  %Own   %Total  OwnTime  TotalTime  Function\n"):
        result = parse_py_spy(text)
        check_result(result)
        assert not result.parsed
