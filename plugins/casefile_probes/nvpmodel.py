"""``nvpmodel -q`` and ``jetson_clocks --show``: the power mode a Jetson runs in.

A Jetson's power mode (``nvpmodel -m N``) sets the budget its clocks and cores live within:
MAXN lets them run to the module's limits, a 10, 15 or 30 W mode holds them down, and many
boards ship in one of those. It is the first thing a Jetson's maintainers ask about a slow
model, because a reduced mode alone can cost a factor of two or three. ``nvpmodel -q`` says it
in one line (``NV Power Mode: MODE_15W``, then the mode's number; with ``--verbose``, behind
``NVPM VERB: Current mode:``), and ``jetson_clocks --show`` prints the same line after each
clock's range.

Facts (subject ``host``):

- ``jetson.power_mode`` (str): the mode's name as printed (``MAXN``, ``MODE_30W_ALL``);
- ``jetson.power_mode.id`` (int): its number, where the line after the name gives one;
- ``jetson.power_mode.reduced`` (bool): a mode other than MAXN (``MAXN_SUPER`` is MAXN). Not
  given for a mode that is the top of a board without a MAXN mode (:data:`TOPS_WITHOUT_MAXN`:
  Xavier NX's ``MODE_20W_6CORE``, an Orin Nano's ``15W`` before JetPack 6.2), where the
  output alone cannot say whether the budget was reduced;
- from ``jetson_clocks --show``: ``jetson.soc`` and ``jetson.machine`` (its first line,
  ``SOC family:tegra234  Machine:…``), ``jetson.gpu_clock.min`` / ``.max`` / ``.current`` and
  ``jetson.emc_clock.*`` (MHz; printed in Hz), and ``jetson.clocks_locked`` (bool): the GPU's
  minimum clock raised to its maximum, which is what running ``jetson_clocks`` does.

The last mode printed wins where a paste holds two queries (before and after ``nvpmodel -m``).
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._jetson import JETSON
from ._text import clean_paste

__all__ = ["PROBE", "parse_nvpmodel", "recognise_nvpmodel"]

HOST = "host"

#: ``NV Power Mode: MODE_15W``, alone on its line or behind ``NVPM VERB: Current mode:``
#: (jetson-stats' ``jetson_release`` writes ``NV Power Mode[0]: MAXN``); every line pattern
#: here takes a line quoted by itself (``> NV Power Mode: MAXN`` in a mail-style reply)
_MODE = re.compile(
    r"^[\s>]{0,8}(?:NVPM VERB:\s{0,8}Current mode:\s{0,8})?"
    r"NV Power Mode(?:\[(?P<bracket>\d{1,3})\])?\s{0,8}:\s{0,8}(?P<name>[A-Za-z0-9_.+-]{1,64})\s*$"
)
_NUMBER = re.compile(r"^[\s>]{0,8}(?P<id>\d{1,3})\s*$")
#: ``GPU MinFreq=114750000 MaxFreq=1377000000 CurrentFreq=318750000`` (Hz)
_CLOCKS = re.compile(
    r"^[\s>]{0,8}(?P<unit>GPU|EMC)\s{1,8}MinFreq=(?P<min>\d{1,12})\s+MaxFreq=(?P<max>\d{1,12})"
    r"(?:\s+CurrentFreq=(?P<current>\d{1,12}))?"
)
#: ``SOC family:tegra234  Machine:NVIDIA Jetson Orin NX …``, jetson_clocks' first line
_MACHINE = re.compile(
    r"^[\s>]{0,8}SOC family:\s{0,8}(?P<soc>\S{1,40})\s{1,8}"
    r"Machine:\s{0,8}(?P<machine>\S.{0,199}?)\s*$"
)
_MAXN = re.compile(r"^MAXN", re.IGNORECASE)
#: modes that are the highest of a board with no MAXN mode: Xavier NX's 20 W six-core mode
#: (its 15 W six-core one before JetPack 4.6 added 20 W), an Orin Nano's 15 W (8 GB) or 10 W
#: (4 GB) before JetPack 6.2 added MAXN_SUPER. On another board the same watts are reduced.
TOPS_WITHOUT_MAXN = frozenset({"MODE_20W_6CORE", "MODE_15W_6CORE", "15W", "10W"})
#: lines that say why no mode was printed: nvpmodel's own errors, the shell's
_FAILED = re.compile(
    r"NVPM ERROR:.{0,200}|nvpmodel:?\s.{0,40}(?:command not found|No such file).{0,40}"
    r"|.{0,40}not found.{0,20}nvpmodel.{0,40}|jetson_clocks:?\s.{0,40}command not found"
)
_HZ_PER_MHZ = 1_000_000


def parse_nvpmodel(text: str) -> ParseResult:
    """Read the power mode from ``nvpmodel -q`` or ``jetson_clocks --show`` output."""
    cleaned = clean_paste(text)
    result = ParseResult()
    mode: str | None = None
    number: int | None = None
    clocks: dict[str, tuple[float, float, float | None]] = {}
    machine: tuple[str, str] | None = None
    lines = cleaned.lines
    for at, line in enumerate(lines):
        found = _MODE.match(line)
        if found is not None:
            mode, number = found.group("name"), None
            if found.group("bracket") is not None:
                number = int(found.group("bracket"))
            following = lines[at + 1] if at + 1 < len(lines) else ""
            numbered = _NUMBER.match(following)
            if numbered is not None:
                number = int(numbered.group("id"))
            continue
        found = _MACHINE.match(line)
        if found is not None:
            machine = (found.group("soc"), found.group("machine"))
            continue
        found = _CLOCKS.match(line)
        if found is not None:
            current = found.group("current")
            clocks[found.group("unit").lower()] = (
                int(found.group("min")) / _HZ_PER_MHZ,
                int(found.group("max")) / _HZ_PER_MHZ,
                None if current is None else int(current) / _HZ_PER_MHZ,
            )
    if mode is None and not clocks and machine is None:
        return ParseResult.unparsed(_why_nothing(lines))
    if machine is not None:
        result.add("jetson.soc", machine[0], subject=HOST)
        result.add("jetson.machine", machine[1], subject=HOST)
    if mode is not None:
        result.add("jetson.power_mode", mode, subject=HOST)
        if number is not None:
            result.add("jetson.power_mode.id", number, subject=HOST)
        if mode.upper() in TOPS_WITHOUT_MAXN:
            result.problems.append(
                f"{mode} is the top mode of some boards (Xavier NX, an Orin Nano before "
                "JetPack 6.2) and reduced on others: not read as either"
            )
        else:
            result.add("jetson.power_mode.reduced", _MAXN.match(mode) is None, subject=HOST)
    else:
        result.problems.append("no 'NV Power Mode:' line (cut from the paste?)")
    for unit, (low, high, now) in sorted(clocks.items()):
        result.add(f"jetson.{unit}_clock.min", round(low, 3), subject=HOST, unit="MHz")
        result.add(f"jetson.{unit}_clock.max", round(high, 3), subject=HOST, unit="MHz")
        if now is not None:
            result.add(f"jetson.{unit}_clock.current", round(now, 3), subject=HOST, unit="MHz")
    if "gpu" in clocks:
        low, high, _ = clocks["gpu"]
        result.add("jetson.clocks_locked", low >= high, subject=HOST)
    return result


def _why_nothing(lines: list[str]) -> str:
    """The reason no mode was read: nvpmodel's own error or the shell's, where one is there."""
    for line in lines:
        failed = _FAILED.search(line)
        if failed is not None:
            return f"nvpmodel gave no mode: {line.strip()[:160]}"
    return "no power mode ('NV Power Mode: …') or clock ranges ('GPU MinFreq=…') found"


def recognise_nvpmodel(text: str) -> bool:
    """Whether ``text`` holds a line the parser reads: a power mode, or ``jetson_clocks``' first
    line or a clock range. The same patterns as the parser's, so that whatever is recognised
    parses, and whatever parses is recognised."""
    if not isinstance(text, str):
        return False
    return any(
        _MODE.match(line) or _CLOCKS.match(line) or _MACHINE.match(line)
        for line in clean_paste(text).lines
    )


PROBE = Probe(
    name="nvpmodel",
    summary="A Jetson's power mode (nvpmodel -q; jetson_clocks --show also gives the clocks)",
    parse=parse_nvpmodel,
    recognises=recognise_nvpmodel,
    argv=("nvpmodel", "-q"),
    cost="instant",
    facts=(
        "jetson.power_mode",
        "jetson.power_mode.id",
        "jetson.power_mode.reduced",
        "jetson.clocks_locked",
        "jetson.soc",
        "jetson.machine",
        "jetson.gpu_clock.*",
        "jetson.emc_clock.*",
    ),
    timeout_s=15.0,
    only_on=JETSON,
)
