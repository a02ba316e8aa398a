"""``replay --jsonl`` split between this process and a worker process (``cli.replay_split``):
the same bytes as one process writes, wherever the split falls; the rest written here when the
worker cannot start, fails, says nothing or opened another case; a worker stopped when the
replay ends early or its parent is gone; nothing else it prints in the replay; and no
``casefile`` folder in the working directory imported."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from casefile.app.opening import open_case
from casefile.app.views.replay_lines import jsonl_lines
from casefile.app.views.replay_stream import open_replay
from casefile.cli import replay_split
from tests.cli.conftest import CLI, builtin_registry

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "casefile" / "reference" / "glm5-pcie-pivot"


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    copied = tmp_path / "glm5"
    shutil.copytree(REFERENCE, copied)
    return copied


@pytest.fixture
def fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What was said each time this process wrote the worker's part itself."""
    said: list[str] = []
    monkeypatch.setattr(replay_split.log, "info", lambda *a: said.append(str(a)))
    return said


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch, fallbacks: list[str]) -> list[list[str]]:
    """Every worker started (its argv), on a case of any length and any machine."""
    started: list[list[str]] = []
    real = replay_split._worker_argv

    def argv() -> list[str]:
        started.append(real())
        return started[-1]

    monkeypatch.setattr(replay_split, "SPLIT_FROM_STEPS", 2)
    monkeypatch.setattr(replay_split, "usable_cpus", lambda: 2)
    monkeypatch.setattr(replay_split, "_worker_argv", argv)
    return started


def one_process(cli: CLI, *args: str) -> str:
    original = replay_split.SPLIT_FROM_STEPS
    replay_split.SPLIT_FROM_STEPS = 10**9
    try:
        done = cli("replay", *args, "--jsonl")
    finally:
        replay_split.SPLIT_FROM_STEPS = original
    assert done.code == 0, done.err
    return done.out


@pytest.mark.parametrize("share", [0.05, 0.5, 2 / 3, 0.95])
def test_split_lines_are_the_lines_one_process_writes(
    cli: CLI,
    case_dir: Path,
    workers: list[list[str]],
    fallbacks: list[str],
    share: float,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Split early, in the middle, at the default share and near the end: the reference case
    pivots at seqs 29 and 66, so its pivots fall on either side or both."""
    expected = one_process(cli, str(case_dir))
    monkeypatch.setattr(replay_split, "SHARE_HERE", share)
    done = cli("replay", str(case_dir), "--jsonl")
    assert done.code == 0, done.err
    assert len(workers) == 1 and fallbacks == []  # the worker wrote its part
    assert done.out == expected
    assert '"pivots": [{"seq": 29' in expected.splitlines()[-1]


def test_split_of_a_database_case_up_to_a_step(
    cli: CLI, case_dir: Path, workers: list[list[str]], fallbacks: list[str], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'named.db'}"
    imported = cli("import", str(case_dir), "--db", db)
    assert imported.code == 0, imported.err
    expected = one_process(cli, "glm5-pcie-pivot", "--to", "70", "--db", db)
    done = cli("replay", "glm5-pcie-pivot", "--to", "70", "--jsonl", "--db", db)
    assert done.code == 0, done.err
    assert done.out == expected
    assert len(workers) == 1 and fallbacks == []
    # the database's address went to the worker on its standard input, not in its argv
    assert not any("named.db" in arg for arg in workers[0])


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-c", "import sys; sys.exit(1)"],  # fails
        [sys.executable, "-c", "print('half a line')"],  # ends well with no summary
        [str(Path("/nonexistent/python"))],  # cannot start
    ],
    ids=["fails", "no-summary", "cannot-start"],
)
def test_a_worker_that_does_not_finish_leaves_the_rest_to_this_process(
    cli: CLI,
    case_dir: Path,
    workers: list[list[str]],
    fallbacks: list[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    expected = one_process(cli, str(case_dir))
    monkeypatch.setattr(replay_split, "_worker_argv", lambda: argv)
    done = cli("replay", str(case_dir), "--jsonl")
    assert done.code == 0, done.err
    assert done.out == expected
    assert len(fallbacks) == 1


def test_a_head_that_cannot_be_handed_over_starts_no_worker(
    cli: CLI,
    case_dir: Path,
    workers: list[list[str]],
    fallbacks: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = one_process(cli, str(case_dir))

    def refuse(obj: object) -> bytes:
        raise TypeError("cannot pickle 'mappingproxy' object")

    monkeypatch.setattr(pickle, "dumps", refuse)  # the module replay_split hands the head by
    done = cli("replay", str(case_dir), "--jsonl")
    assert done.code == 0, done.err
    assert done.out == expected
    assert workers == [] and "mappingproxy" in fallbacks[0]


def test_a_replay_that_ends_early_stops_its_worker(
    case_dir: Path, workers: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that stops (a closed pipe, an interrupt) ends the walk: the worker, still
    running, is killed and its files closed."""
    made: list[Any] = []
    real = replay_split._Worker

    class Recorded(real):  # type: ignore[misc, valid-type]
        def __init__(self, request: Any) -> None:
            super().__init__(request)
            made.append((self, self.process))

    monkeypatch.setattr(replay_split, "_Worker", Recorded)
    # a worker that would run for a minute
    monkeypatch.setattr(
        replay_split, "_worker_argv", lambda: [sys.executable, "-c", "import time; time.sleep(60)"]
    )
    with open_case(str(case_dir), None, builtin_registry()) as opened:
        stream = open_replay(opened.service, opened.case_id)
        lines = replay_split.split_jsonl_lines(stream, opened.case_id, str(case_dir), None)
        assert next(lines).startswith('{"case"')
        next(lines)
        lines.close()
    [(worker, process)] = made
    assert process.poll() is not None  # ended (killed), not left behind
    assert worker.process is None and worker.output is None


def _request(case_dir: Path, seed: int, page: int = 2_000, **changes: Any) -> dict[str, Any]:
    with open_case(str(case_dir), None, builtin_registry()) as opened:
        stream = open_replay(opened.service, opened.case_id)
        request = {
            "reference": str(case_dir),
            "db": None,
            "case_id": opened.case_id,
            "seed": seed,
            "upto": stream.last,
            "head": (stream.case, dict(stream.names), list(stream.offered), stream.suggestions),
            "head_hash": stream.case.head_hash,
            "page": page,
            "parent": os.getppid(),
        }
    request.update(changes)
    return request


def _whole(case_dir: Path) -> list[str]:
    with open_case(str(case_dir), None, builtin_registry()) as opened:
        return list(jsonl_lines(open_replay(opened.service, opened.case_id)))


def _worker_lines(request: dict[str, Any]) -> tuple[int, list[str]]:
    out = io.BytesIO()
    status = replay_split.work(request, out)
    return status, out.getvalue().decode("utf-8", "surrogatepass").splitlines()


@pytest.mark.parametrize("page", [2_000, 7])
def test_the_worker_writes_the_lines_after_any_seed(case_dir: Path, page: int) -> None:
    """At every seq of the case, on pages of any size: the worker's lines are the lines one
    process writes after that step, and its summary joined to the one before gives the
    replay's."""
    from casefile.app.views.replay_summary import joined

    whole = _whole(case_dir)
    steps = whole[1:-1]
    for seed in range(1, len(steps)):
        status, lines = _worker_lines(_request(case_dir, seed, page))
        assert status == 0
        assert lines[:-1] == steps[seed:], seed
        tail = json.loads(lines[-1])["tail_summary"]
        with open_case(str(case_dir), None, builtin_registry()) as opened:
            head = open_replay(opened.service, opened.case_id)
            head.upto = seed
            for _ in head.steps(with_changes=False):
                pass
            summary = joined(head.summary().to_json(), tail)
        assert json.loads(whole[-1])["summary"] == summary, seed


def test_the_worker_refuses_another_case_and_stops_without_its_parent(
    case_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _worker_lines(_request(case_dir, 40, case_id="another"))[0] == replay_split.OTHER_CASE
    moved = _request(case_dir, 40, head_hash="0" * 64)
    assert _worker_lines(moved)[0] == replay_split.OTHER_CASE
    monkeypatch.setattr(replay_split, "BATCH", 5)
    status, lines = _worker_lines(_request(case_dir, 40, parent=-1))
    assert status == replay_split.ORPHANED and lines == []


def test_what_else_the_worker_prints_goes_to_standard_error(case_dir: Path, tmp_path: Path) -> None:
    """A library printing in the worker writes to its standard error: its standard output is
    the replay's file, and holds the lines and the summary only."""
    noisy = (
        "import sys\n"
        "import casefile.cli.replay_split as split\n"
        "real = split.work\n"
        "def work(request, out):\n"
        "    print('a library says hello')\n"
        "    return real(request, out)\n"
        "split.work = work\n"
        "sys.exit(split.main())\n"
    )
    request = _request(case_dir, 60, parent=os.getpid())
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        done = subprocess.run(
            [sys.executable, "-c", noisy],
            input=pickle.dumps(request),
            stdout=stdout,
            stderr=stderr,
            cwd=ROOT,
            timeout=120,
        )
    assert done.returncode == 0, err.read_text()
    assert "hello" in err.read_text()
    lines = out.read_text().splitlines()
    assert lines[:-1] == _whole(case_dir)[1:-1][60:]
    assert lines[-1].startswith('{"tail_summary"')


def test_the_worker_does_not_import_a_casefile_folder_from_the_working_directory(
    cli: CLI,
    case_dir: Path,
    workers: list[list[str]],
    fallbacks: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder named ``casefile`` where the command runs is not the package the worker runs
    (``python -c`` and ``-m`` put the working directory first on the path)."""
    trap = tmp_path / "elsewhere"
    (trap / "casefile" / "cli").mkdir(parents=True)
    marker = tmp_path / "imported-from-the-working-directory"
    planted = f"open({str(marker)!r}, 'w').close()\nraise SystemExit(9)\n"
    for init in (trap / "casefile" / "__init__.py", trap / "casefile" / "cli" / "__init__.py"):
        init.write_text(planted)
    (trap / "casefile" / "cli" / "replay_split.py").write_text(planted)
    expected = one_process(cli, str(case_dir))
    monkeypatch.chdir(trap)
    done = cli("replay", str(case_dir), "--jsonl")
    assert done.code == 0, done.err
    assert done.out == expected
    assert not marker.exists()
    assert len(workers) == 1 and fallbacks == []  # the worker ran the real package
