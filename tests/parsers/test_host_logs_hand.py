"""Hand-made cases for the top, mpstat and pidstat parsers (the app log's are in
``test_app_log_hand``; the four recognisers are told apart here): each computed value (busy
from idle, means and medians, ratios, unit conversions, which block or line wins) checked
against a figure worked out by hand, and the shapes no real sample here shows."""

from __future__ import annotations

import pytest
from casefile_probes.app_log import looks_like_app_log
from casefile_probes.cpu_load import (
    looks_like_mpstat,
    looks_like_pidstat,
    looks_like_top,
    parse_mpstat,
    parse_pidstat,
    parse_top,
)

from casefile.domain.facts import FactValue, ParseResult
from tests.parsers.test_app_log_hand import LLAMA_BENCH


def _values(result: ParseResult, subject: str = "host") -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == subject}


# --------------------------------------------------------------------------------- top

_TOP_SCREEN = """\
top - 10:00:{s:02d} up 1 day,  2 users,  load average: 1.00, 1.00, 1.00
Tasks: 300 total,   2 running, 298 sleeping,   0 stopped,   0 zombie
%Cpu(s): 20.0 us,  5.0 sy,  0.0 ni, {idle} id,  2.5 wa,  0.0 hi,  0.0 si,  0.0 st
MiB Mem :  64000.0 total,  1000.0 free,  2000.0 used,  61000.0 buff/cache

    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
   4242 alice     20   0   30.1g   4.2g 512.0m R {cpu} 6.5   12:01.00 python train.py --workers 0
   4300 alice     20   0   10.1g   1.2g 100.0m S  12.0   1.9   0:31.00 pt_data_worker
"""


def test_top_reads_the_last_of_several_screens() -> None:
    text = _TOP_SCREEN.format(s=1, idle="10.0", cpu="300.0") + _TOP_SCREEN.format(
        s=4, idle="72.5", cpu="101.3"
    )
    result = parse_top(text)
    assert _values(result) == {
        "cpu.busy.mean": 27.5,
        "cpu.iowait": 2.5,
        "process.cpu.max": 101.3,
        "process.top_command": "python train.py --workers 0",
    }
    assert result.problems == ["2 top screens in the paste; the last is read"]


def test_top_per_cpu_lines_in_two_columns_give_each_core_and_the_mean() -> None:
    text = (
        "%Cpu0  : 97.0 us,  3.0 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st"
        "   %Cpu1  :  1.0 us,  1.0 sy,  0.0 ni, 96.0 id,  2.0 wa,  0.0 hi,  0.0 si,  0.0 st\n"
        "%Cpu2  :  2.0 us,  0.0 sy,  0.0 ni, 98.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st"
        "   %Cpu3  :  3.0 us,  1.0 sy,  0.0 ni, 96.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st\n"
    )
    result = parse_top(text)
    assert [(f.subject, f.value) for f in result.facts if f.name == "cpu.busy"] == [
        ("cpu0", 100.0),
        ("cpu1", 4.0),
        ("cpu2", 2.0),
        ("cpu3", 4.0),
    ]
    # no %Cpu(s) line: the mean of the cores, and of their wa
    assert _values(result) == {"cpu.busy.max": 100.0, "cpu.busy.mean": 27.5, "cpu.iowait": 0.5}


def test_top_graph_mode_summary_is_user_plus_system() -> None:
    result = parse_top("%Cpu(s):  12.5/3.1    16[||||||||                          ]\n")
    assert _values(result) == {"cpu.busy.mean": 15.6}


def test_top_process_header_without_rows_says_so() -> None:
    text = (
        "%Cpu(s):  1.0 us,  1.0 sy,  0.0 ni, 98.0 id,  0.0 wa\n"
        "  PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND\n"
    )
    result = parse_top(text)
    assert _values(result)["cpu.busy.mean"] == 2.0
    assert result.problems == ["process table header without readable rows"]


@pytest.mark.parametrize("text", ["", "hello\nworld\n", "USER PID %CPU\nroot 1 0.0\n"])
def test_top_without_top_output_is_unparsed(text: str) -> None:
    result = parse_top(text)
    assert not result.parsed and result.problems and not result.facts


# ------------------------------------------------------------------------------ mpstat

_MPSTAT = """\
Linux 6.8.0-45-generic (gpu-box)  10/01/2024  _x86_64_  (2 CPU)

12:00:01     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
12:00:02     all   50,00    0,00    0,00   10,00    0,00    0,00    0,00    0,00    0,00   40,00
12:00:02       0  100,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00
12:00:02       1    0,00    0,00    0,00   20,00    0,00    0,00    0,00    0,00    0,00   80,00

12:00:02     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
12:00:03     all   30,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00   70,00
12:00:03       0   60,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00   40,00
12:00:03       1    0,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00    0,00  100,00
"""


def test_mpstat_without_average_takes_the_mean_of_the_intervals() -> None:
    result = parse_mpstat(_MPSTAT)
    assert _values(result, "cpu0") == {"cpu.busy": 80.0}  # idle 0 and 40: mean 20
    assert _values(result, "cpu1") == {"cpu.busy": 10.0}  # idle 80 and 100: mean 90
    assert _values(result) == {"cpu.busy.max": 80.0, "cpu.busy.mean": 45.0, "cpu.iowait": 5.0}
    assert result.problems == []


def test_mpstat_prefers_the_average_rows_and_the_last_report() -> None:
    average = (
        "\nAverage: CPU %usr %nice %sys %iowait %irq %soft %steal %guest %gnice %idle\n"
        "Average: all 12,00 0,00 0,00 1,00 0,00 0,00 0,00 0,00 0,00 87,00\n"
        "Average:   0 14,00 0,00 0,00 0,00 0,00 0,00 0,00 0,00 0,00 86,00\n"
        "Average:   1 10,00 0,00 0,00 2,00 0,00 0,00 0,00 0,00 0,00 88,00\n"
    )
    result = parse_mpstat(_MPSTAT + _MPSTAT + average)
    assert _values(result, "cpu0") == {"cpu.busy": 14.0}
    assert _values(result) == {"cpu.busy.max": 14.0, "cpu.busy.mean": 13.0, "cpu.iowait": 1.0}
    assert result.problems == ["2 mpstat reports in the paste; the last is read"]


def test_mpstat_without_rows_is_unparsed() -> None:
    result = parse_mpstat(_MPSTAT.split("\n\n")[0] + "\n")
    assert not result.parsed and "no mpstat rows" in result.problems[0]


# ----------------------------------------------------------------------------- pidstat


def test_pidstat_average_rows_win_and_the_command_keeps_its_arguments() -> None:
    text = (
        "Linux 6.8.0 (gpu-box)  10/01/2024  _x86_64_  (32 CPU)\n\n"
        "12:00:01  UID  PID   %usr %system %guest %wait   %CPU CPU Command\n"
        "12:00:02 1000 4242 150.00    9.00   0.00  1.00 159.00   3 python train.py --bs 8\n"
        "12:00:02 1000 4300  40.00    2.00   0.00 35.00  42.00   7 python -c pt_worker\n"
        "\n"
        "Average:  UID  PID   %usr %system %guest %wait   %CPU CPU Command\n"
        "Average: 1000 4242  95.00    4.00   0.00  2.50  99.00   - python train.py --bs 8\n"
        "Average: 1000 4300  30.00    1.50   0.00 20.00  31.50   - python -c pt_worker\n"
    )
    result = parse_pidstat(text)
    assert _values(result) == {
        "process.cpu.max": 99.0,
        "process.top_command": "python train.py --bs 8",
        "process.cpu.wait_max": 20.0,
    }


def test_pidstat_one_line_reports_with_epoch_times_and_other_reports_after() -> None:
    text = (
        "#      Time   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
        " 1727776802  1000      4242   80.00    5.00    0.00    0.00   85.00     3  python\n"
        " 1727776803  1000      4242   90.00    5.00    0.00    4.00   95.00     3  python\n"
        "\n"
        "#      Time   UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n"
        " 1727776803  1000      4300   9999.00      0.00      0.00       0  reader\n"
    )
    result = parse_pidstat(text)
    # the mean of the two seconds; the I/O report's rows are not CPU rows
    assert _values(result) == {
        "process.cpu.max": 90.0,
        "process.top_command": "python",
        "process.cpu.wait_max": 2.0,
    }


def test_pidstat_threads_count_as_tasks_without_their_mark() -> None:
    text = (
        "12:00:01  UID TGID  TID  %usr %system %guest   %CPU CPU Command\n"
        "12:00:02 1000 4242    - 60.00    4.00   0.00  64.00   1 python\n"
        "12:00:02 1000    - 4251 99.00    1.00   0.00 100.00   2 |__pt_main_thread\n"
    )
    assert _values(parse_pidstat(text)) == {
        "process.cpu.max": 100.0,
        "process.top_command": "pt_main_thread",
    }


def test_pidstat_other_output_is_unparsed() -> None:
    result = parse_pidstat("UID PID PPID C STIME TTY TIME CMD\nroot 1 0 0 Oct01 ? 00:00:01 init\n")
    assert not result.parsed and "no pidstat CPU report" in result.problems[0]


# ------------------------------------------------------------------------- recognisers


def test_recognisers_tell_the_four_apart() -> None:
    samples = {
        "top": "top - 10:00:01 up 1 day,  1 user,  load average: 0.00, 0.00, 0.00\n",
        "mpstat": "12:00:01 CPU %usr %nice %sys %iowait %irq %soft %steal %guest %gnice %idle\n",
        "pidstat": "12:00:01 UID PID %usr %system %guest %wait %CPU CPU Command\n",
        "app-log": "Epoch [1][10/100] time: 1.000, data_time: 0.900\n",
    }
    recognisers = {
        "top": looks_like_top,
        "mpstat": looks_like_mpstat,
        "pidstat": looks_like_pidstat,
        "app-log": looks_like_app_log,
    }
    for name, recognise in recognisers.items():
        assert [other for other, text in samples.items() if recognise(text)] == [name]


@pytest.mark.parametrize(
    "text",
    [
        "USER  PID %CPU %MEM    VSZ   RSS TTY STAT START TIME COMMAND\n",  # ps aux
        "11:05:01 AM     CPU     %user     %nice   %system   %iowait    %steal     %idle\n",  # sar
        "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n",  # iostat
        "Using device: cuda\n",  # a profiler script's first line
    ],
)
def test_recognisers_leave_neighbouring_tools_alone(text: str) -> None:
    for recognise in (looks_like_top, looks_like_mpstat, looks_like_pidstat, looks_like_app_log):
        assert not recognise(text)


@pytest.mark.parametrize(
    "text",
    [
        "eval count:           120 token(s)\neval rate:            24.61 tokens/s\n",  # Ollama
        "  1%|█▍          | 2/203 [00:12<16:46,  5.01s/it\n",  # a bar cut at the terminal edge
        "1000/1000 [==============================] - 1843s 2s/step - loss: 3.8849\n",  # Keras
        "Output token throughput: 1412.49 tokens/s\n",  # JetStream
        "[timer.py:189:stop] 0/40, SamplesPerSec=83.48609168106144, MemAllocated=0.26GB\n",
        "step:10 smpl:640 ep:2 loss:1.073 grdn:4.051 lr:2.0e-06 updt_s:0.296 data_s:0.001\n",
        LLAMA_BENCH,
    ],
)
def test_the_app_log_recogniser_takes_the_formats_people_paste(text: str) -> None:
    assert looks_like_app_log(text)
