"""The tests' list of built-in probes is the one pyproject.toml registers (no probe the tests
forget, none they invent)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.cli.conftest import builtin_probes


def test_the_builtin_probes_are_the_registered_entry_points() -> None:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    entries = tomllib.loads(pyproject.read_text())["project"]["entry-points"]["casefile.probes"]
    assert sorted(p.name for p in builtin_probes()) == sorted(entries)
