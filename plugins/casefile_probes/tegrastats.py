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
  (a second cluster's ``GR3D2_FREQ``, as JetPack 5.0 printed Orin's, averaged in); its clock →
  ``clocks.sm`` (MHz: the mean of the clusters that run; a cluster at 0 is powered off);
- ``EMC_FREQ`` X % → ``tegra.emc.load`` (gpu0, %), and its clock → ``clocks.mem`` (MHz). It is
  not ``utilization.memory``: the load is a share of the bandwidth at the memory's current
  clock, which scales with demand (85 % at 204 MHz is a tenth of a 1600 MHz peak), and the
  CPU's traffic is in it, since the memory is shared;
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
samples, or a prompt, is set aside and said in ``problems``, and so is a line cut before the
GPU's load; a clock that ends a line was cut mid-number and is left out. Times come from the
lines' stamps where every line has one and they rise, else from the line's number times the
interval (``--interval`` on the pasted tegrastats command, in milliseconds; one second without
it): stamps print whole seconds, so a faster interval repeats them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Literal

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._scales import UTILISATION

from ._jetson import JETSON
from ._text import clean_paste, command_option, to_number
from .series import Series, add_series_facts

__all__ = ["PROBE", "parse_tegrastats", "recognise_tegrastats"]

GPU = "gpu0"
HOST = "host"

_STAMP = re.compile(r"^\s*(?P<stamp>\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2})\s")
_RAM = re.compile(r"\bRAM (?P<used>\d{1,9})/(?P<total>\d{1,9})MB\b")
_SWAP = re.compile(r"\bSWAP (?P<used>\d{1,9})/(?P<total>\d{1,9})MB\b")
#: up to 400 characters of cores: 14 cores of ``100%@2201,`` are 140
_CPU = re.compile(r"\b(?:CPU|cpu) \[(?P<cores>[^\]]{0,400})\](?:@(?P<clock>\d{1,6}))?")
_CORE = re.compile(r"^(?P<load>\d{1,3})%(?:@(?P<clock>\d{1,6}))?$")
_EMC = re.compile(r"\bEMC(?:_FREQ)? (?P<load>\d{1,3})%(?:@(?P<clock>\d{1,6}))?")
_GR3D = re.compile(
    r"\bGR3D2?(?:_FREQ)? (?P<load>\d{1,3})%"
    r"(?:@(?:\[(?P<clocks>[\d,]{1,200})\]|(?P<clock>\d{1,6})))?"
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
_NOT_RAILS = frozenset({"RAM", "SWAP", "IRAM", "NC"})
#: below this a temperature sensor is absent (tegrastats prints -256C for one)
_ABSENT_BELOW = -40.0


@dataclass
class _Samples:
    """Each metric's readings, with the number of the line they came from (times are given to
    line numbers once every line has been seen: see :func:`_line_times`)."""

    values: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    lines: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(list))

    def add(self, subject: str, fact: str, value: float, line: int) -> None:
        self.values[(subject, fact)].append(value)
        self.lines[(subject, fact)].append(line)


#: (subject, fact, unit) of the facts averaged over lines and kept as a series, in output order
_AVERAGED: tuple[tuple[str, str, str | None], ...] = (
    (GPU, "utilization.gpu", "%"),
    (GPU, "clocks.sm", "MHz"),
    (GPU, "tegra.emc.load", "%"),
    (GPU, "clocks.mem", "MHz"),
    (GPU, "temperature.gpu", "C"),
    (HOST, "tegra.cpu.busy", "%"),
    (HOST, "tegra.cpu.busiest", "%"),
)
#: a line that begins like a tegrastats line but was cut before its GPU's load
_CUT_LINE = re.compile(r"^\s*(?:\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}\s+)?RAM \d")
_NOT_FOUND = re.compile(
    r"tegrastats:?\s.{0,40}(?:command not found|No such file)|not found.{0,20}tegrastats"
)


def parse_tegrastats(text: str) -> ParseResult:
    """Read ``tegrastats`` output (one sample per line) and summarise it."""
    cleaned = clean_paste(text)
    result = ParseResult()
    samples = _Samples()
    rails: dict[str, list[float]] = defaultdict(list)
    other: list[str] = []
    cut = 0
    stamps: list[tuple[str, datetime] | None] = []
    online: list[int] = []
    ram: tuple[int, int] | None = None
    swap: int | None = None
    # a line without the GPU's load where others have it was cut before it (a privileged run
    # prints it on every line; an unprivileged one on none, and its lines are whole)
    with_load = any(_GR3D.search(line) for line in cleaned.lines)
    commands = list(cleaned.commands)
    for line in cleaned.lines:
        if not line.strip():
            continue
        if _BARE_COMMAND.match(line):
            commands.append(line.strip())
            continue
        # a sample line has the GPU's load, or (where no line has it) the RAM reading
        if _GR3D.search(line) is None and (with_load or _RAM.search(line) is None):
            if _CUT_LINE.match(line):
                cut += 1
            else:
                other.append(line.strip())
            continue
        number = len(stamps)
        stamps.append(_stamp_of(line))
        _read_gpu(line, samples, number)
        cores = _read_cpu(line, samples, number)
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
    if not stamps:
        return ParseResult.unparsed(_why_nothing(cleaned.lines))
    if other:
        result.problems.append(
            f"ignored {len(other)} line(s) that are not tegrastats output (e.g. {other[0][:60]!r})"
        )
    if cut:
        result.problems.append(f"{cut} line(s) cut short before the GPU's load, left out")
    times, clock, start = _line_times(stamps, _interval(commands))
    for subject, fact, unit in _AVERAGED:
        values = samples.values.get((subject, fact))
        if not values:
            continue
        result.add(fact, round(sum(values) / len(values), 2), subject=subject, unit=unit)
        series = Series(
            times=tuple(times[n] for n in samples.lines[(subject, fact)]),
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
    result.add("tegrastats.samples", len(stamps), subject=GPU)
    return result


def _why_nothing(lines: list[str]) -> str:
    """The reason a paste holds no tegrastats line: the shell's, where it could not run it."""
    for line in lines:
        if _NOT_FOUND.search(line):
            return f"tegrastats did not run: {line.strip()[:120]} (it exists only on a Jetson)"
    return "no tegrastats lines found ('RAM …MB … GR3D_FREQ …%')"


def _line_times(
    stamps: list[tuple[str, datetime] | None], interval: float
) -> tuple[list[float], Literal["measured", "interval"], str | None]:
    """Each line's time in seconds since the first: from its stamp where every line has one
    and they rise (stamps print whole seconds, so a faster ``--interval`` repeats them and
    the interval says more), else the line's number times the interval."""
    first = stamps[0]
    moments = [stamp[1] for stamp in stamps if stamp is not None]
    rising = all(later > earlier for earlier, later in pairwise(moments))
    if first is not None and len(moments) == len(stamps) and rising and interval >= 1.0:
        return [(moment - first[1]).total_seconds() for moment in moments], "measured", first[0]
    return [number * interval for number in range(len(stamps))], "interval", None


def _read_gpu(line: str, samples: _Samples, number: int) -> None:
    """The GPU's load and clock (a second cluster's ``GR3D2_FREQ`` beside it, as JetPack 5.0
    printed Orin's, is averaged in), the memory controller's load and clock, and the GPU's
    temperature. A lone clock that ends the line is a line cut mid-number (a whole line never
    ends there); a bracketed list is whole once it closes."""
    end = len(line.rstrip())
    loads: list[float] = []
    clocks: list[float] = []
    for cluster in _GR3D.finditer(line):
        loads.append(float(cluster.group("load")))
        if cluster.group("clock") is None or cluster.end() < end:
            clocks.extend(_clocks(cluster.group("clock"), cluster.group("clocks")))
    if loads:
        samples.add(GPU, "utilization.gpu", sum(loads) / len(loads), number)
    if clocks:
        samples.add(GPU, "clocks.sm", sum(clocks) / len(clocks), number)
    memory = _EMC.search(line)
    if memory is not None:
        samples.add(GPU, "tegra.emc.load", float(memory.group("load")), number)
        if memory.group("clock") is not None and memory.end() < end:
            samples.add(GPU, "clocks.mem", float(memory.group("clock")), number)
    for sensor in _SENSOR.finditer(line):
        if sensor.group("name").lower() != "gpu":
            continue
        value = float(sensor.group("value"))
        if value >= _ABSENT_BELOW:
            samples.add(GPU, "temperature.gpu", value, number)
        break


def _clocks(single: str | None, clusters: str | None) -> list[float]:
    """The GPU's running clocks in MHz: one figure, or one per cluster (Orin), leaving out a
    cluster at 0, which is powered off, whichever way it is printed."""
    printed = [single] if single is not None else (clusters or "").split(",")
    return [float(part) for part in printed if part.isdigit() and int(part) > 0]


def _read_cpu(line: str, samples: _Samples, number: int) -> int | None:
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
        samples.add(HOST, "tegra.cpu.busy", round(sum(loads) / len(loads), 2), number)
        samples.add(HOST, "tegra.cpu.busiest", max(loads), number)
    return len(loads)


def _stamp_of(line: str) -> tuple[str, datetime] | None:
    """A line's stamp (``MM-DD-YYYY HH:MM:SS``, as printed and as a time), if it has one."""
    stamped = _STAMP.match(line)
    if stamped is None:
        return None
    try:
        return stamped.group("stamp"), datetime.strptime(
            stamped.group("stamp"), "%m-%d-%Y %H:%M:%S"
        )
    except ValueError:
        return None


def _interval(commands: list[str]) -> float:
    """Seconds between lines: ``--interval N`` (milliseconds) on the pasted tegrastats command,
    else 1 s. Only the tegrastats part of a command line counts: ``detect.py --interval 10 &
    sudo tegrastats`` runs it at its default."""
    ours = [
        part
        for command in commands
        for part in _COMMAND_PARTS.split(command)
        if _TEGRASTATS_WORD.search(part)
    ]
    value = to_number(command_option(ours, "--interval", "-interval") or "")
    if value is None or isinstance(value, bool) or not 0 < value < 86_400_000:
        return 1.0
    return float(value) / 1000.0


#: the shell's separators between commands on one line
_COMMAND_PARTS = re.compile(r"&&|\|\||[;&|]")
_TEGRASTATS_WORD = re.compile(r"(?:^|[\s/])tegrastats\b")
#: a tegrastats command line pasted without its prompt (``sudo tegrastats --interval 5000``);
#: an option's value never starts with a dash, so each word has one reading (no backtracking)
_BARE_COMMAND = re.compile(
    r"^\s*(?:sudo\s+)?(?:\S*/)?tegrastats(?:\s+-{1,2}[A-Za-z][\w-]*(?:[=\s]+[^-\s]\S*)?)*\s*$"
)
#: tegrastats' memory block, ``RAM 1685/7854MB (lfb 1044x4MB)``: no other tool prints it
_LFB = re.compile(r"\bRAM \d{1,9}/\d{1,9}MB \(lfb \d{1,9}x\d{1,9}[kM]B\)")


def recognise_tegrastats(text: str) -> bool:
    """Whether ``text`` holds a tegrastats line: its GPU load beside the memory controller's or
    the RAM, or its memory block (an unprivileged run prints no GPU load)."""
    if not isinstance(text, str):
        return False
    if _LFB.search(text) is not None:
        return True
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
    # tegrastats prints until it is stopped, so casefile does not run it (a run would end in
    # its timeout): its output is pasted, and this is the command that printed it
    argv=("tegrastats", "--interval", "1000"),
    where=frozenset({"pasted"}),
    cost="cheap",
    facts=(
        "utilization.gpu",
        "clocks.sm",
        "clocks.mem",
        "temperature.gpu",
        "tegrastats.samples",
        "tegra.*",
        "*.series",
        "*.series.*",
    ),
    percentages=UTILISATION,
    needs_load=True,
    timeout_s=30.0,
    only_on=JETSON,
)
