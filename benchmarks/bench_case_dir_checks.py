"""What the hostile-JSON checks cost when a case directory is read (import, verify, status).

Reading a directory now refuses a key given twice (an ``object_pairs_hook`` on every object),
nesting deeper than 64 levels (a walk over each decoded line), a payload not in the form the
commands write (comparing it with its validated form) and a chain that does not reach
``events.head``. Figures, each a ratio to a baseline measured in the same process, the two
alternating round by round (median of ``--rounds``):

read     ``read_case_dir`` of a 20,000-note directory as it is now vs the same read with the
         new checks switched off in place (a plain ``json.loads``, no depth walk, no normal-form
         comparison, no head file), i.e. the read as it was before. Target ≤ 1.25×.
line     decoding one event line: ``json.loads`` with the duplicate-key hook and the depth walk
         vs a plain ``json.loads`` (10,000 lines per round).

Run: ``.venv/bin/python benchmarks/bench_case_dir_checks.py [--events 20000] [--rounds 7]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from casefile.domain.events import NewEvent
from casefile.store import casedir_import
from casefile.store.casedir import export_case, read_case_dir
from casefile.store.head_file import HEAD_FILE
from casefile.store.memory import MemoryEventStore


def build(directory: Path, count: int) -> None:
    store = MemoryEventStore()
    store.append("bench", 0, [NewEvent("case.opened", {"title": "bench"})])
    batch = [NewEvent("note.added", {"text": f"note {n} " + "x" * 80}) for n in range(count - 1)]
    store.append("bench", 1, batch)
    export_case(store.load("bench"), {}, directory)


class _PlainJson:
    """``json`` whose ``loads`` ignores the duplicate-key hook: the decoder as it was."""

    JSONDecodeError = json.JSONDecodeError

    @staticmethod
    def loads(text: str, **options: Any) -> Any:
        options.pop("object_pairs_hook", None)
        return json.loads(text, **options)


@contextmanager
def checks_off(directory: Path) -> Iterator[None]:
    """The read path with the new checks switched off, restored afterwards."""
    saved = (
        casedir_import.json,
        casedir_import._nested_deeper_than,
        casedir_import.validate_payload,
    )
    head = (directory / HEAD_FILE).read_bytes()

    def validate_as_before(event_type: str, version: int, payload: Any) -> Any:
        saved[2](event_type, version, payload)
        return payload  # so that the normal-form comparison always agrees

    casedir_import.json = _PlainJson  # type: ignore[assignment]
    casedir_import._nested_deeper_than = lambda value, limit: False  # type: ignore[assignment]
    casedir_import.validate_payload = validate_as_before  # type: ignore[assignment]
    (directory / HEAD_FILE).unlink()
    try:
        yield
    finally:
        casedir_import.json, casedir_import._nested_deeper_than = saved[0], saved[1]
        casedir_import.validate_payload = saved[2]
        (directory / HEAD_FILE).write_bytes(head)


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch) / "case"
        build(directory, args.events)
        now: list[float] = []
        before: list[float] = []
        for _ in range(args.rounds):
            now.append(timed(lambda: read_case_dir(directory)))
            with checks_off(directory):
                before.append(timed(lambda: read_case_dir(directory)))
        lines = (directory / "events.jsonl").read_text().splitlines()[:10_000]
    plain: list[float] = []
    checked: list[float] = []
    for _ in range(args.rounds):
        plain.append(timed(lambda: [json.loads(line) for line in lines]))
        checked.append(
            timed(
                lambda: [
                    casedir_import._nested_deeper_than(
                        json.loads(line, object_pairs_hook=casedir_import._unique_keys), 64
                    )
                    for line in lines
                ]
            )
        )
    m_now, m_before = statistics.median(now), statistics.median(before)
    m_plain, m_checked = statistics.median(plain), statistics.median(checked)
    print(f"read {args.events} events, checks on:  {m_now * 1000:8.1f} ms")
    print(f"read {args.events} events, checks off: {m_before * 1000:8.1f} ms")
    print(f"read ratio (target <= 1.25x):       {m_now / m_before:8.2f}x")
    print(f"decode 10,000 lines, plain:          {m_plain * 1000:8.1f} ms")
    print(f"decode 10,000 lines, hook + depth:   {m_checked * 1000:8.1f} ms")
    print(f"line ratio:                          {m_checked / m_plain:8.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
