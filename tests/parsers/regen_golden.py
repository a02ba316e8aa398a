"""Rewrite the golden results of the nvidia-smi parsers from the current code (by hand only).

    .venv/bin/python tests/parsers/regen_golden.py [folder ...]

Regenerating is the easy half: read every changed file against its raw sample (and the
corpus MANIFEST notes) before committing it. Not a test; pytest does not collect it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.dmon import parse_dmon
from casefile_probes.pmon import parse_pmon
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table
from casefile_probes.topo import parse_topo

from casefile.domain.facts import ParseResult
from tests.parsers.corpus import corpus_files, facts_as_json, golden_path

PARSERS: dict[str, Callable[[str], ParseResult]] = {
    "topo": parse_topo,
    "query-csv": parse_query_gpu,
    "smi-q": parse_smi_q,
    "smi-table": parse_smi_table,
    "dmon": parse_dmon,
    "pmon": parse_pmon,
}


def _dump(data: dict[str, Any]) -> str:
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


def main(folders: list[str]) -> None:
    for folder in folders or list(PARSERS):
        for sample in corpus_files(folder):
            data = facts_as_json(PARSERS[folder](sample.read_text(encoding="utf-8")))
            target = golden_path(folder, sample.stem)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = _dump(data)
            old = target.read_text(encoding="utf-8") if target.exists() else None
            if old != text:
                target.write_text(text, encoding="utf-8")
                print("changed" if old else "new", target)


if __name__ == "__main__":
    main(sys.argv[1:])
