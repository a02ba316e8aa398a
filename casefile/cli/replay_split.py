"""``replay --jsonl`` of a long case on two processors: this process writes the first steps while
a worker process writes the rest, and the lines are the same bytes as one process writes.

A replay folds every event and writes a line for each; the lines cost more than the fold. A
worker is handed, on its standard input, how to open the case (so no database address shows in
a process list) and the head this process read (its header, names and the steps its playbooks
offer, so both parts suggest from the same head even if the case grows meanwhile). It folds
the events up to the split without writing them (a fold costs about a third of a written step),
writes the lines after it into an unnamed temporary file, then its part of the summary. This
process writes its own part meanwhile, then copies the worker's lines and joins the summaries.

If the worker cannot start or fails in any way, this process goes on with the same walk and
writes the rest itself: the output never depends on the worker. A worker whose parent is gone
stops at its next batch of lines.
"""

from __future__ import annotations

import json
import logging
import math
import os
import pickle
import sys
import tempfile
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

    from casefile.app.views.replay_stream import ReplayStream

log = logging.getLogger(__name__)

#: A case with fewer steps than this is replayed in one process: a worker's start (its
#: imports and the case's head, about half a second) would cost about what it saves.
SPLIT_FROM_STEPS = 20_000

#: The share of the steps this process writes. The worker folds this share silently before it
#: writes the rest, and starts half a second later: with a written step costing about three
#: folded ones, two thirds here and one third there end about together.
SHARE_HERE = 2 / 3

#: Lines the worker writes at a time (and between its checks that its parent still runs).
BATCH = 1_000

#: The worker's exit status when the case it opened is not the one asked for.
OTHER_CASE = 3
#: The worker's exit status when the process that started it is gone.
ORPHANED = 4

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"  # JSON text may hold a lone surrogate: carried through the file as is

#: What the worker runs: the path set as this process had it before casefile is imported
#: (``-P``: the working directory is not put first, so a folder there named casefile is not
#: imported; the folder holding this process's casefile is, unless already on the path).
_BOOT = (
    "import sys\n"
    "home = sys.argv[1]\n"
    "if home not in sys.path:\n"
    "    sys.path.insert(0, home)\n"
    "from casefile.cli.replay_split import main\n"
    "sys.exit(main())\n"
)


def usable_cpus() -> int:
    """The processors this process may run on, within its control group's CPU quota."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpus = cpus or 1
    try:  # cgroup v2: "max 100000", or "QUOTA PERIOD" in microseconds
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, math.floor(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return cpus


def split_at(stream: ReplayStream) -> int | None:
    """The seq after which a worker writes the steps, or ``None`` to write them all here."""
    last = stream.last
    if last < SPLIT_FROM_STEPS or usable_cpus() < 2:
        return None
    return int(last * SHARE_HERE)


def split_jsonl_lines(
    stream: ReplayStream, case_id: str, reference: str, db: str | None
) -> Generator[str, None, None]:
    """The lines of ``replay --jsonl`` (as :func:`casefile.app.views.replay_lines.jsonl_lines`
    gives them), the steps after :func:`split_at` written by a worker when there is one.
    ``reference`` and ``db`` open the case ``case_id`` as the command did."""
    from casefile.app.views import replay_lines
    from casefile.app.views.replay_summary import joined

    after = split_at(stream)
    if after is None:
        yield from replay_lines.jsonl_lines(stream)
        return
    last = stream.last
    request = {
        "reference": reference,
        "db": db,
        "case_id": case_id,
        "seed": after,
        "upto": last,
        # the head this process read: what the walk needs of it, without its reader
        "head": (stream.case, dict(stream.names), list(stream.offered), stream.suggestions),
        "head_hash": stream.case.head_hash if last == stream.case.last_seq else None,
        "page": stream.page,
        "parent": os.getpid(),
    }
    walk = stream.again(last)
    with _Worker(request) as worker:
        yield replay_lines.case_line(walk)
        steps = walk.steps(with_changes=False)
        line = replay_lines.StepLines()
        for step in steps:
            yield line(step)
            if step.seq == after:
                break
        tail = worker.result()
        if tail is None:  # the worker did not finish: this walk goes on
            for step in steps:
                yield line(step)
            summary = walk.summary().to_json()
        else:
            steps.close()  # the fold this walk held is let go before the copy
            lines, tail_summary = tail
            yield from lines
            summary = joined(walk.summary().to_json(), tail_summary)
    yield replay_lines.summary_line(summary, stream.names)


class _Worker:
    """The worker process and the unnamed files it writes; closed (and stopped, if it still
    runs) when the replay ends, however it ends."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        import subprocess

        self.process: subprocess.Popen[bytes] | None = None
        self.output: IO[bytes] | None = None
        self.errors: IO[bytes] | None = None
        try:
            # the head goes as it is (pickled): the worker is this process's own child, and
            # its pipe carries nothing anyone else wrote
            handed = pickle.dumps(request)
            # both closed by _stop, when the replay ends
            self.output = tempfile.TemporaryFile(prefix="casefile-replay-")  # noqa: SIM115
            self.errors = tempfile.TemporaryFile(prefix="casefile-replay-")  # noqa: SIM115
            self.process = subprocess.Popen(
                _worker_argv(), stdin=subprocess.PIPE, stdout=self.output, stderr=self.errors
            )
            assert self.process.stdin is not None
            self.process.stdin.write(handed)
            self.process.stdin.close()
        except Exception as error:  # any failure: the walk goes on here
            log.info("replay: no worker process (%s); writing every step here", error)
            self._stop()

    def __enter__(self) -> _Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None
        for file in (self.output, self.errors):
            if file is not None:
                file.close()
        self.output = self.errors = None

    def result(self) -> tuple[Iterator[str], Mapping[str, Any]] | None:
        """The worker's lines (read from its file as they are taken) and its summary, once it
        has ended; ``None`` if it did not write them all."""
        if self.process is None or self.output is None or self.errors is None:
            return None
        status = self.process.wait()
        if status != 0:
            size = self.errors.seek(0, os.SEEK_END)
            self.errors.seek(max(0, size - 2_000))  # a traceback's cause is its last line
            said = self.errors.read().decode(_ENCODING, "replace").strip()
            log.info(
                "replay: the worker ended with status %s (%s); writing the rest here",
                status,
                said or "nothing said",
            )
            return None
        ending = self._ending()
        if ending is None:
            log.info("replay: the worker's output has no summary; writing the rest here")
            return None
        lines_end, summary = ending
        return self._lines(lines_end), summary

    def _ending(self) -> tuple[int, Mapping[str, Any]] | None:
        """Where the worker's last line starts, and that line's summary
        (``{"tail_summary": …}``); ``None`` when it is not one."""
        assert self.output is not None
        size = self.output.seek(0, os.SEEK_END)
        back = min(size, 1 << 20)
        while True:
            self.output.seek(size - back)
            block = self.output.read(back)
            cut = block.rstrip(b"\n").rfind(b"\n")
            if cut >= 0 or back == size:
                break
            back = min(size, back * 4)
        start = size - back + cut + 1  # cut is -1 when the file is one line
        try:
            summary = json.loads(block[cut + 1 :].decode(_ENCODING, _ERRORS))["tail_summary"]
        except (ValueError, KeyError, TypeError):
            return None
        return (start, summary) if isinstance(summary, dict) else None

    def _lines(self, end: int) -> Iterator[str]:
        """The worker's lines before byte ``end`` (its summary), without their newlines."""
        assert self.output is not None
        self.output.seek(0)
        left = end
        for raw in self.output:
            if left <= 0:
                break
            left -= len(raw)
            yield raw.decode(_ENCODING, _ERRORS).rstrip("\n")


def _worker_argv() -> list[str]:
    import casefile

    home = os.path.dirname(os.path.dirname(os.path.abspath(casefile.__file__)))
    return [sys.executable, "-P", "-c", _BOOT, home]


def work(request: Mapping[str, Any], out: IO[bytes]) -> int:
    """The worker: the lines of the steps after ``request["seed"]`` up to ``upto``, then its
    summary, written to ``out``; the walk from the head this process read (``head``), the
    events read through a connection of its own to the case ``reference`` and ``db`` name.
    :data:`OTHER_CASE` if that is not ``case_id`` (or its event at the head is not
    ``head_hash``); :data:`ORPHANED` as soon as the process ``parent`` is not its parent."""
    from casefile.app.opening import open_case
    from casefile.app.views.replay import encode_json
    from casefile.app.views.replay_lines import lines_after_seed
    from casefile.app.views.replay_stream import ReplayStream
    from casefile.plugins import Registry

    case, names, offered, suggestions = request["head"]
    parent = int(request["parent"])
    # no plugins: the steps the case offers came with the head, and the fold needs none
    with open_case(str(request["reference"]), request["db"], Registry()) as opened:
        service, case_id = opened.service, opened.case_id
        upto = int(request["upto"])
        if case_id != request["case_id"]:
            return OTHER_CASE
        if request["head_hash"] is not None:
            head = service.reader.events(case_id, after=upto - 1, upto=upto)
            if [event.hash for event in head] != [request["head_hash"]]:
                return OTHER_CASE
        tail = ReplayStream(
            case,
            names,
            offered,
            lambda after, last: service.reader.events(case_id, after=after, upto=last),
            upto,
            suggestions,
            int(request["page"]),
        )
        seed = int(request["seed"])
        batch: list[str] = []
        for line in lines_after_seed(tail.steps(with_changes=False, seed=seed), seed):
            batch.append(line)
            if len(batch) == BATCH:
                if os.getppid() != parent:
                    return ORPHANED
                out.write(("\n".join(batch) + "\n").encode(_ENCODING, _ERRORS))
                batch.clear()
        batch.append(encode_json({"tail_summary": tail.summary().to_json()}))
        out.write(("\n".join(batch) + "\n").encode(_ENCODING, _ERRORS))
        out.flush()
    return 0


def main() -> int:
    """The worker process: its request from standard input; its lines to the file that is its
    standard output, anything else printed to standard error instead (so nothing a library
    prints can reach the replay)."""
    import gc

    gc.disable()  # a one-shot fold of long-lived objects, as every command is (cli.main)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        return work(pickle.loads(sys.stdin.buffer.read()), out)
    finally:
        out.close()
        gc.freeze()
