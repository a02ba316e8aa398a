"""Rewrite golden results from the current code (by hand only).

    .venv/bin/python tests/parsers/regen_golden.py [folder ...]

With no folder, every corpus folder of ``corpus.NVIDIA_SMI_PARSERS`` and
``corpus.OTHER_PARSERS``. Regenerating is the easy half: read every changed file against its
raw sample (and the corpus MANIFEST notes) before committing it; a golden file records what a
person checked, not merely what the parser said. Not a test; pytest does not collect it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.parsers.corpus import (
    NVIDIA_SMI_PARSERS,
    OTHER_PARSERS,
    corpus_files,
    facts_as_json,
    golden_path,
    read_sample,
)


def _dump_nvidia_smi(data: dict[str, Any]) -> str:
    """JSON with one fact a line: small diffs, easy to read beside the raw sample."""
    facts = ",\n".join("  " + json.dumps(fact, ensure_ascii=False) for fact in data["facts"])
    facts_block = f"[\n{facts}\n ]" if facts else "[]"
    return (
        "{\n"
        f' "parsed": {json.dumps(data["parsed"])},\n'
        f' "problems": {json.dumps(data["problems"], ensure_ascii=False)},\n'
        f' "facts": {facts_block}\n'
        "}\n"
    )


def _dump_other(data: dict[str, Any]) -> str:
    """JSON with one fact a line, problems last (the layout the other folders' files have)."""
    body = ",\n    ".join(json.dumps(fact, ensure_ascii=False) for fact in data["facts"])
    problems = json.dumps(data["problems"], indent=4, ensure_ascii=False).replace("\n]", "\n  ]")
    return (
        "{\n"
        f'  "parsed": {json.dumps(data["parsed"])},\n'
        f'  "facts": [\n    {body}\n  ],\n'
        f'  "problems": {problems}\n'
        "}\n"
    ).replace('"facts": [\n    \n  ]', '"facts": []')


# Each family keeps the layout its files were written in, so that regenerating shows only
# what changed.
_DUMPS: dict[str, Callable[[dict[str, Any]], str]] = {
    **dict.fromkeys(NVIDIA_SMI_PARSERS, _dump_nvidia_smi),
    **dict.fromkeys(OTHER_PARSERS, _dump_other),
}
PARSERS = {**NVIDIA_SMI_PARSERS, **OTHER_PARSERS}


def main(folders: list[str]) -> None:
    for folder in folders or list(PARSERS):
        for sample in corpus_files(folder):
            data = facts_as_json(PARSERS[folder](read_sample(sample)))
            target = golden_path(folder, sample.stem)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = _DUMPS[folder](data)
            old = target.read_text(encoding="utf-8") if target.exists() else None
            if old != text:
                target.write_text(text, encoding="utf-8")
                print("changed" if old else "new", target)


if __name__ == "__main__":
    main(sys.argv[1:])
