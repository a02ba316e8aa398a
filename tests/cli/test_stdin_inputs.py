"""``--paste`` and ``parse`` read regular files (or ``-`` for stdin) up to a limit; ``note -``.

A FIFO given to ``--paste`` or ``parse`` used to hang (an open without a writer waits forever)
and ``/dev/zero`` was read until memory ran out. Now anything but a regular file is refused at
once, a file or stdin larger than the limit is refused, and ``-`` reads stdin.
"""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from casefile.cli import parsing

from .conftest import CLI, Outcome

TOPO = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tPHB\t0-31\nGPU1\tPHB\t X \t0-31\n"


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow decode", "--id", "c1").code == 0
    return "c1"


def within(seconds: float, run: Callable[[], Outcome]) -> Outcome:
    """``run()`` in a thread; fails the test (instead of hanging it) if it does not return."""
    result: list[Outcome] = []
    thread = threading.Thread(target=lambda: result.append(run()), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():  # a daemon thread: a hang fails the test instead of the whole run
        pytest.fail(f"still reading after {seconds} s")
    return result[0]


def with_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def events(cli: CLI) -> int:
    return cli("log", "c1", "--json").out.count('"seq":')


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_paste_of_a_fifo_is_refused_without_hanging(cli: CLI, case: str, fifo: Path) -> None:
    outcome = within(20, lambda: cli("probe", "c1", "nvidia-smi-topo", "--paste", str(fifo)))
    assert outcome.code == 1 and "not a regular file" in outcome.err
    assert outcome.err.count("\n") == 1
    assert events(cli) == 1


def test_parse_of_a_fifo_is_refused_without_hanging(cli: CLI, fifo: Path) -> None:
    outcome = within(20, lambda: cli("parse", "nvidia-smi-topo", str(fifo)))
    assert outcome.code == 1 and "not a regular file" in outcome.err


@pytest.mark.parametrize("command", ["paste", "parse"])
def test_dev_zero_is_refused_at_once(cli: CLI, case: str, command: str) -> None:
    argv = (
        ("probe", "c1", "nvidia-smi-topo", "--paste", "/dev/zero")
        if command == "paste"
        else ("parse", "nvidia-smi-topo", "/dev/zero")
    )
    outcome = within(20, lambda: cli(*argv))
    assert outcome.code == 1 and "/dev/zero: not a regular file" in outcome.err


@pytest.mark.parametrize("command", ["paste", "parse"])
def test_a_directory_is_refused_in_one_line(
    cli: CLI, case: str, command: str, tmp_path: Path
) -> None:
    """A directory got past the old check: opening it as a file raised before the check."""
    argv = (
        ("probe", "c1", "nvidia-smi-topo", "--paste", str(tmp_path))
        if command == "paste"
        else ("parse", "nvidia-smi-topo", str(tmp_path))
    )
    outcome = cli(*argv)
    assert outcome.code == 1 and f"{tmp_path}: not a regular file" in outcome.err
    assert "Traceback" not in outcome.err and outcome.err.count("\n") == 1
    assert events(cli) == 1


def test_a_file_over_the_limit_is_refused(
    cli: CLI, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parsing, "INPUT_LIMIT", 1000)
    big = tmp_path / "big.txt"
    big.write_text(TOPO * 100)
    outcome = cli("probe", "c1", "nvidia-smi-topo", "--paste", str(big))
    assert outcome.code == 1 and "more than 1000 bytes" in outcome.err
    assert events(cli) == 1
    assert "more than 1000 bytes" in cli("parse", "nvidia-smi-topo", str(big)).err
    with_stdin(monkeypatch, (TOPO * 100).encode())
    outcome = cli("parse", "nvidia-smi-topo", "-")
    assert outcome.code == 1 and "stdin: more than 1000 bytes" in outcome.err


def test_a_regular_file_and_stdin_are_read(
    cli: CLI, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "topo.txt"
    path.write_text(TOPO)
    assert cli("probe", "c1", "nvidia-smi-topo", "--paste", str(path)).code == 0
    with_stdin(monkeypatch, TOPO.encode())  # told apart from the file's (else a repeat)
    assert cli("probe", "c1", "nvidia-smi-topo", "--paste", "-", "--note", "stdin").code == 0
    with_stdin(monkeypatch, TOPO.encode())
    parsed = cli("parse", "nvidia-smi-topo", "-", "--json")
    assert parsed.code == 0 and '"parsed": true' in parsed.out
    assert parsed.out == cli("parse", "nvidia-smi-topo", str(path), "--json").out


def test_note_dash_reads_the_note_from_stdin(
    cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_stdin(monkeypatch, b"a long note\nover two lines\n")
    assert cli("note", "c1", "-").code == 0
    log = cli("log", "c1", "--json").out
    assert '"text": "a long note\\nover two lines"' in log


def test_note_dash_refuses_stdin_that_is_not_utf8(
    cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9\n"), encoding="utf-8"))
    outcome = cli("note", "c1", "-")
    assert outcome.code == 1 and "stdin is not valid UTF-8 (byte 4)" in outcome.err
    assert events(cli) == 1
