"""Host CPU load: ``top``, ``mpstat`` and ``pidstat``, pasted when a GPU waits on its host.

A GPU that idles between kernels is often fed by one process pinned at a full core (a data
loader, tokenisation, the Python training loop itself) or sits on a host busy with something
else (iowait on a slow disk, softirqs from the network). These three probes say which: how busy
the host is as a whole, how busy its busiest core is, and which task is the busiest. Values stay
percentages, as the tools print them (a task can pass 100 %: one core is 100).

Facts on ``host``:

- ``cpu.busy.mean`` (%): 100 − idle of the host as a whole: top's ``%Cpu(s)`` (or older
  ``Cpu(s)``) line, mpstat's ``all`` row; from top's per-CPU lines alone (the "1" key) the mean
  of the cores, and in top's graph mode (``t``) user + system;
- ``cpu.iowait`` (%): ``wa`` / ``%iowait`` of the same line or row;
- ``cpu.busy.max`` (%): the busiest core, where per-core lines or rows are shown;
- ``process.cpu.max`` (%) and ``process.top_command`` (str): the busiest task of top's process
  table or of pidstat (threads of ``-t`` count as tasks; their ``|__`` mark is dropped);
- ``process.cpu.wait_max`` (%): pidstat's largest ``%wait`` (time runnable but not running).

Per core (``cpu0``, ``cpu1`` …): ``cpu.busy`` (%).

Several top screens in one paste: the last is read; likewise the last mpstat or pidstat report
(each starts with its ``Linux … (N CPU)`` banner), and of it the ``Average:`` rows when printed,
else the mean of every interval's rows. Rows cut short are skipped and said as a
problem; mpstat's per-node rows (``-N``) are not cores, so only their ``all`` row is read.
Decimal commas (``99,7 id``) are read as points.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import clean_paste, natural_key

__all__ = [
    "MPSTAT_PROBE",
    "PIDSTAT_PROBE",
    "PROBE",
    "looks_like_mpstat",
    "looks_like_pidstat",
    "looks_like_top",
    "parse_mpstat",
    "parse_pidstat",
    "parse_top",
]

_NUM = r"\d{1,4}(?:[.,]\d{1,4})?"
# "%Cpu(s):", "Cpu(s):", "%Cpu0  :", "Cpu12 :": a line may hold several (top's 2- and
# 4-column layouts), so each label is found and the text up to the next one read alone.
_CPU_LABEL = re.compile(r"%?Cpu(?P<id>\(s\)|\d{1,5})\s{0,8}:")
_CPU_FIELD = re.compile(
    rf"(?<![\d.,])(?P<v>{_NUM})\s{{0,3}}%?\s{{0,3}}(?P<k>us|sy|ni|id|wa|hi|si|st)\b"
)
_CPU_GRAPH = re.compile(rf"^\s{{0,16}}(?P<us>{_NUM})/(?P<sy>{_NUM})\s{{1,16}}\d{{1,3}}\s{{0,4}}\[")
_TOP_HEADER = re.compile(r"^top - ")
_TIME_TOKEN = re.compile(
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,6})?|[AaPp]\.?[Mm]\.?"
    r"|\d{1,2}[时時]\d{1,2}分\d{1,2}秒|[^\s\d]\S{0,40}:)$"
)
#: the poster's cut: "...", "....", "[...]", "…"
_ELISION = re.compile(r"^\s{0,16}\[?(?:\.{3,8}|…{1,3})\]?\s{0,16}$")
_BANNER = re.compile(r"^Linux\s+\S+\s+\(")
_DECIMAL = re.compile(r"^[-+]?\d{1,12}(?:[.,]\d{1,12})?$")

_LOOKS_TOP = re.compile(
    r"^(?:top - \d{1,2}:\d{2}:\d{2} |%?Cpu(?:\(s\)|\d{1,5})\s{0,8}:\s{0,8}\d"
    r"|\s{0,12}PID\s+USER\s+PR\s+NI\s+VIRT\b)",
    re.M,
)
_LOOKS_MPSTAT = re.compile(
    r"\b(?:CPU|NODE)\s+%us(?:e)?r\s+%nice\s+%sys\s+%iowait\b[^\n]{0,200}%idle", re.M
)
_LOOKS_PIDSTAT = re.compile(r"\b(?:PID|TID)\s+%us(?:e)?r\s+%system\s+(?:%guest|%CPU)\b")


def looks_like_top(text: str) -> bool:
    """A top screen: its first line, a CPU summary or per-CPU line, or its process header."""
    return isinstance(text, str) and _LOOKS_TOP.search(text) is not None


def looks_like_mpstat(text: str) -> bool:
    """An mpstat header: ``CPU %usr %nice %sys %iowait … %idle`` (or ``NODE`` for ``-N``)."""
    return isinstance(text, str) and _LOOKS_MPSTAT.search(text) is not None


def looks_like_pidstat(text: str) -> bool:
    """A pidstat CPU header: ``PID`` (or ``TID``) then ``%usr %system %guest``."""
    return isinstance(text, str) and _LOOKS_PIDSTAT.search(text) is not None


def _number(token: str) -> float | None:
    """A cell as a float; a decimal comma is read as a point, anything else is no value."""
    if not _DECIMAL.match(token):
        return None
    return float(token.replace(",", "."))


def _pct(value: float) -> float:
    return round(value, 2)


# ---------------------------------------------------------------------------- top


@dataclass
class _Screen:
    """One top screen: its summary line, per-CPU lines and process rows."""

    summary: dict[str, float] | None = None
    cores: dict[str, dict[str, float]] = field(default_factory=dict)
    header: list[str] | None = None
    rows: list[list[str]] = field(default_factory=list)

    def empty(self) -> bool:
        return self.summary is None and not self.cores and not self.rows


def _cpu_values(segment: str) -> dict[str, float]:
    """``us``, ``sy`` … of one CPU line's text; graph mode gives ``us`` and ``sy`` only."""
    graph = _CPU_GRAPH.match(segment)
    if graph is not None:
        return {
            "us": float(graph["us"].replace(",", ".")),
            "sy": float(graph["sy"].replace(",", ".")),
        }
    return {m["k"]: float(m["v"].replace(",", ".")) for m in _CPU_FIELD.finditer(segment)}


def _busy(values: dict[str, float]) -> float | None:
    if "id" in values:
        return max(0.0, 100.0 - values["id"])
    if "us" in values and "sy" in values and len(values) == 2:
        return values["us"] + values["sy"]
    return None


def _read_cpu_line(line: str, screen: _Screen) -> bool:
    labels = list(_CPU_LABEL.finditer(line))
    if not labels or line[: labels[0].start()].strip():
        return False
    for index, label in enumerate(labels):
        end = labels[index + 1].start() if index + 1 < len(labels) else len(line)
        values = _cpu_values(line[label.end() : end])
        if not values:
            continue
        if label["id"] == "(s)":
            screen.summary = values
        else:
            screen.cores[f"cpu{int(label['id'])}"] = values
    return True


def _is_process_header(tokens: list[str]) -> bool:
    return "PID" in tokens and "%CPU" in tokens and tokens[-1].upper() == "COMMAND"


def _screens(lines: list[str]) -> list[_Screen]:
    screens = [_Screen()]
    for line in lines:
        if _TOP_HEADER.match(line.lstrip()) and not screens[-1].empty():
            screens.append(_Screen())
        screen = screens[-1]
        if _read_cpu_line(line.strip(), screen):
            continue
        tokens = line.split()
        if _is_process_header(tokens):
            if screen.header is not None and screen.rows:
                screens.append(_Screen())
                screen = screens[-1]
            screen.header = tokens
        elif screen.header is not None and tokens and tokens[0].isdigit():
            screen.rows.append(tokens)
    return [screen for screen in screens if not screen.empty()]


def _busiest(header: list[str], rows: list[list[str]]) -> tuple[float, str] | None:
    at = header.index("%CPU")
    command_at = len(header) - 1
    best: tuple[float, str] | None = None
    for row in rows:
        if len(row) < len(header):
            continue
        value = _number(row[at])
        if value is not None and (best is None or value > best[0]):
            best = (value, " ".join(row[command_at:]))
    return best


def parse_top(text: str) -> ParseResult:
    """Facts from a top screen, batch (``top -b -n 1``) or copied from the terminal."""
    lines = clean_paste(text).lines
    screens = _screens(lines)
    if not screens:
        return ParseResult.unparsed(
            "no top output found (no %Cpu(s)/Cpu(s) line, per-CPU line or process table)"
        )
    result = ParseResult()
    if len(screens) > 1:
        result.problems.append(f"{len(screens)} top screens in the paste; the last is read")
    screen = screens[-1]
    busy: dict[str, float] = {}
    for core, values in sorted(screen.cores.items(), key=lambda item: natural_key(item[0])):
        value = _busy(values)
        if value is not None:
            busy[core] = value
            result.add("cpu.busy", _pct(value), core, "%")
    if busy:
        result.add("cpu.busy.max", _pct(max(busy.values())), "host", "%")
    summary_busy = _busy(screen.summary) if screen.summary else None
    if summary_busy is not None:
        result.add("cpu.busy.mean", _pct(summary_busy), "host", "%")
    elif busy:
        result.add("cpu.busy.mean", _pct(sum(busy.values()) / len(busy)), "host", "%")
    if screen.summary and "wa" in screen.summary:
        result.add("cpu.iowait", _pct(screen.summary["wa"]), "host", "%")
    elif screen.summary is None:
        waits = [values["wa"] for values in screen.cores.values() if "wa" in values]
        if waits:
            result.add("cpu.iowait", _pct(sum(waits) / len(waits)), "host", "%")
    if screen.header is not None:
        best = _busiest(screen.header, screen.rows)
        if best is not None:
            result.add("process.cpu.max", _pct(best[0]), "host", "%")
            result.add("process.top_command", best[1], "host")
        else:
            result.problems.append("process table header without readable rows")
    if not result.facts:
        return ParseResult.unparsed("top output without any CPU value or process row")
    return result


# ---------------------------------------------------------------------- sysstat


def _prefix(tokens: list[str]) -> int:
    """How many leading tokens are the row's time stamp or label (``11:30:51 AM``,
    ``14时05分27秒``, ``Average:``, a pdsh ``node008:``)."""
    count = 0
    while count < len(tokens) and _TIME_TOKEN.match(tokens[count]):
        count += 1
    return count


def _is_average(tokens: list[str], prefix: int) -> bool:
    """An ``Average:`` row (whatever the locale calls it): a label without a time."""
    return prefix > 0 and not any(ch.isdigit() for ch in "".join(tokens[:prefix]))


@dataclass
class _Table:
    """Rows of a sysstat report, read by the column names of the header above them."""

    columns: list[str]
    #: which report of the paste (each starts with a "Linux … (N CPU)" banner)
    report: int = 0
    interval: list[list[str]] = field(default_factory=list)
    average: list[list[str]] = field(default_factory=list)


def _last_report(tables: list[_Table], problems: list[str], tool: str) -> list[_Table]:
    """The tables with rows of the paste's last report that has any."""
    filled = [table for table in tables if table.interval or table.average]
    reports = {table.report for table in filled}
    if len(reports) > 1:
        problems.append(f"{len(reports)} {tool} reports in the paste; the last is read")
    return [table for table in filled if table.report == filled[-1].report] if filled else []


def _aggregate(
    rows: list[list[str]], key: Callable[[list[str]], str], column: int
) -> dict[str, float]:
    """The mean of one column per key over the rows that have a number there."""
    sums: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        value = _number(row[column]) if column < len(row) else None
        if value is not None:
            sums[key(row)].append(value)
    return {name: sum(values) / len(values) for name, values in sums.items()}


# ----------------------------------------------------------------------- mpstat


def _mpstat_tables(lines: list[str], problems: list[str]) -> list[_Table]:
    tables: list[_Table] = []
    cut: list[str] = []
    report = 0
    for line in lines:
        if _BANNER.match(line):
            report += 1
            continue
        tokens = line.split()
        for name in ("CPU", "NODE"):
            if name in tokens and "%idle" in tokens[tokens.index(name) :]:
                tables.append(_Table(columns=tokens[tokens.index(name) :], report=report))
                break
        else:
            if not tables or tables[-1].report != report:
                continue
            prefix = _prefix(tokens)
            rest = tokens[prefix:]
            if not rest or not (rest[0] == "all" or rest[0].isdigit()):
                continue
            if len(rest) < len(tables[-1].columns):
                cut.append(rest[0])
                continue
            target = tables[-1].average if _is_average(tokens, prefix) else tables[-1].interval
            target.append(rest)
    if cut:
        problems.append(f"{len(cut)} row(s) cut short, skipped (CPU {', '.join(cut[:5])})")
    return tables


def parse_mpstat(text: str) -> ParseResult:
    """Facts from ``mpstat -P ALL`` (or plain ``mpstat``, or pcp's emulation)."""
    lines = clean_paste(text).lines
    result = ParseResult()
    tables = _last_report(_mpstat_tables(lines, result.problems), result.problems, "mpstat")
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
        value = _number(row[at])
        if value is not None:
            idle[row[0]].append(value)
        if "%iowait" in columns:
            wait = _number(row[columns.index("%iowait")])
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
        result.add("cpu.busy", _pct(busy[name]), f"cpu{int(name)}", "%")
    if busy:
        result.add("cpu.busy.max", _pct(max(busy.values())), "host", "%")
    if "all" in idle:
        mean = max(0.0, 100.0 - sum(idle["all"]) / len(idle["all"]))
        result.add("cpu.busy.mean", _pct(mean), "host", "%")
    elif busy:
        result.add("cpu.busy.mean", _pct(sum(busy.values()) / len(busy)), "host", "%")
    waits = iowait.get("all") or [v for name, vs in iowait.items() if name != "all" for v in vs]
    if waits:
        result.add("cpu.iowait", _pct(sum(waits) / len(waits)), "host", "%")
    if not result.facts:
        return ParseResult.unparsed("mpstat rows without a readable %idle value")
    return result


# ---------------------------------------------------------------------- pidstat

_TASK_COLUMNS = ("UID", "USER", "PID", "TGID", "TID")


def _pidstat_tables(lines: list[str], problems: list[str]) -> list[_Table]:
    tables: list[_Table] = []
    active = False
    hash_prefix = 0
    cut = 0
    report = 0
    for line in lines:
        if _BANNER.match(line):
            report += 1
            active = False
            continue
        tokens = line.split()
        if "Command" in tokens and any(name in tokens for name in ("PID", "TID", "TGID")):
            active = "%CPU" in tokens
            if active:
                start = min(tokens.index(name) for name in _TASK_COLUMNS if name in tokens)
                tables.append(_Table(columns=tokens[start:], report=report))
                # "-h": "# Time UID …" and rows "09:30:08 0 …" (or seconds since the epoch)
                hash_prefix = start - 1 if tokens[0] == "#" else 0
            continue
        if not active or not tokens or _ELISION.match(line):
            continue
        prefix = _prefix(tokens)
        average = _is_average(tokens, prefix)
        if hash_prefix and not average:
            prefix = hash_prefix
        rest = tokens[prefix:]
        columns = tables[-1].columns
        if len(rest) < len(columns):
            cut += 1
            continue
        if not all(
            rest[columns.index(n)].isdigit() or rest[columns.index(n)] == "-"
            for n in ("PID", "TGID", "TID")
            if n in columns
        ):
            continue
        (tables[-1].average if average else tables[-1].interval).append(rest)
    if cut:
        problems.append(f"{cut} task row(s) cut short, skipped")
    return tables


def parse_pidstat(text: str) -> ParseResult:
    """Facts from ``pidstat -u`` (``-t`` threads, ``-h`` one-line and combined reports too)."""
    lines = clean_paste(text).lines
    result = ParseResult()
    tables = _pidstat_tables(lines, result.problems)
    if not tables:
        return ParseResult.unparsed("no pidstat CPU report found (a header with %CPU and Command)")
    filled = _last_report(tables, result.problems, "pidstat")
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
    result.add("process.cpu.max", _pct(cpu[busiest]), "host", "%")
    result.add("process.top_command", commands[busiest], "host")
    if wait:
        result.add("process.cpu.wait_max", _pct(max(wait.values())), "host", "%")
    return result


_CPU_FACTS = ("cpu.busy", "cpu.busy.mean", "cpu.busy.max", "cpu.iowait")

PROBE = Probe(
    name="top",
    summary="Host CPU busy and iowait, per core with the '1' key, and the busiest process (top)",
    parse=parse_top,
    argv=("top", "-b", "-n", "1"),
    cost="instant",
    facts=(*_CPU_FACTS, "process.cpu.max", "process.top_command"),
    needs_load=True,
    timeout_s=30.0,
    recognises=looks_like_top,
)

MPSTAT_PROBE = Probe(
    name="mpstat",
    summary="Busy and iowait per CPU core over one second (sysstat mpstat -P ALL)",
    parse=parse_mpstat,
    argv=("mpstat", "-P", "ALL", "1", "1"),
    cost="cheap",
    facts=_CPU_FACTS,
    needs_load=True,
    timeout_s=30.0,
    recognises=looks_like_mpstat,
)

PIDSTAT_PROBE = Probe(
    name="pidstat",
    summary="The busiest task's %CPU and command, and its %wait, over one second (pidstat -u)",
    parse=parse_pidstat,
    argv=("pidstat", "-u", "1", "1"),
    cost="cheap",
    facts=("process.cpu.max", "process.top_command", "process.cpu.wait_max"),
    needs_load=True,
    timeout_s=30.0,
    recognises=looks_like_pidstat,
)
