"""Regenerate the golden results of the lspci, nccl, p2p and bandwidth parsers (by hand only).

    .venv/bin/python tests/parsers/regen_golden_other.py [folder ...]

Every regenerated file must be read against its raw sample before it is committed: a golden
file records what a person checked, not merely what the parser said.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.lspci import parse_lspci
from casefile_probes.nccl import parse_nccl
from casefile_probes.p2p import parse_p2p

from casefile.domain.facts import ParseResult
from tests.parsers.corpus import corpus_files, facts_as_json, golden_path

PARSERS: dict[str, Callable[[str], ParseResult]] = {
    "lspci": parse_lspci,
    "nccl": parse_nccl,
    "p2p": parse_p2p,
    "bandwidth": parse_bandwidth,
}


def dump(data: dict[str, object]) -> str:
    """JSON with one fact a line: compact, and a reviewer can read it against the sample."""
    facts = data["facts"]
    assert isinstance(facts, list)
    lines = [json.dumps(fact, ensure_ascii=False) for fact in facts]
    body = ",\n    ".join(lines)
    problems = json.dumps(data["problems"], indent=4, ensure_ascii=False).replace("\n]", "\n  ]")
    return (
        "{\n"
        f'  "parsed": {json.dumps(data["parsed"])},\n'
        f'  "facts": [\n    {body}\n  ],\n'
        f'  "problems": {problems}\n'
        "}\n"
    ).replace('"facts": [\n    \n  ]', '"facts": []')


def main(folders: list[str]) -> None:
    for folder in folders or list(PARSERS):
        parse = PARSERS[folder]
        for path in corpus_files(folder):
            data = facts_as_json(parse(path.read_text(encoding="utf-8", errors="replace")))
            target = golden_path(folder, path.stem)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(dump(data), "utf-8")
            print(f"{target}: parsed={data['parsed']} facts={len(data['facts'])}")


if __name__ == "__main__":
    main(sys.argv[1:])
