"""``nvidia-smi pmon``: which processes use each GPU, sampled over time.

Rows are ``gpu pid type sm mem enc dec [jpg ofa] [fb ccpm] command``; an idle GPU prints
one row of ``-``. Like dmon, samples are summarised: one value per process and metric, the
mean over the samples that have one (``-`` is left out), a float rounded to 0.01.

Facts per process (subject ``gpuN/pid<pid>``): ``process.name`` (str, as printed: pmon
truncates names to 15 characters), ``process.type`` (str: C, G, C+G …), ``process.sm``,
``process.mem``, ``process.enc``, ``process.dec``, ``process.jpg``, ``process.ofa`` (%),
``process.fb``, ``process.ccpm`` (MiB, dmon-style "MB"), ``process.samples`` (int).
Facts per GPU (``gpuN``): ``pmon.processes`` (int: distinct pids seen, 0 for an idle GPU) and
``processes.compute`` (int: those of a compute type, C, C+G or M+C, as nvidia-smi's own
process table counts them, so one rule reads either).
"""

from __future__ import annotations

from collections import defaultdict

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe

from ._jetson import JETSON_WITHOUT_NVIDIA_SMI
from ._tables import read_commented_table
from ._text import (
    clean,
    is_missing,
    natural_key,
    to_number,
    tool_error,
)
from .smi_table import is_compute_process

__all__ = ["PROBE", "parse_pmon"]

_UNITS = {"%": "%", "MB": "MiB"}


def parse_pmon(text: str) -> ParseResult:
    """Read ``nvidia-smi pmon`` output and summarise it per process."""
    cleaned = clean(text)
    table = read_commented_table(cleaned.lines)
    if table is None:
        error = tool_error(cleaned.lines)
        if error:
            return ParseResult.unparsed(error)
        return ParseResult.unparsed("no pmon header found ('# gpu pid type …' then '# Idx # …')")
    names = [name.lower() for name in table.names]
    if names[:2] != ["gpu", "pid"]:
        return ParseResult.unparsed(f"not a pmon header: {' '.join(table.names)}")
    result = ParseResult()
    has_command = names[-1] == "command"
    fixed = len(names) - 1 if has_command else len(names)
    units = table.units + [""] * (len(names) - len(table.units))
    gpu_samples: dict[str, int] = defaultdict(int)
    gpu_pids: dict[str, set[str]] = defaultdict(set)
    proc_samples: dict[str, int] = defaultdict(int)
    readings: dict[tuple[str, int], list[float]] = defaultdict(list)
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    bad: list[str] = []
    for row in table.rows:
        if len(row) < fixed - 1 or not row[0].isdigit():
            bad.append(" ".join(row))
            continue
        gpu = f"gpu{int(row[0])}"
        gpu_samples[gpu] += 1
        pid = row[1]
        if is_missing(pid):
            continue
        if not pid.isdigit() or len(row) < fixed:
            bad.append(" ".join(row))
            continue
        subject = f"{gpu}/pid{pid}"
        gpu_pids[gpu].add(pid)
        proc_samples[subject] += 1
        if not is_missing(row[2]):
            labels[subject]["process.type"] = row[2]
        command = " ".join(row[fixed:]).strip()
        if has_command and command and not is_missing(command):
            labels[subject]["process.name"] = command
        for column in range(3, fixed):
            number = to_number(row[column]) if not is_missing(row[column]) else None
            if number is not None:
                readings[(subject, column)].append(float(number))

    if table.other:
        result.problems.append(
            f"ignored {len(table.other)} line(s) that are not pmon output "
            f"(e.g. {table.other[0][:60]!r})"
        )
    if bad:
        result.problems.append(f"skipped {len(bad)} unreadable row(s) (e.g. {bad[0][:60]!r})")
    for subject in sorted(proc_samples, key=natural_key):
        for name, value in sorted(labels[subject].items()):
            result.add(name, value, subject=subject)
        for column in range(3, fixed):
            values = readings.get((subject, column))
            if values:
                unit = _UNITS.get(units[column], units[column] or None)
                mean = round(sum(values) / len(values), 2)
                result.add(f"process.{names[column]}", mean, subject=subject, unit=unit)
        result.add("process.samples", proc_samples[subject], subject=subject)
    for gpu in sorted(gpu_samples, key=natural_key):
        pids = gpu_pids.get(gpu, set())
        result.add("pmon.processes", len(pids), subject=gpu)
        # the compute processes, counted as nvidia-smi's table counts them
        compute = [
            p for p in pids if is_compute_process(labels[f"{gpu}/pid{p}"].get("process.type", ""))
        ]
        result.add("processes.compute", len(compute), subject=gpu)
    if not gpu_samples:
        result.parsed = False
        result.problems.insert(0, "pmon header found but no sample rows")
    return result


PROBE = Probe(
    name="nvidia-smi-pmon",
    summary="Per-process SM/memory utilisation on each GPU over a few samples",
    parse=parse_pmon,
    argv=("nvidia-smi", "pmon", "-c", "3", "-s", "um"),
    cost="cheap",
    facts=(
        "process.sm",
        "process.mem",
        "process.name",
        "process.type",
        "process.fb",
        "pmon.processes",
        "processes.compute",
        # patterns (fnmatch): families the parser names per field, section or test
        "process.*",
    ),
    needs_load=True,
    timeout_s=30.0,
    not_on=JETSON_WITHOUT_NVIDIA_SMI,
)
