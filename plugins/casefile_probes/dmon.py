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

Pastes that collapsed the whole output onto one line (HTML-to-Markdown conversions do this)
are read by cutting the token stream at the two ``#`` headers and chunking the rest by the
number of columns.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from casefile.domain.facts import FactValue, ParseResult
from casefile.probes.api import Probe

from ._text import (
    CommentedTable,
    clean,
    is_missing,
    natural_key,
    read_commented_table,
    to_number,
    tool_error,
)

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
    readings: dict[tuple[str, int], list[float]] = defaultdict(list)
    samples: dict[str, int] = defaultdict(int)
    bad_rows: list[str] = []
    other = list(table.other)
    for row in table.rows:
        if not row[0][:1].isdigit():
            other.append(" ".join(row))
            continue
        if len(row) != len(names) or not row[gpu_at].isdigit():
            bad_rows.append(" ".join(row))
            continue
        subject = f"gpu{int(row[gpu_at])}"
        samples[subject] += 1
        for column, cell in enumerate(row):
            if names[column] in _SKIP or is_missing(cell):
                continue
            number = to_number(cell)
            if number is None:
                bad_rows.append(" ".join(row))
                break
            readings[(subject, column)].append(float(number))

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
    for subject in sorted(samples, key=natural_key):
        result.add("dmon.samples", samples[subject], subject=subject)
    if not samples:
        result.parsed = False
        result.problems.insert(0, "dmon header found but no sample rows")
    return result


def _summarise(values: list[float], metric: _Metric) -> FactValue:
    if metric.how == "any":
        return any(value != 0 for value in values)
    if metric.how == "max":
        return int(max(values)) if all(v.is_integer() for v in values) else max(values)
    return round(sum(values) / len(values) * metric.scale, 2)


PROBE = Probe(
    name="nvidia-smi-dmon",
    summary="Five one-second samples per GPU: SM/memory utilisation, power, clocks, PCIe Rx/Tx",
    parse=parse_dmon,
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
    ),
    needs_load=True,
    timeout_s=30.0,
)
