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
(each starts with its ``Linux … (N CPU)`` banner) that is not an average since boot (a run
without an interval gives no fact: see ``_sysstat_report``), and of it the ``Average:`` rows
when printed, else the mean of every interval's rows. Through a parallel shell (pdsh, clush:
``node1: `` before every line) each node's lines are read on their own and the nodes' kept rows
together give the host's facts (each core is its node's: ``node1:cpu0``, where several
nodes give rows); a node averaged since boot is left out and named in a problem.
Rows cut short are skipped and said as a problem; mpstat's per-node rows (``-N``) are not
cores, so only their ``all`` row is read. Decimal commas (``99,7 id``) are read as points.

pidstat's report pasted or typed out as a Markdown table (``| UID | TGID | TID | %usr | … |
Command |`` above a ``|---|`` row; a thread's mark escaped as ``\\|__``) is read as the plain
report is (see ``cpu_sysstat._unpiped``).

Other screens people paste as "top": busybox's (``CPU:  0% usr  2% sys … 48% idle 48% io``,
``%CPU`` cells written ``1%``) reads like procps top, ``io`` being its iowait; htop's CPU meters
(``3[|100.0%]``) give each core's busy and their mean, htop counting neither idle nor (unless
set to detailed) iowait as busy. htop numbers its cores from 0 or, in older versions and by
setting, from 1, so the meters name cores only when one is labelled 0; otherwise only the
busiest and the mean are given. macOS top (``CPU usage: 6.87% user, 25.95% sys, 67.17%
idle``) is refused: no NVIDIA GPU runs on a Mac, so its load is a laptop's, not the GPU host's,
and a fact on ``host`` would be evidence about the wrong machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._text import clean_paste, natural_key
from .cpu_sysstat import number, parse_mpstat, parse_pidstat, pct, strip_annotation

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
# busybox: "CPU:   0% usr   2% sys   0% nic  48% idle  48% io   0% irq   0% sirq" ("CPU0:" per
# core with its SMP option); its names mapped onto procps top's
_BUSYBOX_CPU = re.compile(r"^CPU(?P<id>\d{0,5}):\s{0,8}(?=\d{1,3}(?:[.,]\d{1,2})?%\s{0,4}usr\b)")
_BUSYBOX_FIELD = re.compile(
    r"(?<![\d.,])(?P<v>\d{1,3}(?:[.,]\d{1,2})?)%\s{0,4}(?P<k>usr|sys|nic|idle|io|irq|sirq)\b"
)
_BUSYBOX_KEYS = {"usr": "us", "sys": "sy", "nic": "ni", "idle": "id", "io": "wa", "irq": "hi"}
# htop's meters: "  3[|100.0%]", "12[   0.0%]", "Avg[||  2.5%]"; several on a line
_HTOP_METER = re.compile(
    r"(?<!\S)(?P<id>\d{1,4}|Avg)\s{0,3}\[[|#*:!\s]{0,400}?(?P<v>\d{1,3}(?:[.,]\d)?)%\]"
)
_MACOS_CPU = re.compile(r"^CPU usage: [\d.]+% user, [\d.]+% sys, [\d.]+% idle", re.M)

_LOOKS_TOP = re.compile(
    r"^(?:top - \d{1,2}:\d{2}:\d{2} |%?Cpu(?:\(s\)|\d{1,5})\s{0,8}:\s{0,8}\d"
    r"|\s{0,12}PID\s+USER\s+PR\s+NI\s+VIRT\b"
    r"|CPU\d{0,5}:\s{0,8}\d{1,3}(?:[.,]\d{1,2})?%\s{0,4}usr\s{1,8}\d"
    r"|\s{0,12}PID\s+PPID\s+USER\s+STAT\s+VSZ\s+%VSZ\b"
    r"|\s{0,8}(?:\d{1,4}\s{0,3}\[[|#*:!\s]{0,200}\d{1,3}\.\d%\]\s{1,40}){2})",
    re.M,
)
_LOOKS_MPSTAT = re.compile(
    r"\b(?:CPU|NODE)\s+%us(?:e)?r\s+%nice\s+%sys\s+%iowait\b[^\n]{0,200}%idle", re.M
)
#: blanks between the columns, or a Markdown table's cell border (``| TID | %usr |``)
_LOOKS_PIDSTAT = re.compile(
    r"\b(?:PID|TID)(?:\s*\|\s*|\s+)%us(?:e)?r(?:\s*\|\s*|\s+)%system(?:\s*\|\s*|\s+)"
    r"(?:%guest|%CPU)\b"
)


def looks_like_top(text: str) -> bool:
    """A top screen: its first line, a CPU summary or per-CPU line, or its process header
    (busybox's too), or a line of two htop CPU meters or more."""
    return isinstance(text, str) and _LOOKS_TOP.search(text) is not None


def looks_like_mpstat(text: str) -> bool:
    """An mpstat header: ``CPU %usr %nice %sys %iowait … %idle`` (or ``NODE`` for ``-N``)."""
    return isinstance(text, str) and _LOOKS_MPSTAT.search(text) is not None


def looks_like_pidstat(text: str) -> bool:
    """A pidstat CPU header: ``PID`` (or ``TID``) then ``%usr %system %guest``, apart by
    blanks or as a Markdown table's cells."""
    return isinstance(text, str) and _LOOKS_PIDSTAT.search(text) is not None


# ---------------------------------------------------------------------------- top


@dataclass
class _Screen:
    """One top screen: its summary line, per-CPU lines and process rows."""

    summary: dict[str, float] | None = None
    cores: dict[str, dict[str, float]] = field(default_factory=dict)
    header: list[str] | None = None
    rows: list[list[str]] = field(default_factory=list)
    #: htop meters were read: their labels name cores only when one is 0 (see the docstring)
    htop: bool = False

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
    if "busy" in values:  # an htop meter: the busy share itself
        return values["busy"]
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


def _read_busybox_line(line: str, screen: _Screen) -> bool:
    """busybox's ``CPU:`` summary (or a ``CPU0:`` core), its fields under top's names."""
    label = _BUSYBOX_CPU.match(line)
    if label is None:
        return False
    values = {
        _BUSYBOX_KEYS.get(m["k"], m["k"]): float(m["v"].replace(",", "."))
        for m in _BUSYBOX_FIELD.finditer(line, label.end())
    }
    if label["id"]:
        screen.cores[f"cpu{int(label['id'])}"] = values
    else:
        screen.summary = values
    return True


def _read_htop_line(line: str, screen: _Screen) -> bool:
    """A line of htop CPU meters; a meter cut by the poster (``45[   0.0%]  4``) is skipped."""
    meters = list(_HTOP_METER.finditer(line))
    if not meters or meters[0].start() != 0:
        return False
    for meter in meters:
        busy = {"busy": float(meter["v"].replace(",", "."))}
        if meter["id"] == "Avg":
            screen.summary = busy
        else:
            screen.cores[f"cpu{int(meter['id'])}"] = busy
    screen.htop = True
    return True


def _is_process_header(tokens: list[str]) -> bool:
    return "PID" in tokens and "%CPU" in tokens and tokens[-1].upper() == "COMMAND"


def _screens(lines: list[str]) -> list[_Screen]:
    screens = [_Screen()]
    for line in lines:
        if _TOP_HEADER.match(line.lstrip()) and not screens[-1].empty():
            screens.append(_Screen())
        screen = screens[-1]
        stripped = line.strip()
        if (
            _read_cpu_line(stripped, screen)
            or _read_busybox_line(stripped, screen)
            or _read_htop_line(stripped, screen)
        ):
            continue
        tokens = strip_annotation(line).split()
        if _is_process_header(tokens):
            if screen.header is not None and screen.rows:
                screens.append(_Screen())
                screen = screens[-1]
            screen.header = tokens
        elif screen.header is not None and tokens and tokens[0].isdigit():
            screen.rows.append(tokens)
    return [screen for screen in screens if not screen.empty()]


def _task_cpu(header: list[str], row: list[str]) -> tuple[float | None, int]:
    """A row's %CPU and where its command starts. busybox writes ``%VSZ`` and ``%CPU`` as
    ``3%`` and its STAT may hold a blank (``S <``), so there the %CPU cell is the row's
    second ``%`` cell and the command follows it (or the CPU column after it)."""
    if "%VSZ" not in header:
        return number(row[header.index("%CPU")].removesuffix("%")), len(header) - 1
    marked = [index for index, token in enumerate(row) if token.endswith("%")]
    if len(marked) < 2:
        return None, len(row)
    at = marked[1]
    return number(row[at].removesuffix("%")), at + 1 + header[header.index("%CPU") + 1 : -1].count(
        "CPU"
    )


def _busiest(header: list[str], rows: list[list[str]]) -> tuple[float, str] | None:
    best: tuple[float, str] | None = None
    for row in rows:
        if len(row) < len(header):
            continue
        value, command_at = _task_cpu(header, row)
        if value is not None and (best is None or value > best[0]):
            best = (value, " ".join(row[command_at:]))
    return best


def parse_top(text: str) -> ParseResult:
    """Facts from a top screen, batch (``top -b -n 1``) or copied from the terminal."""
    if isinstance(text, str) and _MACOS_CPU.search(text):
        return ParseResult.unparsed(
            "macOS top: no NVIDIA GPU runs on a Mac, so its load is not the GPU host's"
        )
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
    named = not screen.htop or "cpu0" in screen.cores
    if not named:
        result.problems.append("htop meters without a core 0: cores not named, only summarised")
    for core, values in sorted(screen.cores.items(), key=lambda item: natural_key(item[0])):
        value = _busy(values)
        if value is not None:
            busy[core] = value
            if named:
                result.add("cpu.busy", pct(value), core, "%")
    if busy:
        result.add("cpu.busy.max", pct(max(busy.values())), "host", "%")
    summary_busy = _busy(screen.summary) if screen.summary else None
    if summary_busy is not None:
        result.add("cpu.busy.mean", pct(summary_busy), "host", "%")
    elif busy:
        result.add("cpu.busy.mean", pct(sum(busy.values()) / len(busy)), "host", "%")
    if screen.summary and "wa" in screen.summary:
        result.add("cpu.iowait", pct(screen.summary["wa"]), "host", "%")
    elif screen.summary is None:
        waits = [values["wa"] for values in screen.cores.values() if "wa" in values]
        if waits:
            result.add("cpu.iowait", pct(sum(waits) / len(waits)), "host", "%")
    if screen.header is not None:
        best = _busiest(screen.header, screen.rows)
        if best is not None:
            result.add("process.cpu.max", pct(best[0]), "host", "%")
            result.add("process.top_command", best[1], "host")
        else:
            result.problems.append("process table header without readable rows")
    if not result.facts:
        return ParseResult.unparsed("top output without any CPU value or process row")
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
