"""The host CPU readers on shapes found in a breadth round over public threads: busybox and
htop screens pasted as "top", macOS top (refused), pidstat's ``-I`` and the notes posters type
after a row. Each case failed before its fix; the real samples behind them are goldens
(``tests/golden/{top,pidstat}``, sources in each ``SOURCES``)."""

from __future__ import annotations

import pytest
from casefile_probes.cpu_load import (
    looks_like_mpstat,
    looks_like_pidstat,
    looks_like_top,
    parse_pidstat,
    parse_top,
)

from casefile.domain.facts import FactValue, ParseResult


def _values(result: ParseResult, subject: str = "host") -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == subject}


# ---------------------------------------------------------------------------- busybox

_BUSYBOX = """\
Mem: 217800K used, 630044K free, 14412K shrd, 0K buff, 99832K cached
CPU:  10% usr   2% sys   0% nic  40% idle  48% io   0% irq   0% sirq
Load average: 0.02 0.01 0.00 1/182 1912
  PID  PPID USER     STAT   VSZ %VSZ %CPU COMMAND
  518     1 root     S <  10404   1%  12% /usr/bin/adcsensor --poll
 1912   605 root     R     3508   0%  99% python3 loader.py
"""


def test_busybox_top_is_recognised_and_its_io_is_iowait() -> None:
    result = parse_top(_BUSYBOX)
    assert looks_like_top(_BUSYBOX)
    assert not looks_like_mpstat(_BUSYBOX) and not looks_like_pidstat(_BUSYBOX)
    assert _values(result) == {
        "cpu.busy.mean": 60.0,
        "cpu.iowait": 48.0,
        "process.cpu.max": 99.0,
        "process.top_command": "python3 loader.py",
    }


def test_busybox_state_with_a_blank_does_not_shift_the_cpu_cell() -> None:
    """``S <`` is two tokens: the %CPU cell is found as the row's second ``%`` cell."""
    text = _BUSYBOX.replace("R     3508   0%  99%", "R     3508   0%   9%")
    result = parse_top(text)
    assert _values(result)["process.cpu.max"] == 12.0
    assert _values(result)["process.top_command"] == "/usr/bin/adcsensor --poll"


def test_busybox_cpu_column_after_the_smp_option() -> None:
    text = (
        "CPU:   0% usr   2% sys   0% nic  48% idle  48% io   0% irq   0% sirq\n"
        "  PID  PPID USER     STAT   VSZ %VSZ CPU %CPU COMMAND\n"
        "  518     1 root     S    10404   1%   0   7% /usr/bin/adcsensor\n"
    )
    assert _values(parse_top(text))["process.top_command"] == "/usr/bin/adcsensor"


# ------------------------------------------------------------------------------- htop

_HTOP_ZERO = "    0[|  0.6%]  2[|||100.0%]\n    1[   0.0%]  3[|  1.4%]\n"


def test_htop_meters_counted_from_zero_name_each_core() -> None:
    result = parse_top(_HTOP_ZERO)
    assert looks_like_top(_HTOP_ZERO)
    assert _values(result, "cpu2") == {"cpu.busy": 100.0}
    assert _values(result) == {"cpu.busy.max": 100.0, "cpu.busy.mean": 25.5}


def test_htop_meters_counted_from_one_are_only_summarised() -> None:
    """htop 2 (and the setting in 3) labels the first core 1: naming cores from the labels
    would put a busy core on the wrong one, so only the busiest and the mean are given."""
    text = "  1  [|||||||| 12.1%]   Tasks: 516, 0 thr; 7 running\n  2  [||||||| 10.0%]\n"
    result = parse_top(text)
    assert {fact.subject for fact in result.facts} == {"host"}
    assert _values(result) == {"cpu.busy.max": 12.1, "cpu.busy.mean": 11.05}
    assert result.problems == ["htop meters without a core 0: cores not named, only summarised"]


# ------------------------------------------------------------------------------ macOS

# exelban/stats#262 (comment 2020-12-31): 'top -l 1 -o mem -n 5 -stats pid,command,mem'
_MACOS = "\n".join(
    [  # the trailing blanks are the tool's
        "Processes: 323 total, 2 running, 1 stuck, 320 sleeping, 1893 threads ",
        "2020/12/31 04:44:36",
        "Load Avg: 2.51, 2.52, 2.50 ",
        "CPU usage: 6.87% user, 25.95% sys, 67.17% idle ",
        "SharedLibs: 167M resident, 59M data, 35M linkedit.",
        "PhysMem: 8170M used (2372M wired), 21M unused.",
        "",
        "PID    COMMAND          MEM   ",
        "38091  Shrook           1946M+",
        "",
    ]
)


def test_macos_top_is_refused_with_its_reason() -> None:
    result = parse_top(_MACOS)
    assert not result.parsed and not result.facts
    assert "macOS" in result.problems[0]
    assert not looks_like_top(_MACOS)


def test_macos_line_with_a_linux_process_table_is_still_refused() -> None:
    text = (
        _MACOS + "\n  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
    )
    assert not parse_top(text).facts


# ---------------------------------------------------------------------------- pidstat

_IRIX_OFF = """\
10:56:51 AM   UID       PID    %usr %system  %guest    %CPU   CPU  Command
10:56:52 AM     0       922   39.00   18.00    0.00    9.42     2  xxx
10:56:52 AM     0       927  554.00   68.00    0.00  102.81     2  java
"""


def test_pidstat_cpu_divided_by_the_cpu_count_is_read_per_core() -> None:
    result = parse_pidstat(_IRIX_OFF)
    assert _values(result) == {"process.cpu.max": 622.0, "process.top_command": "java"}
    assert result.problems == [
        "%CPU divided by the CPU count (pidstat -I): %usr + %system + %guest read instead"
    ]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("1010    219296  100.00   16.00    0.00  100.00     1  pigz", 100.0),  # capped, no -I
        ("1010    219296   40.00   10.00    0.00   50.00     1  pigz", 50.0),
    ],
)
def test_pidstat_cpu_kept_where_it_agrees_with_its_parts(row: str, expected: float) -> None:
    text = "14:05:26   UID       PID    %usr %system  %guest    %CPU   CPU  Command\n"
    result = parse_pidstat(text + "14:05:27  " + row + "\n")
    assert _values(result)["process.cpu.max"] == expected and not result.problems


def test_pidstat_poster_note_after_the_command_is_dropped() -> None:
    text = (
        "  01:55:40 PM   UID      TGID       TID    %usr %system  %guest   %wait    %CPU"
        "   CPU  Command\n"
        "  01:55:41 PM  1000   1886218         -  182.00  133.00    0.00    0.00  315.00"
        "     1  java          ← TGID aggregate\n"
    )
    assert _values(parse_pidstat(text))["process.top_command"] == "java"


def test_pidstat_closing_backtick_is_no_cut_row() -> None:
    text = (
        "Average:      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
        "Average:     1013   3944304   61.68   66.50    0.00    0.00  128.18     -  ceph-mgr\n"
        "`\n"
    )
    assert parse_pidstat(text).problems == []


def test_pidstat_row_cut_short_is_still_said() -> None:
    text = (
        "14:05:26   UID       PID    %usr %system  %guest    %CPU   CPU  Command\n"
        "14:05:27  1010    219296  100.00   15.00\n"
        "14:05:27  1010    219297    1.00    1.00    0.00    2.00     3  pigz\n"
    )
    assert parse_pidstat(text).problems == ["1 task row(s) cut short, skipped"]


_TWO_INTERVALS = """\
10:00:01 AM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
10:00:02 AM  1000      4242   98.00    2.00    0.00    0.00  100.00     3  python
10:00:02 AM  1000      4300    5.00    1.00    0.00    3.00    6.00     4  pt_data_worker

10:00:02 AM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
10:00:03 AM  1000      4242   10.00    2.00    0.00    1.00   12.00     3  python
10:00:03 AM  1000      4300   90.00    1.00    0.00    0.00   91.00     4  pt_data_worker
"""


def test_pidstat_intervals_under_several_headers_pool_into_one_mean() -> None:
    """pidstat prints a header every interval where it shows several tasks; without the
    Average section (a paste cut before it), each task's mean is over all its intervals. It had
    been the last header's alone: pt_data_worker at 91 % where python averaged 56 %."""
    result = parse_pidstat(_TWO_INTERVALS)
    assert _values(result) == {
        "process.cpu.max": 56.0,
        "process.top_command": "python",
        "process.cpu.wait_max": 1.5,
    }


def test_pidstat_task_absent_from_an_interval_was_idle_in_it() -> None:
    """Without -p, pidstat leaves out of each interval a task that did nothing in it: a
    worker busy in one second of four averages a quarter of it, as pidstat's own Average
    section says, not its one busy second."""
    header = (
        "10:00:0{0} AM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
    )
    row = "10:00:0{0} AM  1000      {1}   {2:.2f}    0.00    0.00    0.00  {2:.2f}     3  {3}\n"
    text = ""
    for second in range(1, 5):
        text += header.format(second) + row.format(second + 1, 4242, 60.0, "python")
        if second == 4:
            text += row.format(second + 1, 4300, 91.0, "pt_data_worker")
        text += "\n"
    assert _values(parse_pidstat(text))["process.top_command"] == "python"
    assert _values(parse_pidstat(text))["process.cpu.max"] == 60.0


def test_pidstat_minus_i_is_judged_over_the_node_not_table_by_table() -> None:
    """A table whose only other row is 0.01 beside 0.01 (rounding hides the division) is
    still -I: the whole report is read per core, once."""
    header = "10:00:0{0} AM   UID       PID    %usr %system  %guest    %CPU   CPU  Command\n"
    python = "10:00:0{0} AM  1000      4242  150.00    0.00    0.00   75.00     1  python\n"
    sshd = "10:00:0{0} AM     0       900    0.01    0.00    0.00    0.01     0  sshd\n"
    text = "".join(
        header.format(s) + python.format(s + 1) + (sshd.format(s + 1) if s == 2 else "") + "\n"
        for s in (1, 2, 3)
    )
    result = parse_pidstat(text)
    assert _values(result)["process.cpu.max"] == 150.0
    assert result.problems == [
        "%CPU divided by the CPU count (pidstat -I): %usr + %system + %guest read instead"
    ]


def test_pidstat_average_section_wins_over_the_intervals_it_follows() -> None:
    averages = (
        "\nAverage:      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
        "Average:     1000      4242   20.00    2.00    0.00    0.00   22.00     -  python\n"
    )
    assert _values(parse_pidstat(_TWO_INTERVALS + averages))["process.cpu.max"] == 22.0


# -------------------------------------------------------------------------------- top


def test_top_poster_note_after_the_command_is_dropped() -> None:
    text = (
        "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
        "61758 root      20   0   34.5g   1.5g 382668 R 101.0   0.8   8:53.40 pt_main_thread"
        "   <-- GIL bound\n"
    )
    assert _values(parse_top(text))["process.top_command"] == "pt_main_thread"
