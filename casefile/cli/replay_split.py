"""``replay --jsonl`` of a long case on two cores: this process writes the first steps while a
worker process writes the rest, and the lines are the same bytes as one process writes.

A replay folds every event and writes a line for each; the lines cost more than the fold. A
worker (``python -m casefile.cli.replay_split``) is handed, on its standard input, how to open
the case (so no database address shows in a process list) and the head this process read (its
header, names and the steps its playbooks offer, so both parts suggest from the same head even
if the case grows meanwhile). It folds the events up to the split without writing them (a
fold costs about a third of a written step), writes the lines after it into an unnamed
temporary file, then its part of the summary. This process writes its own part meanwhile,
then copies the worker's lines and joins the two summaries.

If the worker cannot start or fails in any way, this process writes the rest itself: the
output never depends on the worker.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casefile.app.views.replay_stream import ReplayStream

log = logging.getLogger(__name__)

#: A case with fewer steps than this is replayed in one process: a worker's start (its
#: imports and the case's head, about half a second) would cost about what it saves.
SPLIT_FROM_STEPS = 20_000

#: The share of the steps this process writes. The worker folds this share silently before it
#: writes the rest, and starts half a second later: with a written step costing about three
#: folded ones, two thirds here and one third there end about together.
SHARE_HERE = 2 / 3

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"  # JSON text may hold a lone surrogate: carried, then escaped here


def usable_cpus() -> int:
    """The processors this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def split_at(stream: ReplayStream) -> int | None:
    """The seq after which a worker writes the steps, or ``None`` to write them all here."""
    last = stream.last
    if last < SPLIT_FROM_STEPS or usable_cpus() < 2:
        return None
    return int(last * SHARE_HERE)


def jsonl_lines(stream: ReplayStream, reference: str, db: str | None) -> Iterator[str]:
    """The lines of ``replay --jsonl`` (as :func:`casefile.app.views.replay_lines.jsonl_lines`
    gives them), the steps after :func:`split_at` written by a worker when there is one.
    ``reference`` and ``db`` open the case as the command did."""
    from casefile.app.views import replay_lines

    after = split_at(stream)
    if after is None:
        yield from replay_lines.jsonl_lines(stream)
        return
    last = stream.last
    request = {
        "reference": reference,
        "db": db,
        "after": after,
        "upto": last,
        # the head this process read: what the walk needs of it, without its reader
        "head": (stream.case, dict(stream.names), list(stream.offered), stream.suggestions),
        "page": stream.page,
    }
    with _Worker(request) as worker:
        whole = stream.again(last)  # the tail's walk, if this process writes it
        here = stream.again(after)
        yield replay_lines.case_line(here)
        yield from replay_lines.step_lines(here.steps(with_changes=False))
        summary = here.summary().to_json()
        tail = worker.result()
        if tail is None:  # the worker did not finish: the rest is written here
            steps = whole.steps(with_changes=False, after=after)
            seed = next(steps)
            yield from replay_lines.step_lines(steps, seed.questions)
            tail_summary: Mapping[str, Any] = whole.summary().to_json()
        else:
            lines, tail_summary = tail
            yield from lines
    yield replay_lines.summary_line(joined(summary, tail_summary), stream.names)


def joined(head: Mapping[str, Any], tail: Mapping[str, Any]) -> dict[str, Any]:
    """The summary of a replay from the summaries of its two parts (``ReplaySummary.to_json``
    shapes): the pivots of both, in order, and the leaders after the tail's last step."""
    return {
        "pivots": [*head["pivots"], *tail["pivots"]],
        "leaders": tail["leaders"],
        "subpivots": [*head["subpivots"], *tail["subpivots"]],
    }


class _Worker:
    """The worker process and the unnamed file it writes; closed (and stopped, if it still
    runs) when the replay ends, however it ends."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.output: IO[bytes] | None = None
        self.errors: IO[bytes] | None = None
        self.lines_end = 0
        try:
            # both closed by _stop, when the replay ends
            self.output = tempfile.TemporaryFile(prefix="casefile-replay-")  # noqa: SIM115
            self.errors = tempfile.TemporaryFile(prefix="casefile-replay-")  # noqa: SIM115
            self.process = subprocess.Popen(
                # -P: the working directory is not put first on the worker's path (a folder
                # there named casefile would be imported); the package this process runs is
                _worker_argv(),
                stdin=subprocess.PIPE,
                stdout=self.output,
                stderr=self.errors,
                env=_worker_environment(),
            )
            assert self.process.stdin is not None
            # the head goes as it is (pickled): the worker is this process's own child, and
            # its pipe carries nothing anyone else wrote
            self.process.stdin.write(pickle.dumps(request))
            self.process.stdin.close()
        except OSError as error:
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

    def result(self) -> tuple[Iterator[str], Mapping[str, Any]] | None:
        """The worker's lines (read from its file as they are taken) and its summary, once it
        has ended; ``None`` if it did not write them all."""
        if self.process is None or self.output is None or self.errors is None:
            return None
        status = self.process.wait()
        if status != 0:
            self.errors.seek(0)
            said = self.errors.read(2_000).decode(_ENCODING, "replace").strip()
            log.info(
                "replay: the worker ended with status %s (%s); writing the rest here",
                status,
                said or "nothing said",
            )
            return None
        summary = self._summary()
        if summary is None:
            log.info("replay: the worker's output has no summary; writing the rest here")
            return None
        return self._lines(), summary

    def _summary(self) -> Mapping[str, Any] | None:
        """The worker's last line, its summary (``{"tail_summary": …}``)."""
        assert self.output is not None
        self.output.seek(0, os.SEEK_END)
        size = self.output.tell()
        back = min(size, 1 << 20)
        while True:
            self.output.seek(size - back)
            block = self.output.read(back)
            cut = block.rstrip(b"\n").rfind(b"\n")
            if cut >= 0 or back == size:
                break
            back = min(size, back * 4)
        last = block[cut + 1 :].strip()
        self.lines_end = size - len(block) + cut + 1 if cut >= 0 else 0
        try:
            summary = json.loads(last.decode(_ENCODING, _ERRORS))["tail_summary"]
        except (ValueError, KeyError, TypeError):
            return None
        return summary if isinstance(summary, dict) else None

    def _lines(self) -> Iterator[str]:
        assert self.output is not None
        self.output.seek(0)
        left = self.lines_end
        for raw in self.output:
            if left <= 0:
                break
            left -= len(raw)
            yield raw.decode(_ENCODING, _ERRORS).rstrip("\n")


def _worker_argv() -> list[str]:
    return [sys.executable, "-P", "-m", "casefile.cli.replay_split"]


def _worker_environment() -> dict[str, str]:
    """This process's environment, the folder that holds the casefile package it runs first on
    the path: the worker runs the same code."""
    import casefile

    home = os.path.dirname(os.path.dirname(os.path.abspath(casefile.__file__)))
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": home if not path else home + os.pathsep + path}


def work(request: Mapping[str, Any], out: IO[bytes]) -> int:
    """The worker: the lines of the steps after ``request["after"]`` up to ``upto``, then its
    summary, written to ``out``; the walk from the head this process read (``head``), the
    events read through a connection of its own to the case ``reference`` and ``db`` name."""
    from casefile.app.opening import open_case
    from casefile.app.views.replay import encode_json
    from casefile.app.views.replay_lines import step_lines
    from casefile.app.views.replay_stream import ReplayStream
    from casefile.plugins import Registry

    case, names, offered, suggestions = request["head"]
    # no plugins: the steps the case offers came with the head, and the fold needs none
    with open_case(str(request["reference"]), request["db"], Registry()) as opened:
        service, case_id = opened.service, opened.case_id
        tail = ReplayStream(
            case,
            names,
            offered,
            lambda after, last: service.reader.events(case_id, after=after, upto=last),
            int(request["upto"]),
            suggestions,
            int(request["page"]),
        )
        steps = tail.steps(with_changes=False, after=int(request["after"]))
        seed = next(steps)
        batch: list[str] = []
        for line in step_lines(steps, seed.questions):
            batch.append(line)
            if len(batch) == 1_000:
                out.write(("\n".join(batch) + "\n").encode(_ENCODING, _ERRORS))
                batch.clear()
        batch.append(encode_json({"tail_summary": tail.summary().to_json()}))
        out.write(("\n".join(batch) + "\n").encode(_ENCODING, _ERRORS))
        out.flush()
    return 0


def main() -> int:
    import gc

    gc.disable()  # a one-shot fold of long-lived objects, as every command is (cli.main)
    try:
        return work(pickle.loads(sys.stdin.buffer.read()), sys.stdout.buffer)
    finally:
        gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
