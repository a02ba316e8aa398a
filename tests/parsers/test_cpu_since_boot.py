"""mpstat and pidstat run without an interval: one report of averages since boot, which must not
reach the rules as the load of the moment (see ``casefile_probes._sysstat_report``). What marks
such a report (one time on header and rows, or the command above its banner), what does not (an
interval report cut to its first block, a title line, pcp's emulation), and what it gives.
The real samples behind these cases are goldens (``tests/golden/{mpstat,pidstat}``, sources in
each ``SOURCES``: mpstat 006, 007 and 009, pidstat 003 and 004 are such reports)."""

from __future__ import annotations

import pytest
from casefile_probes._sysstat_report import runs_since_boot
from casefile_probes.cpu_load import parse_mpstat, parse_pidstat

from casefile.domain.facts import FactValue, ParseResult

MPSTAT_SINCE_BOOT = (
    "mpstat without an interval reports averages since boot, not the load now: nothing read "
    "(rerun as 'mpstat -P ALL 1 5')"
)
PIDSTAT_SINCE_BOOT = (
    "pidstat without an interval reports each task's average since boot, not its use now: "
    "nothing read (rerun as 'pidstat -u 1 5')"
)

_BANNER = "Linux 6.8.0-45-generic (gpu-box)  10/01/2024  _x86_64_  (4 CPU)\n\n"
_HEADER = (
    "{t}  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n"
)
_ROWS = (
    "{t}  all    1.50    0.00    0.50    0.10    0.00    0.00    0.00    0.00    0.00   97.90\n"
    "{t}    0    3.00    0.00    1.00    0.20    0.00    0.00    0.00    0.00    0.00   95.80\n"
    "{t}    1    0.00    0.00    0.00    0.00    0.00    0.00    0.00    0.00    0.00  100.00\n"
)


def _mpstat(header_time: str, row_time: str, command: str = "") -> str:
    lines = f"{command}\n" if command else ""
    return lines + _BANNER + _HEADER.format(t=header_time) + _ROWS.format(t=row_time)


def _values(result: ParseResult) -> dict[str, FactValue]:
    return {fact.name: fact.value for fact in result.facts if fact.subject == "host"}


def _unparsed_since_boot(result: ParseResult, problem: str) -> None:
    assert not result.parsed and not result.facts
    assert result.problems == [problem]
    assert "\n" not in problem


# ------------------------------------------------------------------------------ mpstat


@pytest.mark.parametrize("time", ["10:38:38 AM", "14:05:26", "14时05分26秒"])
def test_mpstat_one_time_on_header_and_rows_is_since_boot(time: str) -> None:
    _unparsed_since_boot(parse_mpstat(_mpstat(time, time)), MPSTAT_SINCE_BOOT)


def test_mpstat_interval_cut_to_its_first_block_is_read() -> None:
    """The header carries the interval's start, the rows its end: two times, an interval."""
    result = parse_mpstat(_mpstat("10:38:38 AM", "10:38:39 AM"))
    assert _values(result)["cpu.busy.mean"] == 2.1
    assert result.problems == []


def test_mpstat_title_without_interval_does_not_overrule_the_times() -> None:
    """Posters title a paste ``mpstat`` whatever they ran (golden mpstat/003)."""
    assert parse_mpstat(_mpstat("12:00:01", "12:00:02", command="mpstat")).parsed


def test_mpstat_since_boot_through_pdsh() -> None:
    text = (
        "node008: 11:19:24     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal"
        "  %guest  %gnice   %idle\n"
        "node008: 11:19:24     all    2.09    0.00    0.00    0.00    0.00    0.00    0.00"
        "    0.00    0.00   97.91\n"
    )
    _unparsed_since_boot(parse_mpstat(text), MPSTAT_SINCE_BOOT)


def test_mpstat_average_rows_are_an_interval_report() -> None:
    text = (
        _mpstat("12:00:01", "12:00:01") + _HEADER.format(t="Average:") + _ROWS.format(t="Average:")
    )
    assert parse_mpstat(text).parsed


def test_mpstat_since_boot_after_an_interval_report_reads_the_interval_one() -> None:
    text = _mpstat("12:00:01", "12:00:02") + "\n" + _mpstat("12:05:00", "12:05:00")
    result = parse_mpstat(text)
    assert _values(result)["cpu.busy.mean"] == 2.1
    assert result.problems == [
        "2 mpstat reports in the paste; the last not averaged since boot is read"
    ]


def test_mpstat_since_boot_before_an_interval_report_keeps_the_old_problem() -> None:
    text = _mpstat("12:05:00", "12:05:00") + "\n" + _mpstat("12:00:01", "12:00:02")
    assert parse_mpstat(text).problems == ["2 mpstat reports in the paste; the last is read"]


def test_pcp_mpstat_is_never_since_boot() -> None:
    """pcp's emulation prints no time on its header and has no since-boot mode."""
    text = (
        "$ pcp mpstat -P ALL\n"
        "Linux  5.15.0-94-generic  (bozo.localdomain)  04/05/24  x86_64    (12 CPU)\n\n"
        "Timestamp \tCPU\t%usr \t%nice \t%sys \t%iowait \t%irq \t%soft \t%steal \t%guest"
        " \t%nice \t%idle \n"
        "07:02:55  \t0  \t25.13\t0.0   \t1.89 \t3.49    \t0.0  \t0.0   \t0.0    \t22.63 "
        " \t0.0   \t67.5  \n"
    )
    assert parse_mpstat(text).parsed


# ----------------------------------------------------------------------------- pidstat

_PIDSTAT_H = (
    "Linux 6.8.0 (gpu-box)  10/01/2024  _x86_64_  (32 CPU)\n\n"
    "#      Time   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
    " 1727776802  1000      4242   80.00    5.00    0.00    0.00   85.00     3  python\n"
)


def test_pidstat_one_time_on_header_and_rows_is_since_boot() -> None:
    text = (
        "12:00:01  UID  PID   %usr %system %guest %wait   %CPU CPU Command\n"
        "12:00:01 1000 4242 150.00    9.00   0.00  1.00 159.00   3 python train.py\n"
    )
    _unparsed_since_boot(parse_pidstat(text), PIDSTAT_SINCE_BOOT)


@pytest.mark.parametrize(
    "command",
    ["pidstat -h -u -p ALL", "[root@box ~]# pidstat -uh", "$ sudo pidstat -h -p 4242 | cat"],
)
def test_pidstat_h_under_a_command_without_interval_is_since_boot(command: str) -> None:
    _unparsed_since_boot(parse_pidstat(f"{command}\n{_PIDSTAT_H}"), PIDSTAT_SINCE_BOOT)


@pytest.mark.parametrize("command", ["", "pidstat -h -u 1 5", "I ran pidstat", "pcp pidstat -h"])
def test_pidstat_h_without_such_a_command_is_read(command: str) -> None:
    """``-h`` prints no header time: without a command that says so, nothing tells."""
    result = parse_pidstat(f"{command}\n{_PIDSTAT_H}")
    assert _values(result)["process.cpu.max"] == 85.0


def test_pidstat_h_rows_of_two_times_are_an_interval_report_whatever_the_command() -> None:
    later = " 1727776803  1000      4242   90.00    5.00    0.00    0.00   95.00     3  python\n"
    result = parse_pidstat(f"pidstat -h\n{_PIDSTAT_H}{later}")
    assert _values(result)["process.cpu.max"] == 90.0


@pytest.mark.parametrize(
    ("command", "tool", "since_boot"),
    [
        ("mpstat", "mpstat", True),
        ("mpstat -P ALL", "mpstat", True),
        ("mpstat -P ALL 0", "mpstat", True),
        ("/usr/bin/mpstat -A", "mpstat", True),
        ("LC_ALL=C sudo mpstat -P ALL > out.txt", "mpstat", True),
        ("mpstat -P ALL ; pcp mpstat -P ALL -s4", "mpstat", True),
        ("mpstat -P ALL; sleep 1", "mpstat", True),
        ("mpstat -P ALL 1 5", "mpstat", False),
        ("mpstat 2", "mpstat", False),
        ("mpstat -P 1", "mpstat", True),  # CPU 1, no interval
        ("mpstat -P ALL $INTERVAL", "mpstat", False),
        ("pcp mpstat -P ALL", "mpstat", False),
        ("ssh node1 mpstat", "mpstat", False),
        ("pidstat -u -p 979", "pidstat", True),
        ("pidstat -drshut -p ALL", "pidstat", True),
        ("pidstat -p 979 1", "pidstat", False),
        ("pidstat -C python 1", "pidstat", False),
        ("pidstat -U 5", "pidstat", False),  # -U takes no number: 5 is the interval
        ("pidstat -U alice", "pidstat", True),
        ("pidstat -e sleep 5", "pidstat", False),
        ("pidstat -p $(pgrep java)", "pidstat", False),
        ("pidstat", "mpstat", False),
    ],
)
def test_the_command_line_says_since_boot(command: str, tool: str, since_boot: bool) -> None:
    assert runs_since_boot(command, tool) is since_boot


def test_mpstat_average_rows_through_pdsh_are_averages() -> None:
    """``node008: Average:`` is an average row, read as sysstat's own average (as without
    pdsh): the host's digits are no time, so it is not taken for one more interval row."""
    row = "    0.00    0.00    0.00    0.00    0.00    0.00   {idle}\n"
    text = (
        "node008: 11:19:24     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal"
        "  %guest  %gnice   %idle\n"
        "node008: 11:19:25     all   40.00    0.00   10.00" + row.format(idle="50.00") + ""
        "node008: 11:19:26     all   60.00    0.00   10.00" + row.format(idle="30.00") + ""
        "node008: Average:     all   50.00    0.00   10.00" + row.format(idle="90.00")
    )
    result = parse_mpstat(text)
    assert result.parsed
    assert _values(result)["cpu.busy.mean"] == 10.0
