"""Every benchmark script imports as ``benchmarks.<name>`` in a fresh interpreter.

Tests build their large cases with the benchmarks' helpers (``benchmarks.bench_tui.build``),
so a script that only imports when its own folder happens to be on ``sys.path`` makes those
tests depend on which test ran before them. A fresh interpreter started in the repository
root, with nothing added to its path, is the case that catches it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py"))

PROBE = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    try:
        importlib.import_module("benchmarks." + name)
    except Exception as error:
        failed.append(f"{name}: {error!r}")
print("\\n".join(failed))
"""


def test_there_are_scripts_to_check() -> None:
    assert "bench_commands" in SCRIPTS and "siblings" in SCRIPTS


def test_every_benchmark_imports_as_a_module_of_the_package() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *SCRIPTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == ""
