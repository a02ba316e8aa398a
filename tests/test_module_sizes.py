"""The module-size check `.ci/run` runs: no module of casefile/ or plugins/ over 500 lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / ".ci" / "module-sizes"

pytestmark = pytest.mark.skipif(not CHECK.exists(), reason="no .ci/ (an sdist, not a checkout)")


def run_check(root: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, str(CHECK)] + ([str(root)] if root is not None else [])
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


def write_module(path: Path, lines: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"x{n} = {n}\n" for n in range(lines)))


def test_no_module_of_casefile_or_plugins_is_over_500_lines() -> None:
    done = run_check()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "median" in done.stdout


def test_each_module_over_the_limit_is_one_line_and_the_check_fails(tmp_path: Path) -> None:
    write_module(tmp_path / "casefile" / "small.py", 10)
    write_module(tmp_path / "casefile" / "exact.py", 500)
    write_module(tmp_path / "casefile" / "deep" / "big.py", 501)
    write_module(tmp_path / "plugins" / "pkg" / "bigger.py", 700)
    write_module(tmp_path / "tests" / "huge.py", 2000)  # not a tree the limit covers
    done = run_check(tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("plugins/pkg/bigger.py: 700 lines")
    assert lines[1].startswith("casefile/deep/big.py: 501 lines")
    assert not [line for line in lines if "exact.py" in line or "huge.py" in line]
    assert "median 500.5 lines" in lines[-1] and "2 over 500" in lines[-1]


def test_a_tree_within_the_limit_passes_and_reports_its_median(tmp_path: Path) -> None:
    for n, size in enumerate((20, 100, 300)):
        write_module(tmp_path / "casefile" / f"m{n}.py", size)
    write_module(tmp_path / "casefile" / "__pycache__" / "stale.py", 900)
    done = run_check(tmp_path)
    assert done.returncode == 0, done.stdout
    assert "3 modules" in done.stdout and "median 100 lines" in done.stdout
