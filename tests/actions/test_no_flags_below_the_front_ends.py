"""No error raised below the front ends names a command-line flag: the TUI shows those messages
too, and has no flags. A remedy that needs a control is a :class:`~casefile.errors.Remedy`,
which each front end names as its own (the CLI's flag, the TUI's field)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import casefile

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
ROOT = Path(casefile.__file__).parent
BELOW = ("domain", "app", "probes", "store", "transcripts", "actions")


def flags_in_raised_messages(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            for part in ast.walk(node.exc):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    found += [f"{path.name}:{part.lineno}: {m}" for m in FLAG.findall(part.value)]
    return found


def test_no_raised_message_below_the_front_ends_names_a_flag() -> None:
    found = [
        hit
        for package in BELOW
        for path in sorted((ROOT / package).rglob("*.py"))
        for hit in flags_in_raised_messages(path)
    ]
    assert found == []


def test_the_check_finds_a_flag(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('raise ValueError(f"prior {p}; --rebalance makes room")\n')
    assert flags_in_raised_messages(sample) == ["sample.py:1: --rebalance"]
