"""``nvidia-smi --query-gpu=… --format=csv``: chosen fields, one CSV row per GPU (per sample).

Columns are named by the CSV header (``power.draw [W]``: name and unit). With
``--format=csv,noheader`` they can only be named from the command line, when the paste shows
it (read as a shell splits it, quotes taken off); otherwise the parser says so instead of
guessing. Fact names are the header's field names, with the long clock names shortened to
the ``--query-gpu`` aliases (``clocks.current.sm`` → ``clocks.sm``, ``clocks.current.memory``
→ ``clocks.mem``, ``clocks.current.graphics`` → ``clocks.gr``, ``clocks.max.memory`` →
``clocks.max.mem``), ``gpu_name`` → ``name``, ``gpu_bus_id`` → ``pci.bus_id`` (normalised to
``0000:01:00.0``) and
``clocks_throttle_reasons.*`` → ``clocks_event_reasons.*``. The ``…reasons.active`` bitmask
is decoded into one bool per reason (``clocks_event_reasons.sw_power_cap`` …), using NVML's
bit values. Units come from the header, or from a table of known fields when the header has
none (``temperature.gpu`` → C) or is absent; numbers are int or float, names and versions
stay strings, ``[N/A]`` / ``[Not Supported]`` make no fact. ``driver_version`` goes on
``host``.

Subjects: ``gpuN`` from an ``index`` column; else the normalised ``pci.bus_id`` when that
column exists (the row order cannot be trusted to be the index after ``[...]`` elisions);
else ``-i`` on the command line; else position within one sample (nvidia-smi lists GPUs in
index order). A sample ends where the header repeats or the timestamp changes. Several
samples of a GPU (``-l``/``-lms`` loops) are summarised: numbers by their mean (a float,
rounded to 0.01), text by the last value; ``query.samples`` (int) counts the rows per GPU.

A numeric field with two or more timed samples on a GPU is also kept as a time series with
its summaries (see :mod:`casefile_probes.series`): ``<field>.series`` (str), and
``<field>.series.min`` / ``.max`` / ``.first`` / ``.last`` / ``.slope`` (per second). Times
come from the ``timestamp`` column when there is one (``clock`` = ``measured``), else from
the sample's number times the loop interval on the pasted command line (``-l N`` seconds,
``-lms N`` milliseconds; ``clock`` = ``interval``); without either, no series is made, since
its times would be guesses.

CSV piped through ``column -s, -t`` (no commas left, cells lined up) is read by splitting at
runs of two or more spaces, with a problem saying so.

Other queries (``--query-compute-apps`` …) are read generically: facts named after the header
fields, subject ``pid<pid>`` (prefixed by the GPU's bus id or UUID when a column gives it),
or ``row<n>`` when no pid or index column exists.

The fields' names, units and values are :mod:`casefile_probes.query_gpu_fields`; this module
reads the CSV, names the subjects and summarises the samples.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from casefile.domain.facts import FactValue, ParseResult
from casefile.probes.api import Probe
from casefile_probes._scales import UTILISATION

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI
from ._text import (
    clean,
    is_elision,
    is_missing,
    natural_key,
    normalise_bus_id,
    split_command,
    tool_error,
)
from .query_gpu_fields import REASON_BITS, canonical, cell_value, known_unit
from .series import Series, add_series_facts, parse_timestamp

__all__ = ["PROBE", "parse_query_gpu"]

QUERY_FIELDS = (
    "index,pci.bus_id,name,utilization.gpu,utilization.memory,memory.used,memory.total,"
    "power.draw,power.limit,temperature.gpu,clocks.sm,clocks.max.sm,pcie.link.gen.current,"
    "pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,clocks_event_reasons.active"
)

_HEADER_FIELD = re.compile(r"^(?P<name>[a-z][a-z0-9_.]*)(?:\s*\[(?P<unit>[^\]]+)\])?$")
#: one word of the command line, its shell quoting already taken off (see ``split_command``)
_QUERY_OPTION = re.compile(r"--query-(?P<kind>[a-z-]+)=(?P<fields>.+)", re.DOTALL)
_QUOTES = " \t\"'"
#: what separates the cells of CSV piped through ``column -s, -t``
_ALIGNED = re.compile(r"\s{2,}")


@dataclass(slots=True)
class _Column:
    name: str
    unit: str | None


@dataclass(slots=True)
class _Table:
    columns: list[_Column]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # (sample number, cells)
    #: cells lined up by ``column -s, -t`` instead of separated by commas
    aligned: bool = False


def _split(line: str, *, aligned: bool = False) -> list[str]:
    if aligned:
        return _ALIGNED.split(line.strip())
    return [cell.strip() for cell in line.split(",")]


def _aligned(line: str) -> bool:
    """Whether a header line is the CSV run through ``column -s, -t``: no comma left, its
    cells lined up by two or more spaces (one space stays inside "power.draw [W]")."""
    return "," not in line and len(_ALIGNED.split(line.strip())) > 1


def _header(line: str, expected: list[str] | None) -> list[_Column] | None:
    """Columns when ``line`` is a CSV header of nvidia-smi's (``name, power.draw [W]``), or
    that header lined up into columns."""
    cells = _split(line, aligned=_aligned(line))
    columns: list[_Column] = []
    for cell in cells:
        match = _HEADER_FIELD.match(cell)
        if match is None:
            return None
        columns.append(_Column(canonical(match.group("name")), match.group("unit")))
    looks_like_fields = any(
        "." in cell or "_" in cell or "[" in cell or cell in {"name", "index", "pid", "uuid"}
        for cell in cells
    )
    if not looks_like_fields and (expected is None or len(expected) != len(cells)):
        return None
    return columns


def parse_query_gpu(text: str) -> ParseResult:
    """Read ``--query-gpu`` (or another ``--query-*``) CSV output."""
    cleaned = clean(text)
    result = ParseResult()
    kind = "gpu"
    requested: list[str] | None = None
    ids: list[int] = []
    loop = False
    # each command as the shell read it: --query-gpu="index,name" names index, not "index
    words = [split_command(command) for command in cleaned.commands]
    commands = [" ".join(each) for each in words]
    interval = _loop_interval(commands)
    for command, each in zip(commands, words, strict=True):
        query = next(filter(None, map(_QUERY_OPTION.fullmatch, each)), None)
        if query:
            kind = query.group("kind")
            fields = query.group("fields").split(",")
            # a field name never holds a quote: one left is a quote the split could not read
            requested = [canonical(name.strip(_QUOTES)) for name in fields if name.strip(_QUOTES)]
        id_match = re.search(r"(?:^|\s)(?:-i|--id)[=\s]+([\d,]+)(?:\s|$)", command)
        if id_match:
            ids = [int(part) for part in id_match.group(1).split(",") if part]
        loop = loop or bool(re.search(r"\s-(?:l|lms)\b|--loop", command))

    table: _Table | None = None
    sample = 0
    skipped: list[str] = []
    elided = False
    for line in cleaned.lines:
        if not line.strip():
            continue
        if is_elision(line):
            elided = True
            continue
        header = _header(line, requested)
        if header is not None:
            if table is None or [c.name for c in table.columns] != [c.name for c in header]:
                if table is not None and table.rows:
                    result.problems.append("a second, different CSV header; later rows ignored")
                    break
                table = _Table(columns=header, aligned=_aligned(line))
            sample += 1
            continue
        if table is None:
            if requested is not None and len(_split(line)) == len(requested):
                # noheader: the command line names the columns
                table = _Table(columns=[_Column(name, None) for name in requested])
                sample += 1
            else:
                skipped.append(line.strip())
                continue
        cells = _split(line, aligned=table.aligned)
        if len(cells) != len(table.columns):
            skipped.append(line.strip())
            continue
        table.rows.append((sample, cells))

    if table is None or not table.rows:
        error = tool_error(cleaned.lines)
        if error:
            return ParseResult.unparsed(error)
        if table is None and skipped and any("," in line for line in skipped):
            return ParseResult.unparsed(
                "CSV without a header and without the --query-gpu=… command line: "
                "the columns cannot be named"
            )
        if table is not None:
            return ParseResult.unparsed("CSV header found but no data rows")
        return ParseResult.unparsed("no nvidia-smi --query CSV output found")

    if table.aligned:
        result.problems.append(
            "CSV lined up into columns (column -t): cells split at runs of two or more spaces"
        )
    if skipped:
        result.problems.append(
            f"skipped {len(skipped)} line(s) that are not rows of the table "
            f"(e.g. {skipped[0][:60]!r})"
        )
    if elided:
        result.problems.append("rows elided ('[...]'); only the rows shown were read")
    if kind == "gpu":
        _emit_gpu_rows(table, result, ids, loop, interval)
    else:
        _emit_generic_rows(table, result)
    return result


def _gpu_subjects(table: _Table, ids: list[int]) -> list[str]:
    names = [column.name for column in table.columns]
    if "index" in names:
        position = names.index("index")
        return [f"gpu{cells[position].strip()}" for _, cells in table.rows]
    if "pci.bus_id" in names:
        position = names.index("pci.bus_id")
        return [normalise_bus_id(cells[position]) or cells[position] for _, cells in table.rows]
    stamp = names.index("timestamp") if "timestamp" in names else None
    subjects: list[str] = []
    previous: tuple[int, str] | None = None
    slot = 0
    for sample, cells in table.rows:
        key = (sample, cells[stamp] if stamp is not None else "")
        slot = slot + 1 if key == previous else 0
        previous = key
        subjects.append(f"gpu{ids[slot] if slot < len(ids) else slot}")
    return subjects


def _loop_interval(commands: list[str]) -> float | None:
    """Seconds between samples from ``-l N`` / ``--loop=N`` or ``-lms N`` / ``--loop-ms=N``."""
    for command in commands:
        match = re.search(
            r"(?:^|\s)(-lms|--loop-ms|-l|--loop)(?:=|\s+)(\d+(?:\.\d+)?)(?:\s|$)", command
        )
        if match is None:
            continue
        value = float(match.group(2))
        seconds = value / 1000.0 if match.group(1) in ("-lms", "--loop-ms") else value
        if 0 < seconds < 86_400:
            return seconds
    return None


def _sample_times(
    table: _Table, subjects: list[str], interval: float | None
) -> tuple[list[float | None], str | None, bool]:
    """Each row's time in seconds since the first row, the first timestamp as printed, and
    whether the times were measured (a timestamp column) rather than counted."""
    names = [column.name for column in table.columns]
    if "timestamp" in names:
        position = names.index("timestamp")
        first = None
        start: str | None = None
        times: list[float | None] = []
        previous: tuple[str, float | None] = ("", None)
        for _, cells in table.rows:
            raw = cells[position]
            if raw == previous[0]:  # every GPU of one sample has the same stamp
                times.append(previous[1])
                continue
            stamp = parse_timestamp(raw)
            seconds: float | None = None
            if stamp is not None:
                if first is None:
                    first, start = stamp, raw.strip()
                seconds = (stamp - first).total_seconds()
            times.append(seconds)
            previous = (raw, seconds)
        return times, start, True
    if interval is None:
        return [None] * len(table.rows), None, False
    seen: dict[str, int] = defaultdict(int)
    counted: list[float | None] = []
    for subject in subjects:
        counted.append(seen[subject] * interval)
        seen[subject] += 1
    return counted, None, False


def _emit_gpu_rows(
    table: _Table, result: ParseResult, ids: list[int], loop: bool, interval: float | None
) -> None:
    names = [column.name for column in table.columns]
    if loop and not {"index", "pci.bus_id", "timestamp"} & set(names):
        result.problems.append(
            "looped query without index, bus id or timestamp: rows are assigned to GPUs by "
            "position, which may be wrong"
        )
    subjects = _gpu_subjects(table, ids)
    times, start, measured = _sample_times(table, subjects, interval)
    values: dict[tuple[str, str], list[FactValue]] = defaultdict(list)
    # each reading's sample time, in the same order; only numbers get one
    timed: dict[tuple[str, str], list[float]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    units: dict[str, str | None] = {}
    for subject, when, (_, cells) in zip(subjects, times, table.rows, strict=True):
        counts[subject] += 1
        for column, raw in zip(table.columns, cells, strict=True):
            if column.name in {"index", "timestamp"}:
                continue
            value = cell_value(column.name, column.unit, raw)
            if value is None:
                continue
            if column.name.endswith("reasons.active") or column.name.endswith("reasons.supported"):
                if column.name.endswith(".active"):
                    _decode_reasons(raw, subject, values, result)
                continue
            target = "host" if column.name == "driver_version" else subject
            values[(target, column.name)].append(value)
            units[column.name] = column.unit or known_unit(column.name)
            if when is not None and target != "host" and type(value) in (int, float):
                timed[(target, column.name)].append(when)
    for (subject, name), readings in sorted(
        values.items(), key=lambda item: (natural_key(item[0][0]), item[0][1])
    ):
        result.add(name, _summary(readings), subject=subject, unit=units.get(name))
        stamps = timed.get((subject, name), [])
        if len(stamps) >= 2 and len(stamps) == len(readings):
            series = Series(
                times=tuple(stamps),
                values=tuple(float(v) for v in readings if type(v) in (int, float)),
                clock="measured" if measured else "interval",
                start=start,
            )
            add_series_facts(result, name, subject, units.get(name), series)
    for subject, count in counts.items():
        result.add("query.samples", count, subject=subject)


def _decode_reasons(
    raw: str, subject: str, values: dict[tuple[str, str], list[FactValue]], result: ParseResult
) -> None:
    try:
        mask = int(raw.strip(), 16)
    except ValueError:
        result.problems.append(f"{subject}: unreadable clocks event reasons mask {raw.strip()!r}")
        return
    for bit, reason in REASON_BITS:
        values[(subject, f"clocks_event_reasons.{reason}")].append(bool(mask & bit))


def _summary(readings: list[FactValue]) -> FactValue:
    """One value for a GPU's readings: itself, the mean of numbers, or the last text."""
    if len(readings) == 1:
        return readings[0]
    if all(isinstance(r, bool) for r in readings):
        return any(bool(r) for r in readings)
    numbers = [r for r in readings if isinstance(r, int | float) and not isinstance(r, bool)]
    if len(numbers) == len(readings):
        return round(sum(numbers) / len(numbers), 2)
    return readings[-1]


def _emit_generic_rows(table: _Table, result: ParseResult) -> None:
    names = [column.name for column in table.columns]
    for number, (_, cells) in enumerate(table.rows):
        row = dict(zip(names, cells, strict=True))
        if "pid" in row:
            subject = f"pid{row['pid']}"
            gpu = row.get("gpu_bus_id") or row.get("gpu_uuid") or row.get("uuid")
            if gpu and not is_missing(gpu):
                subject = f"{normalise_bus_id(gpu) or gpu}/{subject}"
        elif "index" in row:
            subject = f"gpu{row['index']}"
        else:
            subject = f"row{number}"
        for column, raw in zip(table.columns, cells, strict=True):
            if column.name in {"pid", "index"}:
                continue
            value = cell_value(column.name, column.unit, raw)
            result.add(
                column.name, value, subject=subject, unit=column.unit or known_unit(column.name)
            )


PROBE = Probe(
    name="nvidia-smi-query",
    summary="Per-GPU utilisation, memory, power, clocks and PCIe link as CSV (take under load)",
    parse=parse_query_gpu,
    argv=("nvidia-smi", f"--query-gpu={QUERY_FIELDS}", "--format=csv"),
    cost="instant",
    facts=(
        "pci.bus_id",
        "name",
        "utilization.gpu",
        "utilization.memory",
        "memory.used",
        "memory.total",
        "power.draw",
        "power.limit",
        "temperature.gpu",
        "clocks.sm",
        "clocks.max.sm",
        "pcie.link.gen.current",
        "pcie.link.gen.max",
        "pcie.link.width.current",
        "pcie.link.width.max",
        "clocks_event_reasons.gpu_idle",
        "clocks_event_reasons.sw_power_cap",
        "clocks_event_reasons.hw_slowdown",
        "clocks_event_reasons.sw_thermal_slowdown",
        "clocks_event_reasons.hw_thermal_slowdown",
        "query.samples",
        # patterns (fnmatch): families the parser names per field, section or test
        "clocks.*",
        "compute_cap",
        "compute_mode",
        "driver_version",
        "fan.speed",
        "memory.*",
        "pstate",
        "vbios_version",
        "*.series",
        "*.series.*",
    ),
    percentages=UTILISATION,
    needs_load=True,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
