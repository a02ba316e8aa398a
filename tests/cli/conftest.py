from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from casefile.cli.main import main


@dataclass
class Outcome:
    code: int
    out: str
    err: str


CLI = Callable[..., Outcome]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> CLI:
    """Run `casefile ARGS…` in-process against a fresh SQLite database."""
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{tmp_path / 'cli.db'}")

    def run(*args: str) -> Outcome:
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run
