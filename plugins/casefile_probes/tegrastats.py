"""``tegrastats``: a Jetson's readout, one line per interval, summarised for the rules.

A Jetson module (TX1, TX2, Nano, Xavier, Orin, Thor) has an integrated GPU that shares the
module's memory and power budget, and ``nvidia-smi`` there says little or nothing. What people
paste when a model runs slowly on one is ``tegrastats``: every interval (one second unless
``--interval`` gives milliseconds) a line such as ::

    RAM 1685/7854MB (lfb 1044x4MB) CPU [4%@346,0%@344,off,off] EMC_FREQ 16%@1600
    GR3D_FREQ 99%@1300 GPU@39C PLL@41C VDD_GPU 4154/3902 VDD_IN 9776/9853

(one line in the output; Orin prefixes a ``MM-DD-YYYY HH:MM:SS`` stamp, writes the GPU's
clock per graphics cluster as ``GR3D_FREQ 99%@[1300,1300]`` and the rails as
``VDD_GPU_SOC 2340mW/2340mW``; the TK1 and TX1's older layout writes ``cpu [14%,43%]@1912
EMC 24%@1600 GR3D 52%@998``, read the same way).

Read per line, then summarised like ``nvidia-smi dmon`` (the mean over the lines that print a
value, with the series beside it), under the names the nvidia-smi probes use, so that rules
written for them read a Jetson too:

- ``GR3D_FREQ`` X % → ``utilization.gpu`` (gpu0, %), the share of time the GPU engine is busy
  at its current clock; its clock → ``clocks.sm`` (MHz: the mean of the clusters that run);
- ``EMC_FREQ`` X % → ``utilization.memory`` (gpu0, %): the share of the memory controller's
  bandwidth in use at its current clock, the CPU's traffic included (the memory is shared);
  its clock → ``clocks.mem`` (MHz);
- the ``GPU@`` (or ``gpu@``) sensor → ``temperature.gpu`` (gpu0, C); a sensor that reads
  -256 C or below -40 C is absent, not cold;
- per line, the mean of the online cores' loads and the busiest core's: ``tegra.cpu.busy`` and
  ``tegra.cpu.busiest`` (host, %), with ``tegra.cpu.online`` (the cores that were not ``off``);
- ``RAM used/totalMB`` → ``tegra.ram.used``, ``tegra.ram.total`` (host, MB; the last line's:
  memory is a level, not a rate); ``SWAP`` → ``tegra.swap.used`` (MB);
- each power rail (``VDD_GPU 4154/3902``: the current reading, then the average since
  tegrastats started, in mW) → ``tegra.power.<RAIL>`` (host, W): the mean of the current
  readings. Rails named ``NC`` (not connected) are left out.

Plus ``tegrastats.samples`` (gpu0): the lines read. A line of someone's prose between the
samples, or a prompt, is set aside and said in ``problems``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._jetson import JETSON
from ._text import clean_paste, command_option, to_number, tool_error
from .series import Series, add_series_facts

__all__ = ["PROBE", "parse_tegrastats", "recognise_tegrastats"]

GPU = "gpu0"
HOST = "host"

_STAMP = re.compile(r"^\s*(?P<stamp>\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2})\s")
_RAM = re.compile(r"\bRAM (?P<used>\d{1,9})/(?P<total>\d{1,9})MB\b")
_SWAP = re.compile(r"\bSWAP (?P<used>\d{1,9})/(?P<total>\d{1,9})MB\b")
_CPU = re.compile(r"\b(?:CPU|cpu) \[(?P<cores>[^\]]{0,2000})\](?:@(?P<clock>\d{1,6}))?")
_CORE = re.compile(r"^(?P<load>\d{1,3})%(?:@(?P<clock>\d{1,6}))?$")
_EMC = re.compile(r"\bEMC(?:_FREQ)? (?P<load>\d{1,3})%(?:@(?P<clock>\d{1,6}))?")
_GR3D = re.compile(
    r"\bGR3D(?:_FREQ)? (?P<load>\d{1,3})%(?:@(?:\[(?P<clocks>[\d,]{1,200})\]|(?P<clock>\d{1,6})))?"
)
#: a sensor: ``GPU@39C``, ``gpu@45.5C``, ``CV0@-256C``
_SENSOR = re.compile(
    r"(?<![\w@])(?P<name>[A-Za-z][A-Za-z0-9_]{0,31})@(?P<value>-?\d{1,3}(?:\.\d{1,4})?)C\b"
)
#: a rail: ``VDD_GPU 4154/3902``, ``VDD_GPU_SOC 2340mW/2340mW``, ``POM_5V_GPU 123/123``
_RAIL = re.compile(
    r"(?<![\w@/])(?P<name>[A-Z][A-Z0-9_]{0,31}) "
    r"(?P<now>\d{1,7})(?:mW)?/(?P<mean>\d{1,7})(?:mW)?(?![\w/])"
)
#: what a tegrastats line has and nothing else prints together
_SAMPLE_LINE = re.compile(r"\bRAM \d{1,9}/\d{1,9}MB\b|\bGR3D(?:_FREQ)? \d{1,3}%")
_NOT_RAILS = frozenset({"RAM", "SWAP", "IRAM", "NC"})
#: below this a temperature sensor is absent (tegrastats prints -256C for one)
_ABSENT_BELOW = -40.0


@dataclass
class _Samples:
    """Each metric's readings, with the time of the line they came from."""

    values: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    times: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, subject: str, fact: str, value: float, when: float) -> None:
        self.values[(subject, fact)].append(value)
        self.times[(subject, fact)].append(when)


#: (fact, unit, kept as a series) for the facts averaged over lines, in output order
_AVERAGED: tuple[tuple[str, str, str | None], ...] = (
    (GPU, "utilization.gpu", "%"),
    (GPU, "clocks.sm", "MHz"),
    (GPU, "utilization.memory", "%"),
    (GPU, "clocks.mem", "MHz"),
    (GPU, "temperature.gpu", "C"),
    (HOST, "tegra.cpu.busy", "%"),
    (HOST, "tegra.cpu.busiest", "%"),
)


def parse_tegrastats(text: str) -> ParseResult:
    """Read ``tegrastats`` output (one sample per line) and summarise it."""
    cleaned = clean_paste(text)
    result = ParseResult()
    interval = _interval(cleaned.commands)
    samples = _Samples()
    rails: dict[str, list[float]] = defaultdict(list)
    other: list[str] = []
    lines = 0
    first_stamp: datetime | None = None
    start: str | None = None
    online: list[int] = []
    ram: tuple[int, int] | None = None
    swap: int | None = None
    for line in cleaned.lines:
        if not line.strip():
            continue
        if _SAMPLE_LINE.search(line) is None:
            other.append(line.strip())
            continue
        when = lines * interval
        stamped = _STAMP.match(line)
        if stamped is not None:
            moment = _stamp(stamped.group("stamp"))
            if moment is not None:
                if first_stamp is None:
                    first_stamp, start = moment, stamped.group("stamp")
                when = (moment - first_stamp).total_seconds()
        lines += 1
        _read_gpu(line, samples, when)
        cores = _read_cpu(line, samples, when)
        if cores is not None:
            online.append(cores)
        found = _RAM.search(line)
        if found is not None:
            ram = (int(found.group("used")), int(found.group("total")))
        found = _SWAP.search(line)
        if found is not None:
            swap = int(found.group("used"))
        for rail in _RAIL.finditer(line):
            if rail.group("name") not in _NOT_RAILS:
                rails[rail.group("name")].append(int(rail.group("now")) / 1000.0)
    if not lines:
        error = tool_error(cleaned.lines)
        return ParseResult.unparsed(error or "no tegrastats lines found ('RAM …MB … GR3D_FREQ …%')")
    if other:
        result.problems.append(
            f"ignored {len(other)} line(s) that are not tegrastats output (e.g. {other[0][:60]!r})"
        )
    clock: Literal["measured", "interval"] = "measured" if first_stamp is not None else "interval"
    for subject, fact, unit in _AVERAGED:
        values = samples.values.get((subject, fact))
        if not values:
            continue
        result.add(fact, round(sum(values) / len(values), 2), subject=subject, unit=unit)
        series = Series(
            times=tuple(samples.times[(subject, fact)]),
            values=tuple(values),
            clock=clock,
            start=start,
        )
        add_series_facts(result, fact, subject, unit, series)
    if (GPU, "utilization.gpu") not in samples.values:
        result.problems.append("no GR3D_FREQ (the GPU's load) on any line")
    if online:
        result.add("tegra.cpu.online", max(online), subject=HOST)
    if ram is not None:
        result.add("tegra.ram.used", ram[0], subject=HOST, unit="MB")
        result.add("tegra.ram.total", ram[1], subject=HOST, unit="MB")
    if swap is not None:
        result.add("tegra.swap.used", swap, subject=HOST, unit="MB")
    for name in sorted(rails):
        readings = rails[name]
        result.add(
            f"tegra.power.{name}", round(sum(readings) / len(readings), 3), subject=HOST, unit="W"
        )
    result.add("tegrastats.samples", lines, subject=GPU)
    return result


def _read_gpu(line: str, samples: _Samples, when: float) -> None:
    """The GPU's load and clock, the memory controller's, and the GPU's temperature."""
    found = _GR3D.search(line)
    if found is not None:
        samples.add(GPU, "utilization.gpu", float(found.group("load")), when)
        clock = _clock(found.group("clock"), found.group("clocks"))
        if clock is not None:
            samples.add(GPU, "clocks.sm", clock, when)
    found = _EMC.search(line)
    if found is not None:
        samples.add(GPU, "utilization.memory", float(found.group("load")), when)
        if found.group("clock") is not None:
            samples.add(GPU, "clocks.mem", float(found.group("clock")), when)
    for sensor in _SENSOR.finditer(line):
        if sensor.group("name").lower() != "gpu":
            continue
        value = float(sensor.group("value"))
        if value >= _ABSENT_BELOW:
            samples.add(GPU, "temperature.gpu", value, when)
        break


def _clock(single: str | None, clusters: str | None) -> float | None:
    """The GPU's clock in MHz: one figure, or the mean of the clusters that run (Orin prints
    one per cluster, 0 for a cluster that is powered off)."""
    if single is not None:
        return float(single)
    if clusters is None:
        return None
    running = [int(part) for part in clusters.split(",") if part.isdigit() and int(part) > 0]
    if not running:
        return None
    return sum(running) / len(running)


def _read_cpu(line: str, samples: _Samples, when: float) -> int | None:
    """The online cores' mean load and the busiest core's on one line; returns how many cores
    were online (None where the line has no CPU list)."""
    found = _CPU.search(line)
    if found is None:
        return None
    loads: list[float] = []
    for entry in found.group("cores").split(","):
        core = _CORE.match(entry.strip())
        if core is not None:
            loads.append(float(core.group("load")))
    if loads:
        samples.add(HOST, "tegra.cpu.busy", round(sum(loads) / len(loads), 2), when)
        samples.add(HOST, "tegra.cpu.busiest", max(loads), when)
    return len(loads)


def _stamp(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%m-%d-%Y %H:%M:%S")
    except ValueError:
        return None


def _interval(commands: list[str]) -> float:
    """Seconds between lines: ``--interval N`` (milliseconds) on a pasted command, else 1 s."""
    value = to_number(command_option(commands, "--interval", "-interval") or "")
    if value is None or isinstance(value, bool) or not 0 < value < 86_400_000:
        return 1.0
    return float(value) / 1000.0


def recognise_tegrastats(text: str) -> bool:
    """Whether ``text`` holds a tegrastats line (its GPU load beside the memory or RAM)."""
    if not isinstance(text, str):
        return False
    return _GR3D.search(text) is not None and (
        _RAM.search(text) is not None or _EMC.search(text) is not None
    )


PROBE = Probe(
    name="tegrastats",
    summary=(
        "A Jetson's GPU and memory-controller load, clocks, temperatures and power rails "
        "(paste a few seconds of it under load: it runs until stopped)"
    ),
    parse=parse_tegrastats,
    recognises=recognise_tegrastats,
    # no command of its own: tegrastats prints until it is stopped, so a run would end in a
    # timeout; its output is pasted, or the command given (``timeout 10 tegrastats``)
    argv=(),
    cost="cheap",
    facts=(
        "utilization.gpu",
        "utilization.memory",
        "clocks.sm",
        "clocks.mem",
        "temperature.gpu",
        "tegrastats.samples",
        "tegra.*",
        "*.series",
        "*.series.*",
    ),
    needs_load=True,
    timeout_s=30.0,
    only_on=JETSON,
)
