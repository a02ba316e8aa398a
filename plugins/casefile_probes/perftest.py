"""RDMA ``perftest``: ``ib_write_bw``, ``ib_read_bw``, ``ib_send_bw`` and their latency tests.

When a job across nodes runs slow, the first question is whether the network itself carries
what its ports are rated for, apart from the collective library: two nodes, one
``ib_write_bw`` server and one client, host memory or (``--use_cuda``) GPU memory. A link
that reaches its rate clears the fabric and points at the library's path (GPUDirect RDMA off,
the wrong NIC, a socket fallback); one far below it is the fabric's own fault (a cable, a
port trained low, the NIC behind the wrong PCIe switch), or the GPU's path to the NIC where
GPU memory was used. People paste what the tool prints, so this reads it, from either side:

- the banner, ``RDMA_Write BW Test`` (``Bidirectional``, ``Post List``, ``Latency``), and the
  settings under it (``Device``, ``Number of qps``, ``Dual-port``, ``Link type``, ``Mtu``);
- the results table: ``#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]``
  (``MiB/sec`` in newer releases, ``Gb/sec`` with ``--report_gbits``), one row per message
  size (``-a`` sweeps sizes from 2 bytes to 8 MB), or the latency table's ``t_min``,
  ``t_max``, ``t_typical``, ``t_avg`` (and percentiles) in microseconds;
- whether the buffers were GPU memory: the CUDA lines perftest prints before the banner
  (``initializing CUDA``, ``allocated GPU buffer address at``, ``using DMA-BUF``), or
  ``--use_cuda`` on the command line.

perftest's ``MB/sec`` is 2^20 bytes a second (its own factor, ``0x100000``; newer releases
say ``MiB/sec``), its ``Gb/sec`` 10^9 bits: every rate here is converted to Gb/s, the unit
port rates are quoted in, so that 11,000 MB/sec reads as 92.3 Gb/s beside a 100 Gb/s port.

Facts on ``host``: ``perftest.test`` (str, the banner: ``RDMA_Write BW``), ``perftest.verb``
(``Send``, ``RDMA_Write``, ``RDMA_Read``, ``Atomic``), ``perftest.kind`` (``bw`` or
``lat``), ``perftest.bidirectional`` (bool, bandwidth tests) and ``perftest.dual_port``
(bool), ``perftest.device``,
``perftest.link_type`` (``IB`` or ``Ethernet``: RoCE), ``perftest.connection`` (``RC``,
``UC``, ``UD``, ``DC``, ``RawEth``), ``perftest.qps`` (int), ``perftest.mtu`` (bytes),
``perftest.gpu_memory`` (bool, where the paste says: its CUDA lines, or its command line with
or without ``--use_cuda``), ``perftest.runs`` (int, result tables read).

Per message size (subject ``size=65536``; ``size=65536 (run 2)`` for a second table in one
paste, ``size=65536 (sample 2)`` for a size printed again in one table, as
``--run_infinitely`` does, ``size=65536 sl=3`` per service level where a run prints one):
``perftest.bw.peak`` and ``perftest.bw.average`` (Gb/s), ``perftest.msg_rate`` (Mpps);
``perftest.lat.min``, ``.max``, ``.typical``, ``.avg``, ``.p99``, ``.p99.9`` (µs; none
where ``-C`` printed CPU cycles under the same headers).

And the reading a rule wants, on ``host``: ``perftest.bw.large`` (Gb/s), the best average
among messages of at least :data:`LARGE_MESSAGE_BYTES` (smaller ones measure the message
rate, not the link; a size sampled again and again counts at its mean), the lowest such
figure where the paste holds several runs (a loop over the NICs, one of them slow); and
``perftest.bw.port`` (Gb/s), the lowest figure for one port in one direction: a
bidirectional run reports both directions summed and a dual-port run both ports, so each
halves its total (``--report-both``'s local and remote tables are one direction each, and
``--report-per-port``'s columns give each port's own). Absent where no run reached a large
message, and for a table whose figures fit neither unit (see
:mod:`casefile_probes.perftest_tables`: the server side prints the client's figures in the
client's unit).

Problems: what perftest said instead of results (``Couldn't connect to …``, ``Unable to init
the socket connection``, ``Failed to modify QP … to RTR``, ``ibv_reg_mr failed``), word for
word; a table with no rows; a row cut short.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, split_command
from casefile_probes.perftest_tables import Table, column_names, settle_unit, to_gbps

__all__ = [
    "LARGE_MESSAGE_BYTES",
    "PROBE",
    "parse_perftest",
    "recognise_perftest",
]

#: the smallest message whose bandwidth measures the link: perftest's own default size for
#: its bandwidth tests; below it a run measures how many messages a second the NIC posts
LARGE_MESSAGE_BYTES = 65536
_TOOLS = frozenset(
    f"ib_{verb}_{kind}" for verb in ("write", "read", "send", "atomic") for kind in ("bw", "lat")
)
_BANNER = re.compile(
    r"^\s*(?P<verb>Send_imm|Send|RDMA_Write_imm|RDMA_Write|RDMA_Read|Atomic)\s+"
    r"(?:(?:CMP_AND_SWAP|FETCH_AND_ADD)\s+)?(?P<mode>(?:[A-Za-z]+ ){0,3}?)"
    r"(?P<kind>BW|Latency)\s+(?P<tail>(?:[A-Za-z]+\s+){0,2}?)Test\s*$"
)
_BW_HEADER = re.compile(
    r"^\s*#bytes\s+(?:#sl\s+)?#iterations\s+BW peak\[(?P<unit>MB/sec|MiB/sec|Gb/sec)\]"
    r"\s+BW average\[(?P=unit)\]"
)
_LAT_HEADER = re.compile(r"^\s*#bytes\s+#iterations\s+t_(?:min|avg)\[usec\]")
_NUMBER = r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_ROW = re.compile(rf"^\s*(?P<cells>[0-9]+(?:\s+(?:{_NUMBER}|-?nan|inf))+)\s*$")
_RULE = re.compile(r"^\s*-{20,}\s*$")
#: ``--report-both``'s headings over one direction's table
_ONE_WAY = re.compile(r"^\s*(?:Local|Remote) results:\s*$")
#: ``--report-counters`` prints the port's counters under each row
_COUNTER = re.compile(r"^\s*[\w/.-]{1,64}=\d{1,24}\s*$")
#: what perftest prints where its buffers are an accelerator's memory: CUDA, ROCm, MUSA, MLU
_GPU_LINES = re.compile(
    r"^\s*(?:initializing (?:CUDA|MUSA|MLU)|allocated (?:GPU|MLU) buffer|allocated \d+ bytes of"
    r"|using DMA-BUF|cuMemAlloc|cnMalloc|Picking GPU number|creating (?:CUDA|MUSA|MLU) Ctx"
    r"|(?:CUDA|MUSA|MLU) device \d+: PCIe address|Using ROCm Device|Use ROCm memory\s*:\s*ON)",
)
#: the options that put the buffers in an accelerator's memory
_GPU_FLAGS = re.compile(r"--use_(?:cuda|rocm|musa|mlu|neuron|hl|opencl)\w*")
_CYCLES_FLAGS = ("-C", "--report-cycles")
#: what perftest prints where it fails (its warnings, such as ``Conflicting CPU frequency
#: values detected``, are no failure)
_ERROR = re.compile(
    r"^\s*(?:Couldn'?t|Could not|Unable to|Failed to|Failed status|Completion with error|Error"
    r"|ERROR|ibv_\w+ failed)\b"
)
#: perftest's own warnings, which may stand between a table's header and its rows
_WARNING = re.compile(r"^\s*(?:Conflicting CPU frequency|WARNING:)")
#: where one ``Key : value`` setting ends and the next begins on a line that prints two:
#: tabs in most releases, a run of spaces in some (possessive, from the run's first blank,
#: so a long run of blanks is crossed once)
_NEXT_SETTING = re.compile(r"\t+|(?<! ) {2,}+(?=[A-Za-z][\w.*-]*(?: [\w.*-]+){0,3}\s*:)")
_LATENCY = {
    "t_min": "min",
    "t_max": "max",
    "t_typical": "typical",
    "t_avg": "avg",
    "99% percentile": "p99",
    "99.9% percentile": "p99.9",
}


@dataclass
class _Setup:
    """What a banner and the settings under it say about the run that follows."""

    banner: re.Match[str] | None = None
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def bidirectional(self) -> bool:
        return self.banner is not None and "Bidirectional" in self.banner.group("mode")

    @property
    def dual_port(self) -> bool:
        return self.settings.get("Dual-port") == "ON"


def _settings(line: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in _NEXT_SETTING.split(line):
        if ":" not in part:
            continue
        key, _, value = part.partition(":")
        key, value = key.strip(), value.strip()
        if key and value and len(key) <= 32 and len(value) <= 64:
            found[key] = value
    return found


def _tool_command(commands: list[str]) -> list[str] | None:
    for command in commands:
        words = split_command(command)
        if any(word.rsplit("/", 1)[-1] in _TOOLS for word in words):
            return words
    return None


@dataclass
class _Reading:
    """Everything one paste printed, table by table."""

    tables: list[Table] = field(default_factory=list)
    first: _Setup | None = None
    errors: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    gpu_lines: bool = False
    #: whether a banner was printed (a run that stopped before its results still has one)
    banner: bool = False


def _read(text: str) -> _Reading:
    cleaned = clean_paste(text)
    reading = _Reading(commands=list(cleaned.commands))
    setup = _Setup()
    current: Table | None = None
    one_way = False
    for raw in cleaned.lines:
        line = raw.strip()
        if not line:
            continue
        if line.split(" ", 1)[0].rsplit("/", 1)[-1] in _TOOLS:  # a command without its prompt
            reading.commands.append(line)
            continue
        header = _BW_HEADER.match(line) or _LAT_HEADER.match(line)
        if header is not None:
            if current is not None and not current.rows and not current.cut:
                reading.tables.pop()  # a header printed twice (-U, -H) heads one table
            kind = "bw" if "BW peak" in line else "lat"
            unit = header.group("unit") if kind == "bw" else "usec"
            current = Table(kind, unit, column_names(line), one_way=one_way)
            if setup.banner is not None:
                current.bidirectional, current.dual_port = setup.bidirectional, setup.dual_port
            else:
                current.bidirectional = current.dual_port = None  # the command says, if pasted
            reading.tables.append(current)
            reading.first = reading.first or setup
            one_way = False
            continue
        if current is not None:
            if _ROW.match(line):
                current.add_row(line.split())
                continue
            if _RULE.match(line) or _WARNING.match(line) or _COUNTER.match(line):
                continue
            current = None
        if _ONE_WAY.match(line):
            one_way = True
            continue
        banner = _BANNER.match(line)
        if banner is not None:
            setup = _Setup(banner)
            reading.banner = True
            continue
        if _GPU_LINES.match(line):
            reading.gpu_lines = True
        elif _ERROR.match(line):
            reading.errors.append(line)
        elif setup.banner is not None and ":" in line:
            setup.settings.update(_settings(raw))
    return reading


def parse_perftest(text: str) -> ParseResult:
    """Read what perftest printed (a bandwidth or latency test, from either side)."""
    reading = _read(text)
    command = _tool_command(reading.commands)
    if not reading.tables:
        if reading.errors:
            return ParseResult.unparsed(f"perftest reported an error: {reading.errors[0]}")
        if reading.banner:
            return ParseResult.unparsed("perftest printed its settings but no results table")
        return ParseResult.unparsed("no perftest results table (#bytes #iterations …) found")
    result = ParseResult()
    for problem in reading.errors[:3]:
        result.problems.append(f"perftest said: {problem}")
    if len(reading.errors) > 3:
        result.problems.append(f"perftest said {len(reading.errors) - 3} more such lines")
    _describe(result, reading.first or _Setup(), command)
    if reading.gpu_lines:
        result.add("perftest.gpu_memory", True)
    elif command is not None:
        result.add(
            "perftest.gpu_memory", any(_GPU_FLAGS.fullmatch(w.split("=")[0]) for w in command)
        )
    # --report-both's one-direction tables are part of the run above them
    result.add("perftest.runs", sum(not table.one_way for table in reading.tables))
    cycles = command is not None and any(word in _CYCLES_FLAGS for word in command)
    for table in reading.tables:  # no banner above it: the command line says how it ran
        if table.bidirectional is None:
            table.bidirectional = command is not None and bool(
                {"-b", "--bidirectional"} & set(command)
            )
        if table.dual_port is None:
            table.dual_port = command is not None and bool({"-O", "--dualport"} & set(command))
    large: list[float] = []
    ports: list[float] = []
    for number, table in enumerate(reading.tables, start=1):
        suffix = "" if number == 1 else f" (run {number})"
        if table.kind == "lat":
            _read_latency(result, table, suffix, cycles=cycles)
        else:
            best = _read_bandwidth(result, table, suffix)
            if best is not None:
                if not table.one_way:  # the run's own figure is the summed table's
                    large.append(best[0])
                ports.append(best[1])
        if table.cut:
            result.problems.append(f"{table.cut} result row(s) cut short{suffix}, left out")
        if not table.rows:
            result.problems.append(f"a results table with no rows{suffix}")
    if cycles and any(t.kind == "lat" for t in reading.tables):
        result.problems.append("latency in CPU cycles (-C), not read as microseconds")
    if ports:
        result.add("perftest.bw.large", round(min(large or ports), 3), unit="Gb/s")
        result.add("perftest.bw.port", round(min(ports), 3), unit="Gb/s")
    return result


def _describe(result: ParseResult, setup: _Setup, command: list[str] | None) -> None:
    banner, settings = setup.banner, setup.settings
    if banner is not None:
        mode, tail = banner.group("mode").split(), banner.group("tail").split()
        kind = "bw" if banner.group("kind") == "BW" else "lat"
        name = [banner.group("verb"), *mode, banner.group("kind"), *tail]
        result.add("perftest.test", " ".join(name))
        result.add("perftest.verb", banner.group("verb"))
        result.add("perftest.kind", kind)
        if kind == "bw":
            result.add("perftest.bidirectional", setup.bidirectional)
    elif command is not None:
        tool = next(w.rsplit("/", 1)[-1] for w in command if w.rsplit("/", 1)[-1] in _TOOLS)
        result.add("perftest.kind", "bw" if tool.endswith("_bw") else "lat")
        if tool.endswith("_bw"):
            result.add("perftest.bidirectional", "-b" in command or "--bidirectional" in command)
    dual = settings.get("Dual-port")
    if dual in ("ON", "OFF"):
        result.add("perftest.dual_port", dual == "ON")
    result.add("perftest.device", settings.get("Device"))
    qps = settings.get("Number of qps", "")
    if qps.isdigit() and len(qps) <= 6:
        result.add("perftest.qps", int(qps))
    link = settings.get("Link type")
    if link in ("IB", "Ethernet"):
        result.add("perftest.link_type", link)
    connection = settings.get("Connection type")
    if connection is not None and re.fullmatch(r"[A-Za-z]{2,8}", connection):
        result.add("perftest.connection", connection)
    mtu = re.fullmatch(r"(\d{3,5})\s*\[B\]", settings.get("Mtu", ""))
    if mtu is not None:
        result.add("perftest.mtu", int(mtu.group(1)), unit="B")


def _subjects(table: Table, suffix: str) -> list[str]:
    """Each row's subject: its size (and service level), numbered where a size repeats."""
    seen: dict[str, int] = {}
    subjects = []
    for size, figures in table.rows:
        key = f"size={size}" + (f" sl={figures['#sl']:.0f}" if "#sl" in figures else "")
        seen[key] = seen.get(key, 0) + 1
        again = f" (sample {seen[key]})" if seen[key] > 1 else ""
        subjects.append(f"{key}{again}{suffix}")
    return subjects


def _read_bandwidth(result: ParseResult, table: Table, suffix: str) -> tuple[float, float] | None:
    """Add one table's rows; its best large-message average and its one-port, one-way
    figure (Gb/s), if it reached a large message in a unit its figures fit."""
    unit = settle_unit(table)
    if unit is None:
        result.problems.append(
            f"bandwidth and message rate disagree in either unit{suffix}: no bandwidth read"
        )
        return None
    if unit != table.unit:
        result.problems.append(
            f"figures in {unit} under a {table.unit} header{suffix} (the server prints the "
            "client's figures in the client's unit): read as " + unit
        )
    factor = to_gbps(unit)
    by_size: dict[str, list[tuple[float, float]]] = {}
    for subject, (size, figures) in zip(_subjects(table, suffix), table.rows, strict=True):
        peak, average = figures.get("BW peak", math.nan), figures.get("BW average", math.nan)
        if _finite(peak) and (peak > 0 or not average > 0):  # -D prints its peak as 0.00
            result.add("perftest.bw.peak", round(peak * factor, 3), subject, "Gb/s")
        if _finite(figures.get("MsgRate", math.nan)):
            result.add("perftest.msg_rate", figures["MsgRate"], subject, "Mpps")
        if not _finite(average):
            continue
        result.add("perftest.bw.average", round(average * factor, 3), subject, "Gb/s")
        if size >= LARGE_MESSAGE_BYTES:
            # per-port columns give each port's own; else the ports share the total
            ports = [figures.get(name, math.nan) for name in ("BW Port1", "BW Port2")]
            port = (
                min(ports) if all(map(_finite, ports)) else average / (2 if table.dual_port else 1)
            )
            by_size.setdefault(subject.split(" (sample")[0], []).append((average, port))
    if not by_size:
        return None
    average, port = max(
        (
            (statistics.fmean(a for a, _ in samples), statistics.fmean(p for _, p in samples))
            for samples in by_size.values()
        ),
        key=lambda pair: pair[0],
    )
    one_way = 0.5 if table.bidirectional and not table.one_way else 1.0  # both ways summed
    return average * factor, port * factor * one_way


def _read_latency(result: ParseResult, table: Table, suffix: str, *, cycles: bool) -> None:
    if cycles:
        return
    for subject, (_size, figures) in zip(_subjects(table, suffix), table.rows, strict=True):
        for column, name in _LATENCY.items():
            value = figures.get(column, math.nan)
            if _finite(value):
                result.add(f"perftest.lat.{name}", value, subject, "us")


def _finite(value: float) -> bool:
    return math.isfinite(value)


def recognise_perftest(text: str) -> bool:
    """Whether ``text`` holds perftest's results header (bandwidth or latency), read as the
    parser reads it."""
    if not isinstance(text, str) or "#bytes" not in text:
        return False
    return any(
        _BW_HEADER.match(line) or _LAT_HEADER.match(line) for line in clean_paste(text).lines
    )


PROBE = Probe(
    name="perftest",
    summary=(
        "RDMA bandwidth between two nodes, apart from the collective library (ib_write_bw, "
        "ib_read_bw, ib_send_bw; --use_cuda for GPU memory): paste the client's output"
    ),
    parse=parse_perftest,
    recognises=recognise_perftest,
    # a run needs a server started on the other node first (with the same options), so its
    # output is pasted; this is the client's command, with rates in Gb/s on both sides
    argv=("ib_write_bw", "-d", "mlx5_0", "--report_gbits", "-F", "SERVER"),
    where=frozenset({"pasted"}),
    cost="moderate",
    facts=("perftest.*",),
    timeout_s=120.0,
)
