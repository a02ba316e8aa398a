"""pidstat's report pasted (or typed out) as a Markdown table reads as the plain report does.

The real sample is golden pidstat 011, verbatim from the description of
https://github.com/sysstat/sysstat/issues/335 (the search tool's excerpt, cut inside its last
row): ``pidstat -t`` on an Android phone, its CPU columns retyped as a table with an empty
time header, ``----`` delimiters and the threads' ``|__`` marks escaped as ``\\|__``. A fence
or a quote around such a table is the generic unwrapping's (``Probe.safe_parse``): only the
table itself is the pidstat reader's.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from casefile_probes.cpu_load import (
    PIDSTAT_PROBE,
    looks_like_mpstat,
    looks_like_pidstat,
    parse_mpstat,
    parse_pidstat,
)

from .corpus import GOLDEN, check_result, read_sample
from .test_profilers_hand import _values

# https://github.com/sysstat/sysstat/issues/335 (verbatim; see tests/golden/pidstat/SOURCES)
_ISSUE_335 = read_sample(GOLDEN / "pidstat" / "011.txt")
_ISSUE_335_FACTS = {
    "process.cpu.max": 58.82,
    "process.top_command": "droid.ugc.aweme",
    "process.cpu.wait_max": 2.94,
}


def test_the_retyped_table_of_sysstat_335_is_read() -> None:
    """The thread group's row (TGID 26897, TID '-') is the busiest task at 58.82 %, its
    threads below it; the largest %wait is 2.94. Nothing was read before: no header of
    blank-separated columns."""
    result = parse_pidstat(_ISSUE_335)
    assert result.problems == []
    assert _values(result) == _ISSUE_335_FACTS
    assert looks_like_pidstat(_ISSUE_335)


def _fenced(text: str) -> str:
    return f"```\n{text}\n```\n"


def _quoted(text: str) -> str:
    return "".join(f"> {line}" if line.strip() else ">\n" for line in text.splitlines(True))


@pytest.mark.parametrize("wrap", [_fenced, _quoted], ids=["fenced", "quoted"])
def test_a_wrapped_table_reads_as_the_bare_one(wrap: Callable[[str], str]) -> None:
    """The generic unwrapping takes the fence or quote off; a quote's escapes undone, the
    ``|__`` marks split their cells, which are joined back into the command."""
    result = PIDSTAT_PROBE.safe_parse(wrap(_ISSUE_335))
    check_result(result)
    assert _values(result) == _ISSUE_335_FACTS


_TIMED = """\
Linux 6.8.0-45-generic (gpu01) \t10/01/2024 \t_x86_64_\t(32 CPU)

| Time | UID | TGID | TID | %usr | %system | %guest | %wait | %CPU | CPU | Command |
|---|---|---|---|---|---|---|---|---|---|---|
| 11:30:51 | 1000 | - | 7001 | 38.00 | 2.00 | 0.00 | 0.00 | 40.00 | 3 | |__python |
| 11:30:51 | 1000 | - | 7002 | 82.00 | 18.00 | 0.00 | 7.00 | 100.00 | 5 | |__pt_data_worker |
| 11:30:51 | 1000 | - | 7003 | 1.00 | 0.00 | 0.00 | 0.00 | 1.00 | 6 | |__pt_autograd_0 |
"""


def test_a_time_header_and_unescaped_thread_marks() -> None:
    """A ``Time`` header cell is the plain header's time; a ``|__`` left unescaped makes one
    cell more than the header has, joined back into Command (else the busiest thread's
    command read ``- __pt_data_worker``)."""
    result = parse_pidstat(_TIMED)
    assert result.problems == []
    assert _values(result) == {
        "process.cpu.max": 100.0,
        "process.top_command": "pt_data_worker",
        "process.cpu.wait_max": 7.0,
    }


def test_a_table_cut_inside_a_row_says_so() -> None:
    cut = _TIMED[: _TIMED.index(" 7.00 |")]
    result = parse_pidstat(cut)
    assert "1 task row(s) cut short, skipped" in result.problems
    assert _values(result)["process.top_command"] == "python"


def test_mpstat_in_a_table_is_left_to_mpstat_as_before() -> None:
    """Only a header with pidstat's CPU columns is rewritten; mpstat's reading is unchanged
    (it reads no Markdown table), and pidstat does not take an mpstat table for its own."""
    table = (
        "| Time | CPU | %usr | %nice | %sys | %iowait | %irq | %soft | %steal | %guest |"
        " %gnice | %idle |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| 11:30:51 | all | 10.00 | 0.00 | 2.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 |"
        " 88.00 |\n"
    )
    assert not parse_pidstat(table).parsed
    assert not looks_like_pidstat(table)
    assert not parse_mpstat(table).parsed
    assert not looks_like_mpstat(table)
