"""Where the shared corpus of real outputs lives, and how golden results are stored.

The corpus sits beside the repository (``<repo>/../shared/corpus``), in CI as on a laptop;
golden results live in this repository under ``tests/golden/<folder>/<stem>.json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from casefile.domain.facts import ParseResult

REPO = Path(__file__).resolve().parents[2]
CORPUS: Path = REPO.parent / "shared" / "corpus"
GOLDEN: Path = REPO / "tests" / "golden"


def corpus_files(folder: str) -> list[Path]:
    """The sample files of one corpus folder, in name order (empty if the corpus is absent)."""
    return sorted((CORPUS / folder).glob("*.txt"))


def golden_path(folder: str, stem: str) -> Path:
    return GOLDEN / folder / f"{stem}.json"


def load_golden(folder: str, stem: str) -> dict[str, Any] | None:
    """The expected result for one sample, or None when nobody has written it yet."""
    path = golden_path(folder, stem)
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part
    )


def facts_as_json(result: ParseResult) -> dict[str, Any]:
    """A result as plain JSON data, facts in a deterministic order (subject, name, value)."""
    facts = [fact.to_dict() for fact in result.facts]
    facts.sort(key=lambda f: (_natural(f["subject"]), f["name"], repr(f["value"]), f["unit"] or ""))
    data = {"parsed": result.parsed, "facts": facts, "problems": list(result.problems)}
    # a JSON round trip, so that a fresh result compares equal to one read from disk
    loaded: dict[str, Any] = json.loads(json.dumps(data))
    return loaded
