"""Where the shared corpus of real outputs lives, how golden results are stored and checked.

The corpus sits beside the repository (``<repo>/../shared/corpus``), in CI as on a laptop;
golden results live in this repository under ``tests/golden/<folder>/<stem>.json``. The
parsers of each corpus folder, and the checks every parser result must pass, are here too,
shared by the golden tests, the fuzz tests and ``regen_golden.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.dmon import parse_dmon
from casefile_probes.lspci import parse_lspci
from casefile_probes.nccl import parse_nccl
from casefile_probes.p2p import parse_p2p
from casefile_probes.pmon import parse_pmon
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table
from casefile_probes.topo import parse_topo

from casefile.domain.facts import Fact, ParseResult

REPO = Path(__file__).resolve().parents[2]
CORPUS: Path = REPO.parent / "shared" / "corpus"
GOLDEN: Path = REPO / "tests" / "golden"

Parser = Callable[[str], ParseResult]

#: The nvidia-smi parsers, by corpus folder.
NVIDIA_SMI_PARSERS: dict[str, Parser] = {
    "topo": parse_topo,
    "query-csv": parse_query_gpu,
    "smi-q": parse_smi_q,
    "smi-table": parse_smi_table,
    "dmon": parse_dmon,
    "pmon": parse_pmon,
}

#: The parsers of the other tools' outputs (lspci, nccl-tests, CUDA samples), by corpus folder.
OTHER_PARSERS: dict[str, Parser] = {
    "lspci": parse_lspci,
    "nccl": parse_nccl,
    "p2p": parse_p2p,
    "bandwidth": parse_bandwidth,
}


def corpus_files(folder: str) -> list[Path]:
    """The sample files of one corpus folder, in name order (empty if the corpus is absent)."""
    return sorted((CORPUS / folder).glob("*.txt"))


def read_sample(path: Path) -> str:
    """A corpus sample's text, as every parser test and ``regen_golden.py`` reads it."""
    return path.read_text(encoding="utf-8", errors="replace")


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


def check_result(result: object) -> None:
    """A well-formed ParseResult: typed facts with names and subjects, no NaN, and a reason
    for every unparsed result (which then carries no facts)."""
    assert isinstance(result, ParseResult)
    assert isinstance(result.parsed, bool)
    assert all(isinstance(problem, str) and problem for problem in result.problems)
    for fact in result.facts:
        assert isinstance(fact, Fact)
        assert fact.name and isinstance(fact.subject, str) and fact.subject
        assert isinstance(fact.value, bool | int | float | str)
        if isinstance(fact.value, float):
            assert fact.value == fact.value  # no NaN
    if not result.parsed:
        assert result.problems, "an unparsed result must say why"
        assert not result.facts


def assert_matches_golden(folder: str, path: Path, parse: Parser) -> None:
    """The parser's result for one corpus sample equals its golden file, value types included."""
    expected = load_golden(folder, path.stem)
    assert expected is not None, (
        f"no golden result for {folder}/{path.name}: run "
        f"'.venv/bin/python tests/parsers/regen_golden.py {folder}', then check "
        f"{golden_path(folder, path.stem)} against the sample by hand"
    )
    actual = facts_as_json(parse(read_sample(path)))
    assert actual["parsed"] == expected["parsed"]
    assert actual["problems"] == expected["problems"]
    assert actual["facts"] == expected["facts"]
    # bool and int compare equal in Python; the golden files must keep them apart
    assert [type(f["value"]) for f in actual["facts"]] == [
        type(f["value"]) for f in expected["facts"]
    ]
