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
  (str, e.g. "2.19.3"), ``nccl.out_of_bounds`` (int, from "# Out of bounds values").

With ``NCCL_DEBUG=INFO`` the library's log lines are printed into the middle of result rows;
they are cut out before the rows are read. A run that failed before printing any row
("Test NCCL failure …") is unparsed, with the error as the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, to_float, to_int

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
    r"^#\s*Rank\s+(?P<rank>\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(?P<host>\S+)\s+"
    r"device\s+(?P<device>\d+)\s+\[(?P<bus>[^\]]*)\]"
)
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(?P<value>\S+)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<value>\d+)")
_FAILURE = re.compile(r"Test (?:NCCL |CUDA |HIP |RCCL )?failure.*|Test FAILED.*")
_TYPES = frozenset(
    [
        "int8",
        "uint8",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "half",
        "float",
        "double",
        "bfloat16",
        "int",
        "uint",
        "char",
        "fp8_e4m3",
        "fp8_e5m2",
        "f8e4m3",
        "f8e5m2",
        "float16",
        "float32",
        "float64",
        "bf16",
    ]
)
_REDOPS = frozenset(["sum", "prod", "max", "min", "avg", "none", "mulsum", "premulsum"])
# Column layout of nccl-tests >= 2.10; older ones have no "root" column.
_DEFAULT_COLUMNS = [
    "size",
    "count",
    "type",
    "redop",
    "root",
    "time",
    "algbw",
    "busbw",
    "#wrong",
    "time",
    "algbw",
    "busbw",
    "#wrong",
]


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


def _header_columns(line: str) -> list[str] | None:
    body = line.lstrip("#").split()
    if "size" in body and "count" in body and "busbw" in body:
        return body
    return None


def _is_int(token: str) -> bool:
    return bool(re.fullmatch(r"[0-9]+", token))


def _rows(tokens: list[str], columns: list[str]) -> Iterator[dict[str, list[str]]]:
    """Rows from a token stream, resynchronising on anything that does not fit a row."""
    width = len(columns)
    i = 0
    while i + width <= len(tokens):
        chunk = tokens[i : i + width]
        row: dict[str, list[str]] = {}
        for name, token in zip(columns, chunk, strict=True):
            row.setdefault(name, []).append(token)
        if _row_ok(row):
            yield row
            i += width
        else:
            i += 1


def _row_ok(row: dict[str, list[str]]) -> bool:
    size = row.get("size", [""])[0]
    count = row.get("count", [""])[0]
    dtype = row.get("type", [""])[0]
    if not (_is_int(size) and _is_int(count) and dtype in _TYPES):
        return False
    redop = row.get("redop")
    if redop and redop[0] not in _REDOPS:
        return False
    times = row.get("time", [])
    return bool(times) and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", times[0]) is not None


def _bw(values: list[str], index: int) -> float | None:
    if index >= len(values) or not re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", values[index]):
        return None
    return to_float(values[index])


def parse_nccl(text: str) -> ParseResult:
    """Facts from nccl-tests / rccl-tests output, INFO logs and all."""
    cleaned = clean_paste(text)
    raw_lines = cleaned.lines
    result = ParseResult()
    version = next((m.group("version") for line in raw_lines if (m := _VERSION.search(line))), None)
    failures = [m.group(0).strip() for line in raw_lines if (m := _FAILURE.search(line))]
    lines = _strip_logs(raw_lines)

    test: str | None = None
    hosts: set[str] = set()
    devices: set[tuple[str, str]] = set()
    ranks = 0
    columns: list[str] | None = None
    tokens: list[str] = []
    avg: float | None = None
    oob: int | None = None
    in_table = False
    for command in cleaned.commands:
        if test is None and (m := _TEST_NAME.search(command)):
            test = m.group("test")
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if m := _STARTING.match(stripped):
                test = m.group("test")
            elif m := _RANK.match(stripped):
                ranks += 1
                hosts.add(m.group("host"))
                devices.add((m.group("host"), m.group("bus") or m.group("device")))
            elif (header := _header_columns(stripped)) is not None:
                columns = header
                in_table = True
            elif m := _AVG.match(stripped):
                avg = to_float(m.group("value"))
                in_table = False
            elif m := _OOB.match(stripped):
                oob = to_int(m.group("value"))
                in_table = False
            continue
        if test is None and (m := _TEST_NAME.search(stripped)):
            test = m.group("test")
        if in_table or columns is None:
            tokens.extend(stripped.split())

    rows = list(_rows(tokens, columns or list(_DEFAULT_COLUMNS)))
    if not rows and columns is None:
        # Older nccl-tests without a "root" column, pasted without the header.
        rows = list(_rows(tokens, [c for c in _DEFAULT_COLUMNS if c != "root"]))
    if not rows and avg is None:
        if failures:
            return ParseResult.unparsed(f"nccl-tests failed before any result: {failures[0]}")
        if ranks or test:
            return ParseResult.unparsed(
                "nccl-tests output without a results table (truncated before the first row?)"
            )
        return ParseResult.unparsed("no nccl-tests results table or 'Avg bus bandwidth' line")

    max_busbw: float | None = None
    wrong_sizes: list[str] = []
    for row in rows:
        subject = f"size={row['size'][0]}"
        times = row.get("time", [])
        algbw = row.get("algbw", [])
        busbw = row.get("busbw", [])
        out_busbw = _bw(busbw, 0)
        result.add("nccl.time", _bw(times, 0), subject, "us")
        result.add("nccl.algbw", _bw(algbw, 0), subject, "GB/s")
        result.add("nccl.busbw", out_busbw, subject, "GB/s")
        result.add("nccl.algbw.inplace", _bw(algbw, 1), subject, "GB/s")
        result.add("nccl.busbw.inplace", _bw(busbw, 1), subject, "GB/s")
        if out_busbw is not None and (max_busbw is None or out_busbw > max_busbw):
            max_busbw = out_busbw
        wrong = [to_int(w) for w in row.get("#wrong", row.get("error", []))]
        if any(w for w in wrong if w is not None):
            wrong_sizes.append(row["size"][0])
    result.add("nccl.avg_busbw", avg, "host", "GB/s")
    result.add("nccl.max_busbw", max_busbw, "host", "GB/s")
    result.add("nccl.test", test, "host")
    result.add("nccl.ranks", ranks or None, "host")
    result.add("nccl.gpus", len(devices) or None, "host")
    result.add("nccl.hosts", len(hosts) or None, "host")
    result.add("nccl.version", version, "host")
    result.add("nccl.out_of_bounds", oob, "host")
    if wrong_sizes:
        result.problems.append(f"validation errors (#wrong > 0) at sizes {', '.join(wrong_sizes)}")
    if oob:
        result.problems.append(f"{oob} out-of-bounds values: results are not trustworthy")
    result.problems.extend(f"reported failure: {failure}" for failure in failures[:3])
    if avg is None and rows:
        result.problems.append("no '# Avg bus bandwidth' line (run cut short or pasted in part)")
    return result


PROBE = Probe(
    name="nccl-tests",
    summary="NCCL collective bandwidth between GPUs (nccl-tests; set argv for your setup)",
    parse=parse_nccl,
    argv=("all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "1"),
    cost="expensive",
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
    ),
    needs_load=False,
    extra={"argv_note": "usually set by the user: binary path, -g GPUs per process, mpirun"},
)
