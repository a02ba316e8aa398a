"""``replay --jsonl`` split between this process and a worker process (``cli.replay_split``):
the same bytes as one process writes, wherever the split falls, and when the worker cannot
start, fails, or would import a ``casefile`` folder from the working directory."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from casefile.cli import replay_split
from tests.cli.conftest import CLI

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
    pivots at seq 53 and after, so its pivots fall on either side or both."""
    expected = one_process(cli, str(case_dir))
    monkeypatch.setattr(replay_split, "SHARE_HERE", share)
    done = cli("replay", str(case_dir), "--jsonl")
    assert done.code == 0, done.err
    assert len(workers) == 1 and fallbacks == []  # the worker wrote its part
    assert done.out == expected
    assert '"pivots": [{' in expected.splitlines()[-1]


def test_split_of_a_database_case_up_to_a_step(
    cli: CLI, case_dir: Path, workers: list[list[str]], fallbacks: list[str]
) -> None:
    imported = cli("import", str(case_dir))
    assert imported.code == 0, imported.err
    expected = one_process(cli, "glm5-pcie-pivot", "--to", "70")
    done = cli("replay", "glm5-pcie-pivot", "--to", "70", "--jsonl")
    assert done.code == 0, done.err
    assert done.out == expected
    assert len(workers) == 1 and fallbacks == []
    # the database's address went to the worker on its standard input, not in its argv
    assert not any("sqlite" in arg or "cli.db" in arg for arg in workers[0])


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


def test_the_worker_does_not_import_a_casefile_folder_from_the_working_directory(
    cli: CLI,
    case_dir: Path,
    workers: list[list[str]],
    fallbacks: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder named ``casefile`` where the command runs is not the package the worker runs
    (``python -m`` would put the working directory first on its path)."""
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
