"""``nvidia-smi dmon``: one row per GPU per sampling interval, summarised per GPU.

A rule wants "how busy was gpu3 during the window", not forty rows, so the parser emits one
value per GPU and metric: the mean over the samples that have a value (``-`` marks an
unsupported or not-yet-available metric and is left out, never counted as zero). Means are
floats rounded to 0.01.

Facts per GPU (``gpuN`` from the ``Idx`` column), by dmon column:

- ``pwr`` → ``power.draw`` (W); ``gtemp`` (``temp`` before 2017) → ``temperature.gpu`` (C);
  ``mtemp`` → ``temperature.memory`` (C);
- ``sm`` → ``utilization.gpu``, ``mem`` → ``utilization.memory``, ``enc``/``dec``/``jpg``/
  ``ofa`` → ``utilization.encoder``/``.decoder``/``.jpeg``/``.ofa`` (%);
- ``mclk`` → ``clocks.mem``, ``pclk`` → ``clocks.sm`` (MHz);
- ``fb`` → ``memory.used`` (MiB: dmon labels it MB but prints NVML's MiB, the same number
  the table shows); ``bar1``, ``ccpm`` → ``dmon.bar1``, ``dmon.ccpm`` (MiB);
- ``rxpci``/``txpci`` → ``pcie.rx_throughput``/``pcie.tx_throughput`` in KB/s: dmon prints
  MB/s, multiplied by 1000;
- ``pviol`` → ``dmon.pviol`` (%: share of time held back by the power limit);
- ``tviol`` → ``dmon.tviol`` (bool: any sample with a thermal violation);
- ``sbecc``, ``dbecc``, ``pci`` → ``dmon.sbecc``, ``dmon.dbecc``, ``dmon.pci_errors`` (the
  largest count seen, not a mean);
- ``--gpm-metrics`` columns (unit ``GPM:%``) → ``gpm.<column>`` (%), e.g. ``gpm.smutil``;
- any other column → ``dmon.<column>`` with the printed unit.

Plus ``dmon.samples`` (int): the rows read for that GPU. Throughput is converted to KB/s so
that it compares directly with ``nvidia-smi -q``'s "Tx/Rx Throughput" (NVML reports KB/s;
dmon divides by 1000).

Every averaged metric with two or more samples on a GPU is also kept as a time series, with
its summaries (see :mod:`casefile_probes.series`): ``<fact>.series`` (str) and
``<fact>.series.min`` / ``.max`` / ``.first`` / ``.last`` / ``.slope`` (per second), e.g.
``temperature.gpu.series.slope`` in C/s. Sample times come from the ``Date``/``Time`` columns
of ``-o DT`` / ``-o T`` when printed (``clock`` = ``measured``; a ``Time`` that goes back is
taken to have crossed midnight), otherwise from the sample's number times the interval
(``-d N`` on a pasted command line, else dmon's default of one second; ``clock`` =
``interval``).

Pastes that collapsed the whole output onto one line (HTML-to-Markdown conversions do this)
are read by cutting the token stream at the two ``#`` headers and chunking the rest by the
number of columns.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from casefile.domain.facts import FactValue, ParseResult
from casefile.probes.api import Probe
from casefile_probes._scales import UTILISATION

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI
from ._tables import CommentedTable, read_commented_table
from ._text import (
    clean,
    command_option,
    is_missing,
    natural_key,
    to_number,
    tool_error,
)
from .series import Series, add_series_facts, parse_clock_time

__all__ = ["PROBE", "parse_dmon"]


@dataclass(frozen=True, slots=True)
class _Metric:
    fact: str
    unit: str | None
    how: str = "mean"  # mean | max | any
    scale: float = 1.0


_METRICS = {
    "pwr": _Metric("power.draw", "W"),
    "gtemp": _Metric("temperature.gpu", "C"),
    "temp": _Metric("temperature.gpu", "C"),
    "mtemp": _Metric("temperature.memory", "C"),
    "sm": _Metric("utilization.gpu", "%"),
    "mem": _Metric("utilization.memory", "%"),
    "enc": _Metric("utilization.encoder", "%"),
    "dec": _Metric("utilization.decoder", "%"),
    "jpg": _Metric("utilization.jpeg", "%"),
    "ofa": _Metric("utilization.ofa", "%"),
    "mclk": _Metric("clocks.mem", "MHz"),
    "pclk": _Metric("clocks.sm", "MHz"),
    "fb": _Metric("memory.used", "MiB"),
    "bar1": _Metric("dmon.bar1", "MiB"),
    "ccpm": _Metric("dmon.ccpm", "MiB"),
    "rxpci": _Metric("pcie.rx_throughput", "KB/s", scale=1000.0),
    "txpci": _Metric("pcie.tx_throughput", "KB/s", scale=1000.0),
    "pviol": _Metric("dmon.pviol", "%"),
    "tviol": _Metric("dmon.tviol", None, how="any"),
    "sbecc": _Metric("dmon.sbecc", None, how="max"),
    "dbecc": _Metric("dmon.dbecc", None, how="max"),
    "pci": _Metric("dmon.pci_errors", None, how="max"),
}
_SKIP = {"date", "time", "gpu"}


def _metric(name: str, unit: str) -> _Metric:
    known = _METRICS.get(name.lower())
    if known is not None:
        return known
    if unit.upper().startswith("GPM"):
        return _Metric(f"gpm.{name}", "%")
    return _Metric(f"dmon.{name}", None if unit in ("", "-") else unit)


def _collapsed(line: str) -> CommentedTable | None:
    """Rebuild a table from output whose newlines became spaces (``# gpu … # Idx … 0 8 …``)."""
    parts = line.split("#")
    if len(parts) < 3:
        return None
    names = parts[1].split()
    rest = "#".join(parts[2:]).split()
    if not names or len(rest) < len(names):
        return None
    units, values = rest[: len(names)], rest[len(names) :]
    table = CommentedTable(names=names, units=units)
    width = len(names)
    for start in range(0, len(values), width):
        table.rows.append(values[start : start + width])
    return table


def parse_dmon(text: str) -> ParseResult:
    """Read ``nvidia-smi dmon`` output and summarise it per GPU."""
    cleaned = clean(text)
    result = ParseResult()
    table = read_commented_table(cleaned.lines)
    if table is None:
        for candidate in [*cleaned.commands, *cleaned.lines]:
            if "#" in candidate and re.search(r"#\s*Idx\b", candidate):
                table = _collapsed(candidate[candidate.index("#") :])
                if table is not None:
                    result.problems.append(
                        "output collapsed onto one line; rows rebuilt by column count"
                    )
                    break
    if table is None:
        error = tool_error(cleaned.lines)
        if error:
            return ParseResult.unparsed(error)
        return ParseResult.unparsed("no dmon header found ('# gpu …' then '# Idx …')")

    names = [name.lower() for name in table.names]
    if "gpu" not in names:
        return ParseResult.unparsed(f"dmon header has no gpu column: {' '.join(table.names)}")
    if "pid" in names:
        return ParseResult.unparsed("this is nvidia-smi pmon output (a pid column), not dmon")
    gpu_at = names.index("gpu")
    units = table.units + [""] * (len(names) - len(table.units))
    early = _samples_before_header(table, names)
    if early:
        result.problems.append(
            f"{early} sample row(s) printed before the first header, read with its columns"
        )
    readings: dict[tuple[str, int], list[float]] = defaultdict(list)
    # the sample time of each reading above, in the same order; a reading without a time
    # (an unreadable Time cell) leaves its metric without a series
    times: dict[tuple[str, int], list[float]] = defaultdict(list)
    untimed: set[tuple[str, int]] = set()
    samples: dict[str, int] = defaultdict(int)
    bad_rows: list[str] = []
    other = list(table.other)
    clock = _SampleClock(names, _interval(cleaned.commands))
    for row in table.rows:
        if not row[0][:1].isdigit():
            other.append(" ".join(row))
            continue
        if len(row) != len(names) or not row[gpu_at].isdigit():
            bad_rows.append(" ".join(row))
            continue
        subject = f"gpu{int(row[gpu_at])}"
        when = clock.time_of(row, samples[subject])
        samples[subject] += 1
        for column, cell in enumerate(row):
            if names[column] in _SKIP or is_missing(cell):
                continue
            number = to_number(cell)
            if number is None:
                bad_rows.append(" ".join(row))
                break
            readings[(subject, column)].append(float(number))
            if when is None:
                untimed.add((subject, column))
            else:
                times[(subject, column)].append(when)

    if other:
        result.problems.append(
            f"ignored {len(other)} line(s) that are not dmon output (e.g. {other[0][:60]!r})"
        )
    if bad_rows:
        result.problems.append(
            f"skipped {len(bad_rows)} unreadable or truncated row(s) (e.g. {bad_rows[0][:60]!r})"
        )
    for (subject, column), values in sorted(
        readings.items(), key=lambda item: (natural_key(item[0][0]), item[0][1])
    ):
        metric = _metric(table.names[column], units[column])
        result.add(metric.fact, _summarise(values, metric), subject=subject, unit=metric.unit)
        if metric.how == "mean" and len(values) >= 2 and (subject, column) not in untimed:
            scaled = values if metric.scale == 1.0 else [round(v * metric.scale, 6) for v in values]
            series = Series(
                times=tuple(times[(subject, column)]),
                values=tuple(scaled),
                clock=clock.kind,
                start=clock.start,
            )
            add_series_facts(result, metric.fact, subject, metric.unit, series)
    for subject in sorted(samples, key=natural_key):
        result.add("dmon.samples", samples[subject], subject=subject)
    if not samples:
        result.parsed = False
        result.problems.insert(0, "dmon header found but no sample rows")
    return result


#: dmon's columns that are percentages: a sample above the header holds no more than 100 there
_PERCENT_COLUMNS = frozenset({"sm", "mem", "enc", "dec", "jpg", "ofa"})


def _samples_before_header(table: CommentedTable, names: list[str]) -> int:
    """Move sample rows that came before the first ``# gpu`` header into the table's rows.

    A capture that starts between two of dmon's repeated headers (a log trimmed at the top, a
    paste that began mid-run) has samples above its first header; left out, they would drop the
    run's first readings and shift every later sample's time. Only lines before the header can
    be in ``other``; of them, only the block right above the header is taken (another tool's
    numbers further up, ``vmstat`` beside dmon, are not dmon's), and only lines with one cell
    per column, numbers or ``-`` in every metric column, no percentage column above 100, and a
    GPU index that the rows under the header have too. Returns how many were moved.
    """
    gpu_at = names.index("gpu")
    known = {row[gpu_at] for row in table.rows if len(row) > gpu_at}
    moved: list[list[str]] = []
    for line in reversed(table.other):
        cells = line.split()
        if not cells:
            continue
        if not _a_sample(cells, names, gpu_at, known):
            break
        moved.insert(0, cells)
    if moved:
        table.other = table.other[: len(table.other) - _lines_of(table.other, len(moved))]
    table.rows[:0] = moved
    return len(moved)


def _a_sample(cells: list[str], names: list[str], gpu_at: int, known: set[str]) -> bool:
    if len(cells) != len(names) or cells[gpu_at] not in known:
        return False
    for name, cell in zip(names, cells, strict=True):
        if name in ("date", "time") or is_missing(cell):
            continue
        value = to_number(cell)
        if value is None or (name in _PERCENT_COLUMNS and not 0 <= float(value) <= 100):
            return False
    return True


def _lines_of(lines: list[str], samples: int) -> int:
    """How many trailing lines hold the last ``samples`` non-blank ones (blank lines between)."""
    count = 0
    for taken, line in enumerate(reversed(lines), start=1):
        count += bool(line.split())
        if count == samples:
            return taken
    return len(lines)


def _interval(commands: list[str]) -> float:
    """Seconds between samples: ``-d N`` on a pasted dmon command line, else dmon's 1 s."""
    dmon_commands = [command for command in commands if " dmon" in f" {command}"]
    value = to_number(command_option(dmon_commands, "-d", "--delay") or "")
    if value is None or isinstance(value, bool) or not 0 < value < 86_400:
        return 1.0
    return float(value)


class _SampleClock:
    """When each row was sampled, in seconds since the first row of the table.

    From the ``Date``/``Time`` columns when dmon printed them (``-o DT``, ``-o T``); a row
    whose time cannot be read gets no time (its values still count towards the means).
    Without those columns, the n-th sample of a GPU is at n × the interval.
    """

    def __init__(self, names: list[str], interval: float) -> None:
        self.time_at = names.index("time") if "time" in names else None
        self.date_at = names.index("date") if "date" in names else None
        self.interval = interval
        self.kind: Literal["measured", "interval"] = (
            "measured" if self.time_at is not None else "interval"
        )
        self.start: str | None = None
        self._first: float | None = None
        self._last: float | None = None
        self._days = 0

    def time_of(self, row: list[str], sample: int) -> float | None:
        if self.time_at is None:
            return sample * self.interval
        seconds = parse_clock_time(row[self.time_at])
        if seconds is None:
            return None
        if self.date_at is not None:
            date = row[self.date_at]
            if len(date) != 8 or not date.isdigit():
                return None
            day = _day_number(date)
            if day is None:
                return None
            seconds += day * 86_400.0
        else:
            # Time only: a time earlier than the previous row's means midnight passed.
            if self._last is not None and seconds + self._days * 86_400.0 < self._last:
                self._days += 1
            seconds += self._days * 86_400.0
        if self._first is None:
            self._first = seconds
            stamp = row[self.time_at]
            self.start = f"{row[self.date_at]} {stamp}" if self.date_at is not None else stamp
        self._last = seconds
        return seconds - self._first


def _day_number(date: str) -> int | None:
    """Days since 0001-01-01 for ``YYYYMMDD``; None when it is not a calendar date."""
    try:
        return datetime.strptime(date, "%Y%m%d").toordinal()
    except ValueError:
        return None


def _summarise(values: list[float], metric: _Metric) -> FactValue:
    if metric.how == "any":
        return any(value != 0 for value in values)
    if metric.how == "max":
        return int(max(values)) if all(v.is_integer() for v in values) else max(values)
    return round(sum(values) / len(values) * metric.scale, 2)


# dmon's header: "# gpu" (after "#Date Time" with -o DT), then a metric column; pmon's has
# "pid" there instead. Not anchored: a paste may have run the lines together.
_DMON_HEADER = re.compile(
    r"\\?#[ \t]*(?:Date[ \t]+)?(?:Time[ \t]+)?gpu[ \t]+"
    r"(?:pwr|gtemp|mtemp|temp|sm|mem|fb|bar1|ccpm|enc|dec|jpg|ofa|mclk|pclk|pviol|tviol"
    r"|rxpci|txpci|sbecc|dbecc|pci)\b"
)


def recognise_dmon(text: str) -> bool:
    """Whether ``text`` holds ``nvidia-smi dmon`` output (its ``# gpu pwr …`` header)."""
    return _DMON_HEADER.search(text) is not None


PROBE = Probe(
    name="nvidia-smi-dmon",
    summary="Five one-second samples per GPU: SM/memory utilisation, power, clocks, PCIe Rx/Tx",
    parse=parse_dmon,
    recognises=recognise_dmon,
    argv=("nvidia-smi", "dmon", "-s", "pucvmet", "-c", "5"),
    cost="cheap",
    facts=(
        "utilization.gpu",
        "utilization.memory",
        "power.draw",
        "temperature.gpu",
        "clocks.sm",
        "clocks.mem",
        "memory.used",
        "pcie.rx_throughput",
        "pcie.tx_throughput",
        "dmon.samples",
        # patterns (fnmatch): families the parser names per field, section or test
        "dmon.*",
        "gpm.*",
        "utilization.*",
        "*.series",
        "*.series.*",
    ),
    percentages=UTILISATION,
    needs_load=True,
    timeout_s=30.0,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
