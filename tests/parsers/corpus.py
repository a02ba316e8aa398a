"""Where the shared corpus of real outputs lives, how golden results are stored and checked.

The corpus sits beside the repository (``<repo>/../shared/corpus``), in CI as on a laptop;
golden results live in this repository under ``tests/golden/<folder>/<stem>.json``. The
parsers of each corpus folder, and the checks every parser result must pass, are here too,
shared by the golden tests, the fuzz tests and ``regen_golden.py``.

Fixtures collected from public threads live beside their goldens
(``tests/golden/<folder>/<stem>.txt``, sources in the folder's ``SOURCES``); each family module
(``collected``, ``host_logs``, ``pasted``, ``profilers``) only names its folders and parsers, and
reads, checks and regenerates them through the functions here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
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
from casefile.probes.api import Probe
from tests.timing import ROUNDS, cpu_seconds

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


def read_samples(*folders: str, corpus: Iterable[str] = ()) -> list[str]:
    """The texts of the fixture folders named, then of the shared corpus folders named."""
    paths = [path for folder in folders for path in golden_files(folder)]
    paths += [path for folder in corpus for path in corpus_files(folder)]
    return [read_sample(path) for path in paths]


def golden_files(folder: str) -> list[Path]:
    """The samples of one fixture folder kept in this repository, in name order."""
    return sorted((GOLDEN / folder).glob("*.txt"))


def golden_cases(parsers: Mapping[str, Parser]) -> list[Any]:
    """One pytest case (folder, sample path) per sample of each fixture folder named."""
    return [
        pytest.param(folder, path, id=f"{folder}/{path.stem}")
        for folder in parsers
        for path in golden_files(folder)
    ]


def sources(folder: str) -> dict[str, str]:
    """File name -> source address, from the folder's tab-separated ``SOURCES`` file."""
    found: dict[str, str] = {}
    for line in (GOLDEN / folder / "SOURCES").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, url, *_ = line.split("\t")
        found[name] = url
    return found


def other_samples(folder: str) -> list[Path]:
    """Every sample of another tool: the other golden folders' ``.txt`` files and the corpus."""
    found = [
        path
        for directory in sorted(GOLDEN.iterdir())
        if directory.is_dir() and directory.name != folder
        for path in sorted(directory.glob("*.txt"))
    ]
    if CORPUS.is_dir():
        found += sorted(CORPUS.glob("*/*.txt"))
    return found


def check_sources_and_goldens(folder: str, *, least: int = 1, url_prefix: str = "https://") -> None:
    """A fixture folder holds enough samples, each with its source address and a golden, and
    no golden without its sample."""
    samples = {path.name for path in golden_files(folder)}
    assert len(samples) >= least, f"fewer than {least} samples in tests/golden/{folder}/"
    listed = sources(folder)
    assert set(listed) == samples, f"SOURCES and fixture files differ in {folder}/"
    assert all(url.startswith(url_prefix) for url in listed.values())
    goldens = {path.stem for path in (GOLDEN / folder).glob("*.json")}
    assert goldens == {Path(name).stem for name in samples}, (
        f"orphan or missing golden in {folder}/"
    )


def check_recognises_no_other(folder: str, recognise: Callable[[str], bool], least: int) -> None:
    """A probe's ``recognises`` guess takes no other tool's sample (of at least ``least``)."""
    others = other_samples(folder)
    assert len(others) > least, "the other samples were not found"
    taken = [str(path) for path in others if recognise(read_sample(path))]
    assert not taken, f"{folder} takes other tools' outputs for its own: {taken}"


def check_probe_declarations(probe: Probe, recognise: Callable[[str], bool]) -> None:
    """A probe names the recogniser its tests hold it to, and declares every fact its parser
    gives on its fixture folder (named after the probe)."""
    assert probe.recognises is recognise
    given = {
        fact.name
        for path in golden_files(probe.name)
        for fact in probe.parse(read_sample(path)).facts
    }
    undeclared = {
        name for name in given if not any(fnmatchcase(name, pattern) for pattern in probe.facts)
    }
    assert not undeclared, undeclared  # a declaration may be a pattern (``tegra.power.*``)


def regenerate(
    parsers: Mapping[str, Parser], on_corpus: Iterable[tuple[str, str, Parser]] = ()
) -> None:
    """Rewrite the goldens of fixture folders (and of parsers over shared corpus folders,
    as (golden folder, corpus folder, parser)) from the current code, naming each change."""
    from tests.parsers.regen_golden import _dump_other

    jobs = [
        (path, parse, golden_path(folder, path.stem))
        for folder, parse in parsers.items()
        for path in golden_files(folder)
    ]
    for golden, corpus_folder, parse in on_corpus:
        (GOLDEN / golden).mkdir(parents=True, exist_ok=True)
        jobs += [
            (path, parse, golden_path(golden, path.stem)) for path in corpus_files(corpus_folder)
        ]
    for sample, parse, target in jobs:
        text = _dump_other(facts_as_json(parse(read_sample(sample))))
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            print(f"changed {target}")


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


def check_linear_in_line_length(
    parse: Parser, unit: str, end: str, length: int, label: str
) -> None:
    """Twice the line, at most about twice the time (and never seconds): a pattern that
    backtracks over a line costs four times as much for twice the length. The line is ``unit``
    repeated to ``length`` characters, then ``end`` (chosen so that nothing matches there).
    Cost is CPU time (``tests/timing.py`` says why not wall time); the slack beside the ratio
    is what a busy machine's caches still add to a tenth of a second, and a pattern that
    backtracks takes seconds at this length, past the absolute bound."""

    def line(size: int) -> str:
        return (unit * (size // len(unit) + 1))[:size] + end

    halved, whole = line(length // 2), line(length)
    short = long = float("inf")
    for _ in range(ROUNDS):  # in turn, so that a busy spell weighs on both lengths alike
        short = min(short, cpu_seconds(lambda: check_result(parse(halved)), rounds=1))
        long = min(long, cpu_seconds(lambda: check_result(parse(whole)), rounds=1))
    assert long < 2.0, f"{label} took {long:.2f}s on a {length}-char line"
    assert long < 3.5 * short + 0.3, f"{label}: {short:.3f}s then {long:.3f}s"


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
