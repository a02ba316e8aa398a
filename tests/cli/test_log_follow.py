"""`casefile log CASE --follow`, driven as a real process the way a person at a terminal does.

The installed ``casefile`` runs as a subprocess whose stdout is a pipe (so nothing here works
unless each line is flushed as it is printed), over SQLite, a real PostgreSQL (LISTEN/NOTIFY,
on loopback) and a case directory. Other processes append while it follows; Ctrl-C ends it
with status 0; a rewritten history ends it with status 1 and one error line. Every wait has a
deadline (generous: what takes well under a second here); no read blocks without one.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from casefile.app.opening import open_case
from casefile.app.service import CaseService
from casefile.domain.events import NewEvent
from casefile.plugins import Registry
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from tests.signals import default_signals
from tests.store.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)

CASEFILE = Path(sys.executable).with_name("casefile")
CASE_ID = "follow-me"
SLACK = 60.0  # seconds: the deadline of any wait for something that takes well under one
QUIET = 1.0  # seconds to watch for a duplicate: two polls of a polled feed
SEQ = re.compile(r"^#(\d+)\s")


def cli_env() -> dict[str, str]:
    """The environment of every casefile process: no default database, and stdout left
    block-buffered into a pipe, so only an explicit flush gets a line out promptly."""
    env = {k: v for k, v in os.environ.items() if k not in ("CASEFILE_DB", "PYTHONUNBUFFERED")}
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def popen_options() -> dict[str, Any]:
    """The follower's environment, and SIGINT as a terminal delivers it (see tests.signals)."""
    return {"env": cli_env(), "preexec_fn": default_signals}


def casefile(*args: str) -> subprocess.CompletedProcess[str]:
    """Run one casefile command to completion (another process than the follower)."""
    assert CASEFILE.exists(), f"the casefile CLI is not installed at {CASEFILE}"
    done = subprocess.run(
        [str(CASEFILE), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=cli_env(),
        timeout=SLACK,
    )
    assert done.returncode == 0, f"casefile {' '.join(args)}: {done.stderr}"
    return done


class Follower:
    """``casefile ARGS…`` in its own process; threads read its stdout line by line and its
    stderr, so the test waits for lines with a deadline and never blocks on the pipe."""

    def __init__(self, *args: str) -> None:
        assert CASEFILE.exists(), f"the casefile CLI is not installed at {CASEFILE}"
        self.proc = subprocess.Popen(
            [str(CASEFILE), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            **popen_options(),
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._err: list[str] = []
        self.eof = False
        self._threads = [
            threading.Thread(target=self._pump_out, daemon=True),
            threading.Thread(target=self._pump_err, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump_out(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._err.append(line)

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def lines(self, seconds: float) -> list[str]:
        """The lines that arrive within ``seconds`` (fewer at end of output)."""
        deadline = time.monotonic() + seconds
        got: list[str] = []
        while not self.eof:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                self.eof = True
            else:
                got.append(line)
        return got

    def take(self, count: int, timeout: float = SLACK) -> list[str]:
        """Exactly the next ``count`` lines, which must arrive within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while len(got) < count and not self.eof:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                self.eof = True
            else:
                got.append(line)
        if len(got) < count:
            pytest.fail(
                f"wanted {count} line(s) within {timeout:g} s, got {got!r} "
                f"(running: {self.running}); stderr: {self.stderr()!r}"
            )
        return got

    def wait(self, timeout: float = SLACK) -> int:
        """The exit status, once the process has ended and both pipes are drained."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"casefile still running after {timeout:g} s; stderr: {self.stderr()!r}")
        for thread in self._threads:
            thread.join(timeout)
        return code

    def interrupt(self) -> int:
        """Ctrl-C: SIGINT to the process, then its exit status."""
        assert self.running, f"casefile ended before Ctrl-C; stderr: {self.stderr()!r}"
        self.proc.send_signal(signal.SIGINT)
        return self.wait()

    def rest(self) -> list[str]:
        """What is left on stdout (after :meth:`wait`)."""
        return self.lines(0.5 if not self.eof else 0)

    def stderr(self) -> str:
        return "".join(self._err)

    def close(self) -> None:
        if self.running:
            self.proc.kill()
            self.proc.wait(timeout=SLACK)
        for thread in self._threads:
            thread.join(SLACK)


@pytest.fixture
def follow() -> Iterator[type[Follower]]:
    """Start followers with ``follow(ARGS…)``; any still running at the end are killed."""
    started: list[Follower] = []

    class Tracked(Follower):
        def __init__(self, *args: str) -> None:
            super().__init__(*args)
            started.append(self)

    yield Tracked
    for follower in started:
        follower.close()


@dataclass(frozen=True)
class Target:
    """What CASE names on the command line, and the ``--db`` that goes with it."""

    ref: str
    db: str | None

    @property
    def db_args(self) -> tuple[str, ...]:
        return () if self.db is None else ("--db", self.db)

    def append_notes(self, *texts: str) -> None:
        """Notes appended from this (test) process, one commit each, through the same
        composition root as the CLI."""
        with open_case(self.ref, self.db, Registry()) as opened:
            for text in texts:
                opened.service.writer.note(opened.case_id, text)

    def hashes(self) -> list[tuple[int, str]]:
        with open_case(self.ref, self.db, Registry()) as opened:
            return [(e.seq, e.hash) for e in opened.service.reader.events(opened.case_id)]


def make_case(url: str, *notes: str) -> None:
    with CaseService(SqlEventStore(url)) as service:
        service.writer.new_case("GPU falls off the bus", case_id=CASE_ID)
        for text in notes:
            service.writer.note(CASE_ID, text)


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
        pytest.param("directory", id="directory"),
    ]
)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Target:
    """A case of three events (opened, two notes) in SQLite, PostgreSQL or a case directory
    (exported from SQLite by `casefile export`)."""
    if request.param == "postgres":
        url = str(request.getfixturevalue("postgres_url"))
    else:
        url = f"sqlite:///{tmp_path / 'follow.db'}"
    make_case(url, "first note", "second note")
    if request.param != "directory":
        return Target(CASE_ID, url)
    directory = tmp_path / "case-dir"
    casefile("export", CASE_ID, str(directory), "--db", url)
    return Target(str(directory), None)


def seq_of(line: str, as_json: bool) -> int:
    if as_json:
        return int(json.loads(line)["seq"])
    match = SEQ.match(line)
    assert match, f"not a log line: {line!r}"
    return int(match.group(1))


# -- following ---------------------------------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_follow_prints_the_history_then_each_new_event_once_in_order(
    target: Target, as_json: bool, follow: type[Follower]
) -> None:
    json_args = ("--json",) if as_json else ()
    follower = follow("log", target.ref, "--follow", *json_args, *target.db_args)

    history = follower.take(3)
    assert [seq_of(line, as_json) for line in history] == [1, 2, 3]

    # Another process appends while it follows: the line comes down the pipe, unprompted.
    assert casefile("note", target.ref, "from another process", *target.db_args).stdout == "4\n"
    (news,) = follower.take(1)
    assert seq_of(news, as_json) == 4 and "from another process" in news
    assert follower.running, "a follower keeps following after a new event"

    # A burst of commits (one each): all of them, in order, each once.
    target.append_notes(*(f"burst {n}" for n in range(5)))
    burst = follower.take(5)
    assert [seq_of(line, as_json) for line in burst] == [5, 6, 7, 8, 9]
    assert [f"burst {n}" in line for n, line in enumerate(burst)] == [True] * 5
    assert follower.lines(QUIET) == [], "an event was printed twice"

    code = follower.interrupt()
    err = follower.stderr()
    assert code == 0, err
    assert "Traceback" not in err and "interrupted" not in err, err
    assert follower.rest() == []

    lines = [*history, news, *burst]
    stored = target.hashes()
    assert [seq_of(line, as_json) for line in lines] == [seq for seq, _ in stored]
    if not as_json:
        assert "first note" in history[1] and "second note" in history[2]
        return
    objects = [json.loads(line) for line in lines]  # JSON lines: one object per line
    assert all(isinstance(o, dict) and {"seq", "hash", "type"} <= o.keys() for o in objects)
    assert [(o["seq"], o["hash"]) for o in objects] == stored
    assert [o["type"] for o in objects] == ["case.opened"] + ["note.added"] * 8
    assert [o["prev_hash"] for o in objects[1:]] == [o["hash"] for o in objects[:-1]]


def test_ctrl_c_while_the_history_is_still_printing_exits_0(tmp_path: Path) -> None:
    """A case bigger than the pipe holds: the follower blocks mid-history until the reader
    reads, and Ctrl-C lands there, before any following has begun."""
    url = f"sqlite:///{tmp_path / 'big.db'}"
    make_case(url)
    events = 400
    with SqlEventStore(url) as store:
        filler = [NewEvent("note.added", {"text": f"{n} " + "x" * 1000}) for n in range(events)]
        store.append(CASE_ID, 1, filler)
    proc = subprocess.Popen(
        [str(CASEFILE), "log", CASE_ID, "--follow", "--json", "--db", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **popen_options(),
    )
    try:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        first = b""
        deadline = time.monotonic() + SLACK
        while b"\n" not in first and time.monotonic() < deadline:
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                time.sleep(0.05)
                continue
            if not chunk:
                break  # it ended: the assertion below says how
            first += chunk
        assert b'"seq": 1' in first, f"no first line; running: {proc.poll() is None}"
        # Read nothing more: the pipe fills (400 KB of history) and casefile blocks writing.
        time.sleep(1.0)
        assert proc.poll() is None, "casefile ended before Ctrl-C"
        proc.send_signal(signal.SIGINT)
        os.set_blocking(fd, True)
        out, err_bytes = proc.communicate(timeout=SLACK)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err_bytes.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "interrupted" not in err, err
    printed = (first + out).decode().splitlines()
    whole = [json.loads(line) for line in printed[:-1]]  # the last may be cut short
    assert len(printed) < events + 1, "Ctrl-C landed after the history was printed"
    assert [o["seq"] for o in whole] == list(range(1, len(whole) + 1))


def _holds_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open (Linux's /proc)."""
    try:
        return any(
            os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{pid}/fd")
        )
    except OSError:  # it ended, or a descriptor closed while we looked
        return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_as_the_follower_starts_exits_0(tmp_path: Path, attempt: int) -> None:
    """Ctrl-C the moment the follower has its database open (opening the case, reading the
    history, setting up the feed): an ordinary end, exit 0, nothing left running."""
    path = tmp_path / "start.db"
    url = f"sqlite:///{path}"
    make_case(url, *(f"note {n}" for n in range(50)))
    proc = subprocess.Popen(
        [str(CASEFILE), "log", CASE_ID, "--follow", "--db", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **popen_options(),
    )
    try:
        deadline = time.monotonic() + SLACK
        while not _holds_open(proc.pid, path) and proc.poll() is None:
            assert time.monotonic() < deadline, "the follower never opened its database"
            time.sleep(0.001 * (attempt + 1))
        proc.send_signal(signal.SIGINT)
        out, err_bytes = proc.communicate(timeout=SLACK)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err_bytes.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "interrupted" not in err, err
    seqs = [int(m.group(1)) for m in map(SEQ.match, out.decode().splitlines()) if m]
    assert seqs == list(range(1, len(seqs) + 1))  # whatever was printed, in order


def test_a_rewritten_history_ends_following_with_one_error_line(
    tmp_path: Path, follow: type[Follower]
) -> None:
    url = f"sqlite:///{tmp_path / 'follow.db'}"
    make_case(url, "first note", "second note")
    follower = follow("log", CASE_ID, "--follow", "--db", url)
    history = follower.take(3)

    # Another chain of the same case id takes the old one's place under the follower.
    other = CaseService(MemoryEventStore())
    other.writer.new_case("another history", case_id=CASE_ID)
    for n in range(4):
        other.writer.note(CASE_ID, f"other {n}")
    with closing(sqlite3.connect(tmp_path / "follow.db", timeout=SLACK)) as conn, conn:
        conn.execute("DELETE FROM events WHERE case_id = ?", (CASE_ID,))
    with SqlEventStore(url) as store:
        store.import_case(other.store.load(CASE_ID), {})

    code = follower.wait()
    err = follower.stderr()
    assert code == 1, err
    assert "Traceback" not in err, err
    error_lines = err.splitlines()
    assert len(error_lines) == 1, err
    assert error_lines[0].startswith("casefile: error: ")
    assert CASE_ID in error_lines[0] and "rewritten" in error_lines[0]
    assert follower.rest() == [], "nothing of the new history is printed"
    assert [seq_of(line, False) for line in history] == [1, 2, 3]


# -- without --follow --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sqlite", "directory"])
def test_log_json_without_follow_is_still_one_array(tmp_path: Path, kind: str) -> None:
    url = f"sqlite:///{tmp_path / 'follow.db'}"
    make_case(url, "first note", "second note")
    args: tuple[str, ...] = (CASE_ID, "--db", url)
    if kind == "directory":
        casefile("export", CASE_ID, str(tmp_path / "case-dir"), "--db", url)
        args = (str(tmp_path / "case-dir"),)
    out = casefile("log", *args, "--json").stdout
    document: Any = json.loads(out)  # one JSON document, not one per line
    assert isinstance(document, list)
    assert [(e["seq"], e["type"]) for e in document] == [
        (1, "case.opened"),
        (2, "note.added"),
        (3, "note.added"),
    ]
