"""No control characters in the project's own sources and data: a ``\\b`` written into a
string that was not raw once put two backspaces into a regular expression, which then never
matched what it was written for (``cases/dev/EVALUATIONS.md``, change 205). A tab, a newline
and a carriage return are the only control characters a source file may hold."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: the project's own text: code, playbooks, docs and the benchmark scripts (collected real
#: outputs under tests/golden keep whatever the tools printed)
ROOTS = ("casefile", "plugins", "benchmarks", "cases/_build", "docs", "tests")
SUFFIXES = {".py", ".toml", ".md"}
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def test_sources_hold_no_control_characters() -> None:
    found = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*")):
            if path.suffix not in SUFFIXES or "golden" in path.parts or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(), start=1):
                if CONTROL.search(line):
                    found.append(f"{path.relative_to(REPO)}:{number}")
    assert not found, f"control characters in: {', '.join(found[:10])}"
