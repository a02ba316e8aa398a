"""nccl-tests: measured collective bandwidth between GPUs.

``all_reduce_perf`` and its siblings (``sendrecv_perf``, ``all_gather_perf`` …, and AMD's
rccl-tests fork) print one row per message size with the time, the algorithm bandwidth and
the bus bandwidth, out-of-place and in-place. Bus bandwidth is the number that compares with
link capacity (it corrects all-reduce's 2(n-1)/n traffic factor), so it is what rules read.

The default argv, ``all_reduce_perf -b 8 -e 1G -f 2 -g 1``, is only a starting point: the
user usually sets the binary path, ``-g`` (GPUs per process) and an ``mpirun`` prefix. The
probe is expensive and generates its own load, so it needs none from the workload.

Facts:

- per size, subject ``size=<bytes>``: ``nccl.busbw`` / ``nccl.algbw`` (GB/s, out-of-place),
  ``nccl.busbw.inplace`` / ``nccl.algbw.inplace`` (GB/s), ``nccl.time`` (us, out-of-place);
- on ``host``: ``nccl.avg_busbw`` (GB/s, from "# Avg bus bandwidth"), ``nccl.max_busbw``
  (GB/s, largest out-of-place busbw over sizes), ``nccl.test`` (str, the binary, e.g.
  "all_reduce_perf"), ``nccl.ranks`` (int, "Rank" lines = GPUs in the communicator),
  ``nccl.gpus`` (int, distinct host+device pairs), ``nccl.hosts`` (int), ``nccl.version``
  (str, e.g. "2.19.3"), ``nccl.out_of_bounds`` (int, from "# Out of bounds values");
- per rank's device, subject ``HOST/gpuN/BUS`` ("Using devices"): ``nccl.device`` (str, the
  GPU's name, e.g. "NVIDIA H100 80GB HBM3"), which tells a rule what path to expect;
- on ``host``, from the ``# nThread 1 nGpus 8 minBytes 8 maxBytes …`` banner:
  ``nccl.threads``, ``nccl.gpus_per_thread``, ``nccl.min_bytes``, ``nccl.max_bytes``,
  ``nccl.warmup_iters``, ``nccl.iters`` (int).

With ``NCCL_DEBUG=INFO`` the library's log lines are printed into the middle of result rows;
they are cut out before the rows are read, and read themselves by the ``nccl-debug`` parser
(:mod:`casefile_probes.nccl_debug`), whose facts (the transport of each connection, settings
from the environment, warnings …) are added here. Whatever rows exist are read: a row the
paste cut short gives the values it still has (its last one dropped, as it may be cut too)
and a problem naming its size. Output that ends before the first row still gives its banner,
rank and log facts, with the reason as a problem. A run that failed before printing a row
("Test NCCL failure …") is unparsed with the error as the reason, unless NCCL log lines came
with it: then their facts are kept and the failure is the first problem. Banner, rank
and header lines are recognised without their ``#`` too (Markdown ate it in many pastes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, to_float, to_int
from casefile_probes.nccl_debug import NcclLog, add_log_facts, log_lines, log_start
from casefile_probes.nccl_rows import DEFAULT_COLUMNS, best_rows, fitting, header_columns

__all__ = ["PROBE", "parse_nccl"]

_LOG_START = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|TRACE)")
# The part of an NCCL log line after its host name, wherever it starts (a log line glued to the
# output): zero-width, so finditer costs constant work per offset; the host name in front of
# it is found by scanning back (see _log_start). A ``[A-Za-z][\w.-]*:…`` searched at every
# offset rescanned the word each time and was quadratic in the line length.
_LOG_TAIL = re.compile(r"(?=:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|TRACE)\b)")
_HOST_CHAR = re.compile(r"[\w.-]")
_VERSION = re.compile(r"\b[RN]CCL version (?P<version>[0-9]+\.[0-9]+\.[0-9]+)")
_TEST_NAME = re.compile(r"(?:^|[/\s])(?P<test>[a-z_]+_perf)(?:_mpi)?\b")
_STARTING = re.compile(r"^#\s*Collective test starting:\s*(?P<test>\S+)")
_RANK = re.compile(
    r"^#?\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(?P<host>\S+)\s+"
    r"device\s+(?P<device>\d+)\s+\[(?P<bus>[^\]]*)\]\s*(?P<name>.*)$"
)
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(?P<value>\S+)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<value>\d+)")
# The line over the header naming its two halves, in the order the columns follow.
_GROUPS = re.compile(r"^#?\s*(out-of-place|in-place)\s+(?:out-of-place|in-place)\s*$")
_BANNER = re.compile(r"^#?\s*nThreads?:?\s+\d+")
_BANNER_FIELDS = (
    ("nccl.threads", re.compile(r"\bnThreads?:?\s+(\d+)")),
    ("nccl.gpus_per_thread", re.compile(r"\bnGpus:?\s+(\d+)")),
    ("nccl.min_bytes", re.compile(r"\bminBytes:?\s+(\d+)")),
    ("nccl.max_bytes", re.compile(r"\bmaxBytes:?\s+(\d+)")),
    ("nccl.warmup_iters", re.compile(r"\bwarmup iters:?\s+(\d+)")),
    ("nccl.iters", re.compile(r"(?<!warmup )(?<!agg )\biters:?\s+(\d+)")),
)
_FAILURE = re.compile(r"Test (?:NCCL |CUDA |HIP |RCCL )?failure.*|Test FAILED.*")


def _strip_logs(lines: list[str]) -> list[str]:
    hosts = {m.group("host") for line in lines if (m := _LOG_START.match(line))}
    glued = [
        re.compile(re.escape(host) + r":\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|TRACE)\b.*$")
        for host in sorted(hosts, key=len, reverse=True)
    ]
    out: list[str] = []
    for line in lines:
        for pattern in glued:
            line = pattern.sub("", line)
        start = _log_start(line)
        if start is None:
            # a host name the patterns above do not take (``<cluster_name>``, ``pod-id:num:num``)
            start = log_start(line)
        out.append(line if start is None else line[:start])
    return out


def _log_start(line: str) -> int | None:
    r"""Where the first NCCL log line glued into ``line`` starts (its host name), or None.

    The leftmost ``[A-Za-z][\w.-]*`` word ending right before a log tail; words that end at
    different tails never overlap (a tail starts with ``:``), so each character is scanned
    back over at most once.
    """
    for tail in _LOG_TAIL.finditer(line):
        word = tail.start()
        while word > 0 and _HOST_CHAR.match(line, word - 1, word):
            word -= 1
        for position in range(word, tail.start()):
            if line[position].isascii() and line[position].isalpha():
                return position
    return None


def _bw(values: list[str], index: int) -> float | None:
    if index >= len(values) or not re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", values[index]):
        return None
    return to_float(values[index])


# Before "#wrong" (a count of wrong elements), nccl-tests printed "error": the largest
# deviation from the expected result, which rounding makes nonzero in a sound sum of floats
# (1e-07); it counted a value out of bounds only past its data type's tolerance.
_TOLERANCE = {"half": 1e-2, "float16": 1e-2, "bfloat16": 1e-2, "float": 1e-5, "float32": 1e-5}
_TOLERANCE |= {"double": 1e-12, "float64": 1e-12}


def _wrong(values: dict[str, list[str]]) -> bool:
    """Whether a row reports wrong results: a nonzero ``#wrong``, or an ``error`` (max
    deviation) past the tolerance of the row's data type."""
    if "#wrong" in values:
        return any(to_float(w) for w in values["#wrong"])
    tolerance = _TOLERANCE.get(values.get("type", [""])[0], 0.0)
    return any((e := to_float(w)) is not None and e > tolerance for w in values.get("error", []))


def _banner(line: str, into: dict[str, int]) -> None:
    for name, pattern in _BANNER_FIELDS:
        if name not in into and (m := pattern.search(line)):
            into[name] = int(m.group(1))


@dataclass
class _Scan:
    """What one pass over the cleaned lines found, besides the result rows' tokens."""

    test: str | None = None
    hosts: set[str] = field(default_factory=set)
    devices: set[tuple[str, str, str]] = field(default_factory=set)
    names: dict[tuple[str, str, str], str] = field(default_factory=dict)
    ranks: int = 0
    columns: list[str] | None = None
    tokens: list[str] = field(default_factory=list)
    avg: float | None = None
    oob: int | None = None
    banner: dict[str, int] = field(default_factory=dict)
    #: a result row has been seen: a later banner or command belongs to another run
    rows_seen: bool = False
    #: the group line over the header puts "in-place" first (mscclpp's copy of the layout)
    inplace_first: bool = False
    #: rank numbers printed by two processes: separate runs of one rank each, not one job
    repeated_ranks: list[str] = field(default_factory=list)


def _scan(lines: list[str], commands: list[str]) -> _Scan:
    scan = _Scan()
    in_table = False
    for command in commands:
        if scan.test is None and (m := _TEST_NAME.search(command)):
            scan.test = m.group("test")
    seen_ranks: set[str] = set()
    rank_lines: dict[str, str] = {}
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        hashed = stripped.startswith("#")
        if m := _STARTING.match(stripped):
            scan.test = m.group("test")
        elif _BANNER.match(stripped):
            if not scan.rows_seen:
                _banner(stripped, scan.banner)
        elif m := _RANK.match(stripped):
            # every rank of an MPI run may print the whole banner: count each rank line once;
            # the same rank number from another process (nccl-tests built without MPI, started
            # by mpirun: each process is a one-rank run) is no further rank of the job
            number = m.group("rank")
            if stripped not in seen_ranks and rank_lines.get(number, stripped) != stripped:
                seen_ranks.add(stripped)
                scan.repeated_ranks.append(number)
            elif stripped not in seen_ranks:
                seen_ranks.add(stripped)
                rank_lines[number] = stripped
                scan.ranks += 1
                scan.hosts.add(m.group("host"))
                # host, bus and device together: MPI ranks each see "device 0" under
                # CUDA_VISIBLE_DEVICES, and old nccl-tests print "[0x00]" for every bus
                key = (m.group("host"), m.group("bus"), m.group("device"))
                scan.devices.add(key)
                if m.group("name").strip():
                    scan.names[key] = m.group("name").strip()
        elif m := _GROUPS.match(stripped):
            scan.inplace_first = m.group(1) == "in-place"
        elif (header := header_columns(stripped)) is not None:
            scan.columns = header
            in_table = True
        elif m := _AVG.match(stripped):
            scan.avg = to_float(m.group("value"))
            in_table = False
        elif m := _OOB.match(stripped):
            scan.oob = to_int(m.group("value"))
            in_table = False
        elif not hashed:
            words = stripped.split()
            if scan.test is None and not scan.rows_seen and (m := _TEST_NAME.search(stripped)):
                scan.test = m.group("test")
            scan.rows_seen = scan.rows_seen or fitting(words, 0, DEFAULT_COLUMNS[:3]) == 3
            if in_table or scan.columns is None:
                scan.tokens.extend(words)
    return scan


# ``mpirun --tag-output`` puts "[1,0]<stdout>:" (job, rank, stream) before every line.
_RANK_TAG = re.compile(r"^\s*\[\d+,\d+\]<(?:stdout|stderr)>:")


def _left_pane(lines: list[str]) -> tuple[list[str], bool]:
    """The lines less a second table printed beside the first (``… #wrong  |  #  size …``).

    People compare two runs by pasting their tables side by side; read as one table, the right
    one's values land in the left one's columns. Only the left table is read, and only where
    a header line shows both.
    """
    beside = any(
        header_columns(left.strip()) is not None and header_columns(right.strip()) is not None
        for left, _, right in (line.partition("|") for line in lines if "|" in line)
    )
    if not beside:
        return lines, False
    return [line.partition("|")[0].rstrip() for line in lines], True


def parse_nccl(text: str) -> ParseResult:
    """Facts from nccl-tests / rccl-tests output, INFO logs and all."""
    cleaned = clean_paste(text)
    raw_lines = [_RANK_TAG.sub("", line, count=1) for line in cleaned.lines]
    raw_lines, beside = _left_pane(raw_lines)
    result = ParseResult()
    version = next((m.group("version") for line in raw_lines if (m := _VERSION.search(line))), None)
    failures = [m.group(0).strip() for line in raw_lines if (m := _FAILURE.search(line))]
    log = log_lines(raw_lines)
    scan = _scan(_strip_logs(raw_lines), cleaned.commands)
    rows = best_rows(scan.tokens, scan.columns)

    max_busbw: float | None = None
    wrong_sizes: list[str] = []
    cut: list[str] = []
    width = len(scan.columns or DEFAULT_COLUMNS)
    for row in rows:
        size = row.values["size"][0]
        subject = f"size={size}"
        times = row.values.get("time", [])
        algbw = row.values.get("algbw", [])
        busbw = row.values.get("busbw", [])
        out, inplace = (1, 0) if scan.inplace_first else (0, 1)
        out_busbw = _bw(busbw, out)
        result.add("nccl.time", _bw(times, out), subject, "us")
        result.add("nccl.algbw", _bw(algbw, out), subject, "GB/s")
        result.add("nccl.busbw", out_busbw, subject, "GB/s")
        result.add("nccl.algbw.inplace", _bw(algbw, inplace), subject, "GB/s")
        result.add("nccl.busbw.inplace", _bw(busbw, inplace), subject, "GB/s")
        if out_busbw is not None and (max_busbw is None or out_busbw > max_busbw):
            max_busbw = out_busbw
        if _wrong(row.values):
            wrong_sizes.append(size)
        if row.cut_at is not None:
            cut.append(f"{size} ({row.cut_at} of {width} values)")
    result.add("nccl.avg_busbw", scan.avg, "host", "GB/s")
    result.add("nccl.max_busbw", max_busbw, "host", "GB/s")
    result.add("nccl.test", scan.test, "host")
    result.add("nccl.ranks", scan.ranks or None, "host")
    if scan.repeated_ranks:
        repeated = ", ".join(sorted(set(scan.repeated_ranks), key=int))
        result.problems.append(
            f"rank {repeated} printed by more than one process: separate runs of their own "
            "(nccl-tests built without MPI, started by mpirun?), not one job; each rank "
            "counted once"
        )
    result.add("nccl.gpus", len(scan.devices) or None, "host")
    result.add("nccl.hosts", len(scan.hosts) or None, "host")
    result.add("nccl.version", version, "host")
    result.add("nccl.out_of_bounds", scan.oob, "host")
    for (host, bus, device), name in sorted(scan.names.items()):
        result.add("nccl.device", name, f"{host}/gpu{device}/{bus}")
    for name, _ in _BANNER_FIELDS:
        result.add(name, scan.banner.get(name), "host")
    _add_log(result, log)

    measured = bool(rows) or scan.avg is not None
    if not measured:
        if failures:
            reason = f"nccl-tests failed before any result: {failures[0]}"
        elif scan.ranks or scan.test or scan.banner or scan.columns is not None:
            reason = "nccl-tests output without a results table (truncated before the first row?)"
        else:
            reason = "no nccl-tests results table or 'Avg bus bandwidth' line"
        # A failed run stays unparsed (its error is the answer) unless NCCL's own log came
        # with it: the transports and warnings it printed before failing are the diagnosis.
        if not result.facts or (failures and not log.lines):
            return ParseResult.unparsed(reason)
        result.problems.insert(0, reason)
    if beside:
        result.problems.append("a second table printed beside the first ('|') was not read")
    if wrong_sizes:
        result.problems.append(f"validation errors (#wrong > 0) at sizes {', '.join(wrong_sizes)}")
    if scan.oob:
        result.problems.append(f"{scan.oob} out-of-bounds values: results are not trustworthy")
    if cut:
        result.problems.append(f"rows cut short, read as far as they go: sizes {', '.join(cut)}")
    start = 1 if not measured and failures else 0
    result.problems.extend(f"reported failure: {failure}" for failure in failures[start:3])
    if scan.avg is None and rows:
        result.problems.append("no '# Avg bus bandwidth' line (run cut short or pasted in part)")
    return result


def _add_log(result: ParseResult, log: NcclLog) -> None:
    """The facts of the interleaved NCCL log, less those the tables already gave."""
    if not log.lines and not log.versions:
        return
    from_log = ParseResult()
    add_log_facts(from_log, log)
    have = {(fact.name, fact.subject) for fact in result.facts}
    result.facts.extend(f for f in from_log.facts if (f.name, f.subject) not in have)
    result.problems.extend(from_log.problems)


# The lines only nccl-tests prints: its banner, its device list, its table's header (its two
# halves in either order), its summary, its failures, and a row of its table (size, count,
# data type, then times and bandwidths). Blanks are [ \t], never \s, so that no attempt runs
# on past its own line (linear in the text).
_NCCL_TESTS_SHAPE = re.compile(
    r"nThreads?:?[ \t]+\d+[ \t]+nGpus:?[ \t]+\d+"
    r"|^[# \t]*size[ \t]+count[ \t]+type\b"
    r"|^[# \t]*Using devices[ \t]*$"
    r"|^[# \t]*Rank[ \t]+\d+[ \t]+(?:Group[ \t]+\d+[ \t]+)?Pid[ \t]+\d+[ \t]+on[ \t]"
    r"|out-of-place[ \t]+in-place|in-place[ \t]+out-of-place"
    r"|Avg bus bandwidth[ \t]*:|Out of bounds values[ \t]*:"
    r"|Test NCCL failure|Test failure common\.cu"
    r"|^[ \t]*\d+[ \t]+\d+[ \t]+(?:float|double|half|bfloat16|u?int(?:8|32|64)|f8e4m3|f8e5m2)"
    r"[ \t]+(?:\w+[ \t]+-?\d+[ \t]+)?[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+",
    re.MULTILINE,
)


def recognise_nccl_tests(text: str) -> bool:
    """Whether ``text`` holds nccl-tests output: its banner, device list, table header,
    summary, failure lines or rows of its table (a paste may hold only rows)."""
    return _NCCL_TESTS_SHAPE.search(text) is not None


PROBE = Probe(
    name="nccl-tests",
    summary="NCCL collective bandwidth between GPUs (nccl-tests; set argv for your setup)",
    parse=parse_nccl,
    recognises=recognise_nccl_tests,
    argv=("all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "1"),
    cost="moderate",
    timeout_s=600.0,
    facts=(
        "nccl.busbw",
        "nccl.algbw",
        "nccl.busbw.inplace",
        "nccl.algbw.inplace",
        "nccl.time",
        "nccl.avg_busbw",
        "nccl.max_busbw",
        "nccl.test",
        "nccl.ranks",
        "nccl.gpus",
        "nccl.hosts",
        "nccl.version",
        "nccl.out_of_bounds",
        "nccl.device",
        "nccl.threads",
        "nccl.gpus_per_thread",
        "nccl.min_bytes",
        "nccl.max_bytes",
        "nccl.warmup_iters",
        "nccl.iters",
        "nccl.transport",
        "nccl.transports",
        "nccl.env.NCCL_P2P_LEVEL",
        "nccl.warnings",
        # patterns (fnmatch): families the parser names per field, section or test
        "nccl.*",
    ),
    needs_load=False,
    extra={"argv_note": "usually set by the user: binary path, -g GPUs per process, mpirun"},
    # its parser reads the NCCL_DEBUG=INFO log mixed into the table as nccl-debug reads it, so
    # NCCL_DEBUG=INFO all_reduce_perf … is recorded as nccl-tests: the table is not lost
    covers=("nccl-debug",),
)
