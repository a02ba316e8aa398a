"""mpstat and pidstat (sysstat) reports read into host CPU facts: the half of the host CPU
readers whose tables are column-named rows under a ``Linux … (N CPU)`` banner.

:mod:`casefile_probes.cpu_load` declares the probes and documents the facts; this module holds
the sysstat readers apart from top's, because the two share nothing but the number helpers
below: mpstat's and pidstat's rows are read by the column names of the header above them, with
a time stamp (or a locale's ``Average:``) in front, while top is a screen of labelled lines.

Averages since boot. Without an interval (``mpstat``, ``mpstat -P ALL``, ``pidstat -u -p PID``,
or an interval of 0) sysstat prints one report of averages over the whole time since boot
(pidstat: each task's CPU time so far over the time since boot), not the load of the moment: a
host idle for a week and saturated by the job for the last minute reads idle. The rules read
``cpu.busy*``, ``cpu.iowait`` and ``process.*`` as the load while the job runs, so such a
report gives no fact: its result is unparsed, with one problem saying why and what to run
instead (``mpstat -P ALL 1 5``, ``pidstat -u 1 5``). A report is taken for one only where the
text makes it certain:

- its header and all its rows carry one and the same time. sysstat stamps a header with the
  start of its interval and the rows under it with the end, so an interval report shows two
  times even when cut to its first block (``11:30:49`` over ``11:30:51``); only a report since
  boot prints one (``09:41:49`` over ``09:41:49``);
- or, where the report prints no time to compare (``pidstat -h``'s ``# Time`` header), the
  command on the line above its ``Linux …`` banner runs sysstat's tool with no interval
  (``pidstat -drshut -p ALL``). A command never overrules the times: posters title an interval
  report ``mpstat``.

``Average:`` rows, rows of several times, or a header time unlike its rows' make a report an
interval one; where nothing tells, it is read as one, as before. Of several reports in one
paste, the last that is not since boot is read. pcp's emulation (a ``Timestamp`` header, no
time on it) never averages since boot, and a ``pcp mpstat`` command is not sysstat's.

Through a parallel shell (pdsh: ``node008: `` or ``10.0.0.12: `` before every line) times are
compared node by node, a node's rows with its own header: each node prints by its own clock,
so a report since boot from nodes a second apart shows one time per node, several in all.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult

from ._host_prefix import is_host_name
from ._text import clean_paste, is_prompt_line, split_command

__all__ = ["number", "parse_mpstat", "parse_pidstat", "pct", "strip_annotation"]

#: a row's leading tokens: a time (``11:30:51``, ``AM``, ``14时05分27秒``), or a label ending in
#: a colon: the locale's ``Average:``, a parallel shell's ``node008:`` or ``10.0.0.12:``
_TIME_TOKEN = re.compile(
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,6})?|[AaPp]\.?[Mm]\.?"
    r"|\d{1,2}[时時]\d{1,2}分\d{1,2}秒|[^\s\d]\S{0,40}:|\d{1,3}(?:\.\d{1,3}){3}:)$"
)
#: the poster's cut: "...", "....", "[...]", "…"
_ELISION = re.compile(r"^\s{0,16}\[?(?:\.{3,8}|…{1,3})\]?\s{0,16}$")
#: sysstat's first line, "Linux 6.8.0 (host)  10/01/2024  _x86_64_  (4 CPU)", indented with
#: the rest of a paste that a reading has not unwrapped
_BANNER = re.compile(r"^\s{0,16}Linux\s+\S+\s+\(")
_DECIMAL = re.compile(r"^[-+]?\d{1,12}(?:[.,]\d{1,12})?$")
#: a note the poster typed after a row ("java          ← TGID aggregate", "python  <-- this"):
#: an arrow after a run of blanks, never part of a command the tool printed
_ANNOTATION = re.compile(r"\s{2,}(?:←|<-{1,3}|<=+)\s.*$")


def number(token: str) -> float | None:
    """A cell as a float; a decimal comma is read as a point, anything else is no value."""
    if not _DECIMAL.match(token):
        return None
    return float(token.replace(",", "."))


def strip_annotation(line: str) -> str:
    """The row without the poster's trailing arrow note, so that the command stays the tool's."""
    return _ANNOTATION.sub("", line)


def pct(value: float) -> float:
    """A percentage as facts carry it: two decimals, as the tools print them."""
    return round(value, 2)


# ---------------------------------------------------------------------- sysstat


def _prefix(tokens: list[str]) -> int:
    """How many leading tokens are the row's time stamp or label (``11:30:51 AM``,
    ``14时05分27秒``, ``Average:``, a pdsh ``node008:``)."""
    count = 0
    while count < len(tokens) and _TIME_TOKEN.match(tokens[count]):
        count += 1
    return count


def _is_average(tokens: list[str], prefix: int) -> bool:
    """An ``Average:`` row (whatever the locale calls it): labels without a time, a pdsh
    ``node008:`` among them (its digits are a host's, not a time's)."""
    return prefix > 0 and not _stamp(tokens[:prefix])


def _stamp(tokens: list[str]) -> tuple[str, ...]:
    """The time among a row's (or a header's) leading tokens, without the labels beside it (a
    pdsh ``node008:`` or ``10.0.0.12:``, ``Average:``): ``("11:30:51", "AM")``; ``()`` where
    none is printed. No time ends in a colon, so every token that does is a label."""
    kept = tuple(token for token in tokens if not token.endswith(":"))
    return kept if any(ch.isdigit() for ch in "".join(kept)) else ()


def _node(tokens: list[str], prefix: int) -> str | None:
    """The node a parallel shell named in front of a row or a header (``node008: 11:19:24``,
    ``10.0.0.12: Average:``): a host name and a colon, first of two leading tokens or more;
    None where no shell prefixed the line (``Average:`` alone is sysstat's label)."""
    if prefix < 2 or not tokens[0].endswith(":"):
        return None
    name = tokens[0][:-1]
    return name if is_host_name(name) else None


@dataclass
class _Table:
    """Rows of a sysstat report, read by the column names of the header above them."""

    columns: list[str]
    #: which report of the paste (each starts with a "Linux … (N CPU)" banner)
    report: int = 0
    #: the header's own time (the start of its interval, or the one time of a report since
    #: boot); () where it prints none
    stamp: tuple[str, ...] = ()
    #: the node a parallel shell named in front of the header (None: no prefix)
    node: str | None = None
    interval: list[list[str]] = field(default_factory=list)
    average: list[list[str]] = field(default_factory=list)
    #: the times of the interval rows, by the node that printed them (None: no prefix); a
    #: node with interval rows here has an entry, empty where its rows print no time
    stamps: dict[str | None, set[tuple[str, ...]]] = field(default_factory=dict)

    def add_interval(self, row: list[str], node: str | None, stamp: tuple[str, ...]) -> None:
        """One interval row of ``node``, with its time (``()``: none printed)."""
        self.interval.append(row)
        self.stamps.setdefault(node, set()).update(filter(None, [stamp]))


_SINCE_BOOT = {
    "mpstat": "mpstat without an interval reports averages since boot, not the load now: "
    "nothing read (rerun as 'mpstat -P ALL 1 5')",
    "pidstat": "pidstat without an interval reports each task's average since boot, not its "
    "use now: nothing read (rerun as 'pidstat -u 1 5')",
}
#: the options of each tool that take the next word as their value (``-p 979``, ``-P ALL``)
_VALUED = {"mpstat": ("-P", "-N", "-I", "-o"), "pidstat": ("-p", "-C", "-G", "-T")}
#: words in front of the tool that leave its command line its own
_WRAPPERS = ("sudo", "time", "command", "exec", "nice", "nohup")


def _banner_commands(text: str) -> dict[int, str]:
    """The line above each report's banner, by the report's number, as a command (a prompt's
    command, or the bare line): a terminal's copy shows what was run, then what it printed."""
    commands: dict[int, str] = {}
    report, above = 0, ""
    for line in clean_paste(text, keep_prompts=True).lines:
        if _BANNER.match(line):
            report += 1
            prompted = is_prompt_line(above)
            commands[report] = above.strip() if prompted is None else prompted
            above = ""
        elif line.strip():
            above = line
    return commands


def _runs_since_boot(command: str, tool: str) -> bool:
    """Whether a command runs sysstat's ``tool`` with no interval (or 0, which means the
    same): ``mpstat -P ALL``, ``pidstat -u -p 979``. False where it gives one, and where it
    cannot say: another program first (``pcp mpstat`` never averages since boot; ``ssh``,
    ``watch``), prose, a word the shell fills in (``$INTERVAL``), ``pidstat -e PROGRAM``."""
    words = split_command(command)
    while words and (words[0] in _WRAPPERS or re.match(r"^[A-Za-z_]\w*=", words[0])):
        words = words[1:]
    if not words or words[0].rsplit("/", 1)[-1] != tool:
        return False
    args: list[str] = []
    for word in words[1:]:  # up to where the shell ends the command
        if word in ("|", "||", "|&", ";", "&", "&&") or word.startswith((">", "<", "2>")):
            break
        args.append(word.rstrip(";&"))
        if args[-1] != word:
            break
    positional: list[str] = []
    at = 0
    while at < len(args):
        word = args[at]
        if word == "-e":
            return False
        # pidstat's -U takes a user name where one follows it: a number there is the interval
        user = word == "-U" and at + 1 < len(args) and not args[at + 1][:1].isdigit()
        valued = word in _VALUED[tool] or (user and not args[at + 1].startswith("-"))
        if not word.startswith("-"):
            positional.append(word)
        at += 2 if valued else 1
    return all(word.isdigit() for word in positional) and not any(map(int, positional[:1]))


def _one_time(tables: list[_Table], node: str | None) -> bool | None:
    """What one node's times say of its report (the whole report where no shell prefixed it):
    True where its rows and its own headers above them carry one same time, False where they
    show two or more, None where they cannot tell (no time; another node's header, whose clock
    is not its own). ``held``: each table with the node's rows, their times, its header's."""
    held = [(t.stamps[node], t.stamp if t.node == node else ()) for t in tables if node in t.stamps]
    times = {stamp for rows, _header in held for stamp in rows}
    if len(times) > 1 or any(header and rows - {header} for rows, header in held):
        return False
    if times and all(header and rows == {header} for rows, header in held):
        return True
    return None


def _since_boot(tables: list[_Table], command: str | None, tool: str) -> bool:
    """Whether one report's tables are an average since boot (see the module's docstring):
    its own times decide where they can, node by node through a parallel shell (each node's
    clock is its own), else the command above its banner."""
    if any(table.average for table in tables):
        return False
    nodes = dict.fromkeys(node for table in tables for node in table.stamps)
    verdicts = [_one_time(tables, node) for node in nodes]
    if False in verdicts:
        return False
    if verdicts and all(verdicts):
        return True
    return command is not None and _runs_since_boot(command, tool)


def _report(tables: list[_Table], text: str, problems: list[str], tool: str) -> list[_Table] | None:
    """The tables of the report to read: the last with rows that is not an average since
    boot. Empty where no report has rows; None where every report with rows is one."""
    filled = [table for table in tables if table.interval or table.average]
    order = list(dict.fromkeys(table.report for table in filled))
    reports = {n: [table for table in filled if table.report == n] for n in order}
    commands = _banner_commands(text)
    kept = [n for n in order if not _since_boot(reports[n], commands.get(n), tool)]
    if order and not kept:
        return None
    if len(order) > 1:
        which = "the last" if kept[-1] == order[-1] else "the last not averaged since boot"
        problems.append(f"{len(order)} {tool} reports in the paste; {which} is read")
    return reports[kept[-1]] if kept else []


def _aggregate(
    rows: list[list[str]], key: Callable[[list[str]], str], column: int
) -> dict[str, float]:
    """The mean of one column per key over the rows that have a number there."""
    sums: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        value = number(row[column]) if column < len(row) else None
        if value is not None:
            sums[key(row)].append(value)
    return {name: sum(values) / len(values) for name, values in sums.items()}


# ----------------------------------------------------------------------- mpstat


def _mpstat_tables(lines: list[str], problems: list[str]) -> list[_Table]:
    tables: list[_Table] = []
    cut: list[str] = []
    report = 0
    # the last header of this report, and each node's (a parallel shell's lines interleave)
    last: _Table | None = None
    headed: dict[str | None, _Table] = {}
    for line in lines:
        if _BANNER.match(line):
            report, last, headed = report + 1, None, {}
            continue
        tokens = line.split()
        for name in ("CPU", "NODE"):
            if name in tokens and "%idle" in tokens[tokens.index(name) :]:
                at = tokens.index(name)
                node = _node(tokens, at)
                last = headed[node] = _Table(tokens[at:], report, _stamp(tokens[:at]), node)
                tables.append(last)
                break
        else:
            prefix = _prefix(tokens)
            node = _node(tokens, prefix)
            table = headed.get(node, last)
            rest = tokens[prefix:]
            if table is None or not rest or not (rest[0] == "all" or rest[0].isdigit()):
                continue
            if len(rest) < len(table.columns):
                cut.append(rest[0])
                continue
            if _is_average(tokens, prefix):
                table.average.append(rest)
            else:
                table.add_interval(rest, node, _stamp(tokens[:prefix]))
    if cut:
        problems.append(f"{len(cut)} row(s) cut short, skipped (CPU {', '.join(cut[:5])})")
    return tables


def parse_mpstat(text: str) -> ParseResult:
    """Facts from ``mpstat -P ALL`` (or plain ``mpstat``, or pcp's emulation)."""
    lines = clean_paste(text).lines
    result = ParseResult()
    tables = _report(_mpstat_tables(lines, result.problems), text, result.problems, "mpstat")
    if tables is None:
        return ParseResult.unparsed(_SINCE_BOOT["mpstat"])
    if not tables:
        return ParseResult.unparsed(
            "no mpstat rows found (a 'CPU … %idle' header with rows under it)"
        )
    averages = [(table, row) for table in tables for row in table.average]
    chosen = averages or [(table, row) for table in tables for row in table.interval]
    idle: dict[str, list[float]] = defaultdict(list)
    iowait: dict[str, list[float]] = defaultdict(list)
    nodes = False
    for table, row in chosen:
        columns = table.columns
        if columns[0] == "NODE" and row[0] != "all":
            nodes = True
            continue
        at = len(columns) - 1 - columns[::-1].index("%idle")
        value = number(row[at])
        if value is not None:
            idle[row[0]].append(value)
        if "%iowait" in columns:
            wait = number(row[columns.index("%iowait")])
            if wait is not None:
                iowait[row[0]].append(wait)
    if nodes:
        result.problems.append(
            "per-node rows (mpstat -N) are not cores: only the 'all' row is read"
        )
    busy = {
        name: max(0.0, 100.0 - sum(values) / len(values))
        for name, values in idle.items()
        if name != "all"
    }
    for name in sorted(busy, key=int):
        result.add("cpu.busy", pct(busy[name]), f"cpu{int(name)}", "%")
    if busy:
        result.add("cpu.busy.max", pct(max(busy.values())), "host", "%")
    if "all" in idle:
        mean = max(0.0, 100.0 - sum(idle["all"]) / len(idle["all"]))
        result.add("cpu.busy.mean", pct(mean), "host", "%")
    elif busy:
        result.add("cpu.busy.mean", pct(sum(busy.values()) / len(busy)), "host", "%")
    waits = iowait.get("all") or [v for name, vs in iowait.items() if name != "all" for v in vs]
    if waits:
        result.add("cpu.iowait", pct(sum(waits) / len(waits)), "host", "%")
    if not result.facts:
        return ParseResult.unparsed("mpstat rows without a readable %idle value")
    return result


# ---------------------------------------------------------------------- pidstat

_TASK_COLUMNS = ("UID", "USER", "PID", "TGID", "TID")


def _pidstat_tables(lines: list[str], problems: list[str]) -> list[_Table]:
    tables: list[_Table] = []
    # the table of the last header of this report, and of each node's (a parallel shell's
    # lines interleave); None after a header of another report (-d, -r: no %CPU)
    last: _Table | None = None
    headed: dict[str | None, _Table | None] = {}
    hash_prefix = 0
    cut = 0
    report = 0
    for line in lines:
        if _BANNER.match(line):
            report, last, headed = report + 1, None, {}
            continue
        tokens = line.split()
        if "Command" in tokens and any(name in tokens for name in ("PID", "TID", "TGID")):
            node = _node(tokens, _prefix(tokens))
            last = headed[node] = None
            if "%CPU" in tokens:
                start = min(tokens.index(name) for name in _TASK_COLUMNS if name in tokens)
                last = headed[node] = _Table(tokens[start:], report, _stamp(tokens[:start]), node)
                tables.append(last)
                # "-h": "# Time UID …" and rows "09:30:08 0 …" (or seconds since the epoch)
                hash_prefix = start - 1 if tokens[0] == "#" else 0
            continue
        if not tokens or _ELISION.match(line):
            continue
        tokens = strip_annotation(line).split()
        prefix = _prefix(tokens)
        node = _node(tokens, prefix)
        table = headed.get(node, last)
        if table is None:
            continue
        average = _is_average(tokens, prefix)
        if hash_prefix and not average:
            prefix = hash_prefix
        rest = tokens[prefix:]
        columns = table.columns
        if len(rest) < len(columns):
            # a row cut short holds numbers; a closing backtick or a stray word is no row
            cut += any(_DECIMAL.match(token) for token in rest)
            continue
        if not all(
            rest[columns.index(n)].isdigit() or rest[columns.index(n)] == "-"
            for n in ("PID", "TGID", "TID")
            if n in columns
        ):
            continue
        if average:
            table.average.append(rest)
        else:
            table.add_interval(rest, node, _stamp(tokens[:prefix]))
    if cut:
        problems.append(f"{cut} task row(s) cut short, skipped")
    return tables


def _cell(row: list[str], columns: list[str], name: str) -> float | None:
    return number(row[columns.index(name)]) if name in columns else None


def _task_total(row: list[str], columns: list[str]) -> float | None:
    """``%usr + %system + %guest`` of one row: the task's use in units of one core."""
    parts = [_cell(row, columns, name) for name in ("%usr", "%system", "%guest")]
    if parts[0] is None or parts[1] is None:
        return None
    return sum(part for part in parts if part is not None)


def _divided_by_cpus(rows: list[list[str]], columns: list[str]) -> bool:
    """Whether ``-I`` divided %CPU by the CPU count: every busy row's %usr + %system +
    %guest is well above its %CPU (``554 + 68`` beside ``102.81`` on six CPUs). Without -I
    the two agree to rounding, or %CPU is capped below them by a little (a thread group at
    ``100`` beside ``116``), so one and a half times is the line."""
    ratios = []
    for row in rows:
        share, total = _cell(row, columns, "%CPU"), _task_total(row, columns)
        if share is not None and total is not None and share > 0:
            ratios.append(total / share)
    return bool(ratios) and min(ratios) >= 1.5


def _per_core(rows: list[list[str]], columns: list[str]) -> list[list[str]]:
    """Rows whose %CPU cell holds the task's use in units of one core (see
    :func:`_divided_by_cpus`), so that the fact keeps its meaning: 100 is one core."""
    at = columns.index("%CPU")
    fixed = []
    for row in rows:
        total = _task_total(row, columns)
        fixed.append([*row[:at], f"{total:.2f}", *row[at + 1 :]] if total is not None else row)
    return fixed


def parse_pidstat(text: str) -> ParseResult:
    """Facts from ``pidstat -u`` (``-t`` threads, ``-h`` one-line and combined reports too)."""
    lines = clean_paste(text).lines
    result = ParseResult()
    tables = _pidstat_tables(lines, result.problems)
    if not tables:
        return ParseResult.unparsed("no pidstat CPU report found (a header with %CPU and Command)")
    filled = _report(tables, text, result.problems, "pidstat")
    if filled is None:
        return ParseResult.unparsed(_SINCE_BOOT["pidstat"])
    if not filled:
        return ParseResult.unparsed(
            "pidstat printed headers but no task rows (no task matched or none was active)"
        )
    use_average = any(table.average for table in filled)
    cpu: dict[str, float] = {}
    wait: dict[str, float] = {}
    commands: dict[str, str] = {}
    for table in filled:
        rows = table.average if use_average else table.interval
        columns = table.columns
        if _divided_by_cpus(rows, columns):
            rows = _per_core(rows, columns)
            result.problems.append(
                "%CPU divided by the CPU count (pidstat -I): %usr + %system + %guest read instead"
            )
        command_at = columns.index("Command")
        ids = [columns.index(n) for n in ("PID", "TGID", "TID") if n in columns]

        def key(row: list[str], ids: list[int] = ids, command_at: int = command_at) -> str:
            name = " ".join([*(row[i] for i in ids), *row[command_at:]])
            commands[name] = " ".join(row[command_at:]).removeprefix("|__")
            return name

        cpu.update(_aggregate(rows, key, columns.index("%CPU")))
        if "%wait" in columns:
            wait.update(_aggregate(rows, key, columns.index("%wait")))
    if not cpu:
        return ParseResult.unparsed("pidstat task rows without a readable %CPU value")
    busiest = max(cpu, key=lambda name: cpu[name])
    result.add("process.cpu.max", pct(cpu[busiest]), "host", "%")
    result.add("process.top_command", commands[busiest], "host")
    if wait:
        result.add("process.cpu.wait_max", pct(max(wait.values())), "host", "%")
    return result
