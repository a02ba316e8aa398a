"""mpstat and pidstat (sysstat) reports read into host CPU facts: the half of the host CPU
readers whose tables are column-named rows under a ``Linux … (N CPU)`` banner.

:mod:`casefile_probes.cpu_load` declares the probes and documents the facts; this module holds
the sysstat readers apart from top's, because the two share nothing but the number helpers
below: mpstat's and pidstat's rows are read by the column names of the header above them, with
a time stamp (or a locale's ``Average:``) in front, while top is a screen of labelled lines.

Which report of a paste is read, and which are averages since boot that say nothing of the
load now (``mpstat`` or ``pidstat`` run without an interval), is chosen in
:mod:`casefile_probes._sysstat_report`, node by node where a parallel shell (pdsh, clush) ran
the tool: each node's lines are read here as a paste of their own. The labels in front of the
rows, and the tables the rows fill, are kept in :mod:`casefile_probes._sysstat_rows`. A pidstat
report pasted as a Markdown table is first written back as pidstat prints it (``_unpiped``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping

from casefile.domain.facts import ParseResult

from ._sysstat_report import SINCE_BOOT, read_reports
from ._sysstat_rows import BANNER, Table, is_average, leading_labels, row_node, stamp
from ._text import natural_key

__all__ = ["number", "parse_mpstat", "parse_pidstat", "pct", "strip_annotation"]

#: the poster's cut: "...", "....", "[...]", "…"
_ELISION = re.compile(r"^\s{0,16}\[?(?:\.{3,8}|…{1,3})\]?\s{0,16}$")
_DECIMAL = re.compile(r"^[-+]?\d{1,12}(?:[.,]\d{1,12})?$")
#: numbers gathered per key (a task) before their mean is taken
Pooled = dict[str, list[float]]
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


def _collect(
    rows: list[list[str]], key: Callable[[list[str]], str], column: int, into: Pooled
) -> None:
    """One column's numbers, per key, added to ``into``: a task's intervals under several
    headers (pidstat prints one each interval where it shows several tasks) pool into one
    mean, where a table's own mean had replaced the one before it (the last interval won)."""
    for row in rows:
        value = number(row[column]) if column < len(row) else None
        if value is not None:
            into[key(row)].append(value)


def _means(pooled: Pooled, spans: Mapping[str, int] | None = None) -> dict[str, float]:
    """Each key's mean; over ``spans[key]`` intervals where given and more than its values:
    pidstat leaves a task that did nothing out of an interval, so its absent intervals are
    zeros (its own Average section divides by them too)."""
    spans = spans or {}
    return {
        name: sum(values) / max(len(values), spans.get(name, 0)) for name, values in pooled.items()
    }


# ----------------------------------------------------------------------- mpstat


def _mpstat_tables(lines: list[str], problems: list[str]) -> list[Table]:
    """Every ``CPU … %idle`` (or ``NODE``) table of the lines with the rows under it, its
    report numbered by the banners above it: which of them give the load now is for
    :func:`~casefile_probes._sysstat_report.read_reports` to choose, by their times."""
    tables: list[Table] = []
    cut: list[str] = []
    report = 0
    # the last header of this report, and each node's (a parallel shell's lines interleave)
    last: Table | None = None
    headed: dict[str | None, Table] = {}
    for line in lines:
        if BANNER.match(line):
            report, last, headed = report + 1, None, {}
            continue
        tokens = line.split()
        for name in ("CPU", "NODE"):
            if name in tokens and "%idle" in tokens[tokens.index(name) :]:
                at = tokens.index(name)
                node = row_node(tokens, at)
                last = headed[node] = Table(tokens[at:], report, stamp(tokens[:at]), node)
                tables.append(last)
                break
        else:
            prefix = leading_labels(tokens)
            node = row_node(tokens, prefix)
            table = headed.get(node, last)
            rest = tokens[prefix:]
            if table is None or not rest or not (rest[0] == "all" or rest[0].isdigit()):
                continue
            if len(rest) < len(table.columns):
                cut.append(rest[0])
                continue
            if is_average(tokens, prefix):
                table.average.append(rest)
            else:
                table.add_interval(rest, node, stamp(tokens[:prefix]))
    if cut:
        problems.append(f"{len(cut)} row(s) cut short, skipped (CPU {', '.join(cut[:5])})")
    return tables


def _load_rows(tables: list[Table]) -> list[tuple[Table, list[list[str]]]]:
    """Each table with its rows that give its node's load: the ``Average:`` rows where that
    node printed any, else every interval's. Chosen node by node: through a parallel shell
    one node's report may end before its averages, and its intervals are its load all the
    same (it had been left out, unnamed, beside a node that printed them)."""
    averaged = {table.node for table in tables if table.average}
    return [
        (table, table.average if table.node in averaged else table.interval) for table in tables
    ]


def parse_mpstat(text: str) -> ParseResult:
    """Facts from ``mpstat -P ALL`` (or plain ``mpstat``, or pcp's emulation)."""
    reading = read_reports(text, "mpstat", _mpstat_tables)
    if reading.since_boot:
        return ParseResult.unparsed(SINCE_BOOT["mpstat"])
    tables = reading.tables
    if not tables:
        return ParseResult.unparsed(
            "no mpstat rows found (a 'CPU … %idle' header with rows under it)"
        )
    result = ParseResult(problems=reading.problems)
    chosen = [(table, row) for table, rows in _load_rows(tables) for row in rows]
    # by (node, CPU): a parallel shell's nodes each have a cpu0, and one node's busy core
    # averaged with another's idle one is a core neither has
    idle: dict[tuple[str, str], list[float]] = defaultdict(list)
    iowait: dict[tuple[str, str], list[float]] = defaultdict(list)
    nodes = False
    for table, row in chosen:
        columns = table.columns
        if columns[0] == "NODE" and row[0] != "all":
            nodes = True
            continue
        key = (table.node or "", row[0])
        at = len(columns) - 1 - columns[::-1].index("%idle")
        value = number(row[at])
        if value is not None:
            idle[key].append(value)
        if "%iowait" in columns:
            wait = number(row[columns.index("%iowait")])
            if wait is not None:
                iowait[key].append(wait)
    if nodes:
        result.problems.append(
            "per-node rows (mpstat -N) are not cores: only the 'all' row is read"
        )
    busy = {
        key: max(0.0, 100.0 - sum(values) / len(values))
        for key, values in idle.items()
        if key[1] != "all"
    }
    several = len({node for node, _ in idle}) > 1
    for node, name in sorted(busy, key=lambda key: (natural_key(key[0]), int(key[1]))):
        subject = f"{node}:cpu{int(name)}" if several else f"cpu{int(name)}"
        result.add("cpu.busy", pct(busy[(node, name)]), subject, "%")
    if busy:
        result.add("cpu.busy.max", pct(max(busy.values())), "host", "%")
    alls = [v for (_, name), values in idle.items() if name == "all" for v in values]
    if alls:
        result.add("cpu.busy.mean", pct(max(0.0, 100.0 - sum(alls) / len(alls))), "host", "%")
    elif busy:
        result.add("cpu.busy.mean", pct(sum(busy.values()) / len(busy)), "host", "%")
    waits = [v for (_, name), vs in iowait.items() if name == "all" for v in vs] or [
        v for (_, name), vs in iowait.items() if name != "all" for v in vs
    ]
    if waits:
        result.add("cpu.iowait", pct(sum(waits) / len(waits)), "host", "%")
    if not result.facts:
        return ParseResult.unparsed("mpstat rows without a readable %idle value")
    return result


# ---------------------------------------------------------------------- pidstat

_TASK_COLUMNS = ("UID", "USER", "PID", "TGID", "TID")
#: a Markdown table's cell border: a ``|`` that no backslash escapes
_CELL_BORDER = re.compile(r"(?<!\\)\|")
#: a Markdown table's delimiter row: ``|---|:---:|`` (its outer pipes optional)
_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    """A Markdown table line's cells, stripped, ``\\|`` read as ``|`` (a thread's ``|__``
    mark, escaped so as not to end its cell); the outer pipes open and close no cell."""
    text = line.strip()
    cells = _CELL_BORDER.split(text)
    if text.startswith("|"):
        cells = cells[1:]
    if len(cells) > 1 and _CELL_BORDER.search(text[-1:]) and not text.endswith("\\|"):
        cells = cells[:-1]
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _is_pidstat_header(cells: list[str]) -> bool:
    return "%CPU" in cells and "Command" in cells and any(n in cells for n in _TASK_COLUMNS[2:])


def _unpiped(lines: list[str]) -> list[str]:
    """The lines with each pidstat table pasted (or typed out) as a Markdown table written
    as pidstat prints it: cells apart by blanks, the delimiter row and empty header cells
    gone, the cells in front of the first task column (the time) kept where not empty, an
    empty cell after them written ``-``. Its rows are then read as a plain paste's are, as
    the generic unwrapping of a fenced or quoted paste has a parser read the output itself.
    Only a table whose header names pidstat's CPU columns is rewritten, never mpstat's. A
    ``|__`` thread mark left unescaped (or unescaped with a quote's escapes) splits its cell
    in two: a row's cells beyond the header's are joined back into the last, Command."""
    out: list[str] = []
    columns: list[str] = []  # the header of the table being read; [] outside one
    lead = 0  # how many of its cells come before the first task column
    for at, line in enumerate(lines):
        if columns and "|" in line:
            if _DELIMITER_ROW.match(line):
                continue
            cells = _cells(line)
            if len(cells) > len(columns) and columns[-1] == "Command":
                cells[len(columns) - 1 :] = ["|".join(cells[len(columns) - 1 :])]
            kept = [cell for cell in cells[:lead] if cell] + [cell or "-" for cell in cells[lead:]]
            out.append("  ".join(kept))
            continue
        columns = []
        if "|" in line and at + 1 < len(lines) and _DELIMITER_ROW.match(lines[at + 1]):
            cells = _cells(line)
            if _is_pidstat_header(cells):
                columns = cells
                lead = min(cells.index(name) for name in _TASK_COLUMNS if name in cells)
                out.append("  ".join(cell for cell in cells if cell))
                continue
        out.append(line)
    return out


def _pidstat_tables(lines: list[str], problems: list[str]) -> list[Table]:
    """Every ``%CPU`` table of the lines (a header with ``Command`` and a task id) with its
    task rows, as :func:`_mpstat_tables` does for mpstat; ``-h`` rows (``# Time`` header) are
    read after their time, which may be seconds since the epoch and so no time token."""
    tables: list[Table] = []
    # the table of the last header of this report, and of each node's (a parallel shell's
    # lines interleave); None after a header of another report (-d, -r: no %CPU)
    last: Table | None = None
    headed: dict[str | None, Table | None] = {}
    hash_prefix = 0
    cut = 0
    report = 0
    for line in _unpiped(lines):
        if BANNER.match(line):
            report, last, headed = report + 1, None, {}
            continue
        tokens = line.split()
        if "Command" in tokens and any(name in tokens for name in ("PID", "TID", "TGID")):
            node = row_node(tokens, leading_labels(tokens))
            last = headed[node] = None
            if "%CPU" in tokens:
                start = min(tokens.index(name) for name in _TASK_COLUMNS if name in tokens)
                last = headed[node] = Table(tokens[start:], report, stamp(tokens[:start]), node)
                tables.append(last)
                # "-h": "# Time UID …" and rows "09:30:08 0 …" (or seconds since the epoch)
                hash_prefix = start - 1 if tokens[0] == "#" else 0
            continue
        if not tokens or _ELISION.match(line):
            continue
        tokens = strip_annotation(line).split()
        prefix = leading_labels(tokens)
        node = row_node(tokens, prefix)
        table = headed.get(node, last)
        if table is None:
            continue
        average = is_average(tokens, prefix)
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
            table.add_interval(rest, node, stamp(tokens[:prefix]))
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


def _divided_by_cpus(tables: list[tuple[list[list[str]], list[str]]]) -> bool:
    """Whether ``-I`` divided %CPU by the CPU count, judged over one node's rows (each with
    its table's columns): every busy row's %usr + %system + %guest is well above its %CPU
    (``554 + 68`` beside ``102.81`` on six CPUs). Without -I the two agree to rounding, or
    %CPU is capped below them by a little (a thread group at ``100`` beside ``116``), so one
    and a half times is the line. Rows under 1 % are left out: at two decimals their rounding
    hides the division (``0.01`` beside ``0.01``)."""
    ratios = []
    for rows, columns in tables:
        for row in rows:
            share, total = _cell(row, columns, "%CPU"), _task_total(row, columns)
            if share is not None and total is not None and share >= 1.0:
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
    reading = read_reports(text, "pidstat", _pidstat_tables)
    if not reading.found:
        return ParseResult.unparsed("no pidstat CPU report found (a header with %CPU and Command)")
    if reading.since_boot:
        return ParseResult.unparsed(SINCE_BOOT["pidstat"])
    filled = reading.tables
    result = ParseResult(problems=reading.problems)
    if not filled:
        return ParseResult.unparsed(
            "pidstat printed headers but no task rows (no task matched or none was active)"
        )
    cpu_pool: Pooled = defaultdict(list)
    wait_pool: Pooled = defaultdict(list)
    commands: dict[str, str] = {}
    chosen = _load_rows(filled)
    by_node: dict[str, list[tuple[list[list[str]], list[str]]]] = defaultdict(list)
    times: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for table, rows in chosen:
        by_node[table.node or ""].append((rows, table.columns))
        if rows is table.interval:
            times[table.node or ""].update(*table.stamps.values())
    per_core = {node for node, tables in by_node.items() if _divided_by_cpus(tables)}
    if per_core:
        result.problems.append(
            "%CPU divided by the CPU count (pidstat -I): %usr + %system + %guest read instead"
        )
    spans: dict[str, int] = {}
    for table, rows in chosen:
        columns = table.columns
        node = table.node or ""
        if node in per_core:
            rows = _per_core(rows, columns)
        command_at = columns.index("Command")
        ids = [columns.index(n) for n in ("PID", "TGID", "TID") if n in columns]
        # intervals are counted where rows say their time; an Average row is one already
        span = len(times[node]) if table.average is not rows and rows else 0

        def key(
            row: list[str],
            ids: list[int] = ids,
            command_at: int = command_at,
            node: str = node,
            span: int = span,
        ) -> str:
            # a node's process is its own: one PID and command on two nodes are two tasks
            name = " ".join([node, *(row[i] for i in ids), *row[command_at:]])
            commands[name] = " ".join(row[command_at:]).removeprefix("|__")
            spans[name] = max(spans.get(name, 0), span)
            return name

        _collect(rows, key, columns.index("%CPU"), cpu_pool)
        if "%wait" in columns:
            _collect(rows, key, columns.index("%wait"), wait_pool)
    cpu, wait = _means(cpu_pool, spans), _means(wait_pool, spans)
    if not cpu:
        return ParseResult.unparsed("pidstat task rows without a readable %CPU value")
    busiest = max(cpu, key=lambda name: cpu[name])
    result.add("process.cpu.max", pct(cpu[busiest]), "host", "%")
    result.add("process.top_command", commands[busiest], "host")
    if wait:
        result.add("process.cpu.wait_max", pct(max(wait.values())), "host", "%")
    return result
