"""Which of a paste's mpstat or pidstat reports gives the load now, node by node where a
parallel shell ran the tool: the half of the sysstat readers that chooses the rows, apart from
the half that reads them (:mod:`casefile_probes.cpu_sysstat`), because the choice is the same
for both tools and is where averages since boot are kept from the rules.

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

Through a parallel shell (pdsh, clush: ``node008: `` or ``10.0.0.12: `` before every line,
see :mod:`casefile_probes._host_prefix`) each node ran the tool on its own: its lines, the
prefix taken off, are read as a paste of their own (its banners start its reports, its ``-h``
rows are read by its own ``# Time`` header, its times are compared by its own clock), and each
node is judged on its own. A node whose report is an average since boot gives nothing (one
problem names it, with the same words as a single host's); the other nodes' reports are read
together as the host's load, as before. Only where every node with rows averaged since boot is
the result unparsed, as for one host. Each node's problems are named by the nodes that met
them (``node1, node2: 2 mpstat reports in the paste; the last is read``). A paste of which some
line carries no prefix is no parallel shell's as a whole: it is read in one, the rows' nodes
told apart by their prefixes (:func:`casefile_probes._sysstat_rows.row_node`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ._host_prefix import HostLines, shell_said, split_host_prefixes
from ._sysstat_rows import BANNER, Table, leading_labels, stamp
from ._text import clean_paste, is_prompt_line, split_command

__all__ = ["SINCE_BOOT", "Reading", "TablesOf", "read_reports", "runs_since_boot"]

SINCE_BOOT = {
    "mpstat": "mpstat without an interval reports averages since boot, not the load now: "
    "nothing read (rerun as 'mpstat -P ALL 1 5')",
    "pidstat": "pidstat without an interval reports each task's average since boot, not its "
    "use now: nothing read (rerun as 'pidstat -u 1 5')",
}
#: the options of each tool that take the next word as their value (``-p 979``, ``-P ALL``)
_VALUED = {"mpstat": ("-P", "-N", "-I", "-o"), "pidstat": ("-p", "-C", "-G", "-T")}
#: words in front of the tool that leave its command line its own
_WRAPPERS = ("sudo", "time", "command", "exec", "nice", "nohup")
#: lines without a prefix allowed above a parallel shell's (the poster's sentence)
_WORDS_ABOVE = 3
#: nodes named in a problem before the rest are counted
_NODES_NAMED = 5

#: a tool's table reader: the tables of a paste's lines, adding what it meets to the problems
TablesOf = Callable[[list[str], list[str]], list[Table]]


def _banner_commands(text: str) -> dict[int, str]:
    """The line above each report's banner, by the report's number, as a command (a prompt's
    command, or the bare line): a terminal's copy shows what was run, then what it printed."""
    commands: dict[int, str] = {}
    report, above = 0, ""
    for line in clean_paste(text, keep_prompts=True).lines:
        if BANNER.match(line):
            report += 1
            prompted = is_prompt_line(above)
            commands[report] = above.strip() if prompted is None else prompted
            above = ""
        elif line.strip():
            above = line
    return commands


def runs_since_boot(command: str, tool: str) -> bool:
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


#: one table's part in a node's report: its rows' times for the node, and its header's time
#: where the header is the node's own
Held = tuple[set[tuple[str, ...]], tuple[str, ...]]


def _one_time(held: list[Held]) -> bool | None:
    """What one node's times say of its report (the whole report where no shell prefixed it):
    True where its rows and its own headers above them carry one same time, False where they
    show two or more, None where they cannot tell (no time; another node's header, whose clock
    is not its own). ``held``: each table with the node's rows, their times, its header's."""
    times = {stamp for rows, _header in held for stamp in rows}
    if len(times) > 1 or any(header and rows - {header} for rows, header in held):
        return False
    if times and all(header and rows == {header} for rows, header in held):
        return True
    return None


def _since_boot(tables: list[Table], command: str | None, tool: str) -> bool:
    """Whether one report's tables are an average since boot (see the module's docstring):
    its own times decide where they can, node by node where rows carry a parallel shell's
    prefix (each node's clock is its own), else the command above its banner."""
    if any(table.average for table in tables):
        return False
    # each node's part of every table, gathered in one pass: a paste of thousands of nodes
    # must not be scanned once per node
    held: dict[str | None, list[Held]] = {}
    for table in tables:
        for node, rows in table.stamps.items():
            held.setdefault(node, []).append((rows, table.stamp if table.node == node else ()))
    verdicts = [_one_time(parts) for parts in held.values()]
    if False in verdicts:
        return False
    if verdicts and all(verdicts):
        return True
    return command is not None and runs_since_boot(command, tool)


def _report(tables: list[Table], text: str, problems: list[str], tool: str) -> list[Table] | None:
    """The tables of the report to read: the last with rows that is not an average since
    boot. Empty where no report has rows; None where every report with rows is one."""
    reports: dict[int, list[Table]] = {}  # in one pass: a long paste holds thousands
    for table in tables:
        if table.interval or table.average:
            reports.setdefault(table.report, []).append(table)
    order = list(reports)
    commands = _banner_commands(text)
    kept = [n for n in order if not _since_boot(reports[n], commands.get(n), tool)]
    if order and not kept:
        return None
    if len(order) > 1:
        which = "the last" if kept[-1] == order[-1] else "the last not averaged since boot"
        problems.append(f"{len(order)} {tool} reports in the paste; {which} is read")
    return reports[kept[-1]] if kept else []


def _stamped(line: str) -> bool:
    """A line only sysstat prints: its banner, a header or row that starts with a time, or
    ``-h``'s ``# Time`` header (its rows may start with seconds since the epoch)."""
    tokens = line.split()
    return (
        BANNER.match(line) is not None
        or tokens[:2] == ["#", "Time"]
        or bool(stamp(tokens[: leading_labels(tokens)]))
    )


def _by_node(lines: list[str]) -> HostLines | None:
    """Each node's lines where a parallel shell prefixed every line (the poster's sentences
    above and below aside, ``time``'s lines after it), or None. Those lines must hold none of
    the tool's (a plain report beside prefixed lines is no parallel shell's paste), and some
    node's line must be one only sysstat
    prints: a paste of nothing but ``Average:`` rows (``Moyenne:`` in French) is in a prefix's
    shape, its label a valid host name."""
    split = split_host_prefixes(lines, above=_WORDS_ABOVE, below=_WORDS_ABOVE)
    if split is None:
        return None
    if any(
        _stamped(line) or {"%usr", "%user"} & set(line.split())
        for line in (*split.above, *split.below)
    ):
        return None
    if not any(_stamped(line) for got in split.hosts.values() for line in got):
        return None
    return split


def _named(nodes: list[str]) -> str:
    """The nodes that met a problem, the first few by name: a paste may hold hundreds."""
    shown = ", ".join(nodes[:_NODES_NAMED])
    more = len(nodes) - _NODES_NAMED
    return f"{shown} and {more} more" if more > 0 else shown


@dataclass
class Reading:
    """What a paste gives to read, every node's kept report together."""

    #: the tables of the report each node's reading keeps (the whole paste's where no
    #: parallel shell prefixed it), nodes since boot left out
    tables: list[Table] = field(default_factory=list)
    #: whether the tool's reader found any table at all (a header, rows or not)
    found: bool = False
    #: whether every node with rows printed averages since boot: nothing is to be read
    since_boot: bool = False
    #: the problems met, each named by the nodes that met it where a parallel shell ran
    problems: list[str] = field(default_factory=list)


def read_reports(text: str, tool: str, tables_of: TablesOf) -> Reading:
    """The tables to read of a paste of ``tool`` (``mpstat``, ``pidstat``) and its problems:
    node by node through a parallel shell (see the module's docstring), else the paste's."""
    lines = clean_paste(text).lines
    split = _by_node(lines)
    groups = (
        [(None, lines, text)]
        if split is None
        else [(node, got, "\n".join(got)) for node, got in split.hosts.items()]
    )
    reading = Reading()
    met: dict[str, list[str]] = {}
    since_boot = False
    for node, got, own_text in groups:
        problems: list[str] = []
        tables = tables_of(got, problems)
        reading.found = reading.found or bool(tables)
        kept = _report(tables, own_text, problems, tool)
        if kept is None:
            since_boot, problems = True, [SINCE_BOOT[tool]]
        else:
            for table in kept:  # its lines came without their prefix: the group's node
                table.node = table.node or node
            reading.tables += kept
        for problem in problems:
            met.setdefault(problem, []).extend([node] if node is not None else [])
    reading.since_boot = since_boot and not reading.tables
    reading.problems = [
        f"{_named(named)}: {problem}" if named else problem for problem, named in met.items()
    ] + (shell_said(split.said) if split is not None else [])
    return reading
