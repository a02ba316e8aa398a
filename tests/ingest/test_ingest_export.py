"""A timed ingest leaves a case that can be shared (issue 23, defect 3).

Every typescript, asciicast and Markdown ``[at …]`` gives its runs an ``occurred_at``. Ingest
once wrote those with milliseconds (``….500Z``), a form export refused as "not a stored time",
so the case could never leave its database, and ingest into a case directory was refused
outright. Each format must now survive database → export → import into a fresh database →
verify, and land in a case directory directly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from casefile.domain.events import format_time
from tests.cli.conftest import CLI
from tests.ingest.samples import MARKDOWN, asciicast, typescript


def _markdown(directory: Path) -> list[str]:
    (directory / "story.md").write_text(MARKDOWN)
    return [str(directory / "story.md")]


def _typescript(directory: Path) -> list[str]:
    data, timing = typescript()
    (directory / "session").write_bytes(data)
    (directory / "session.tm").write_bytes(timing)
    return [str(directory / "session"), "--timing", str(directory / "session.tm")]


def _asciicast(directory: Path) -> list[str]:
    (directory / "demo.cast").write_bytes(asciicast())
    return [str(directory / "demo.cast")]


#: each timed format: the ``ingest`` arguments after CASE, given a folder to write the files in
SOURCES: dict[str, Callable[[Path], list[str]]] = {
    "markdown": _markdown,
    "typescript": _typescript,
    "asciicast": _asciicast,
}


def _occurred(cli: CLI, case: str, *db: str) -> list[str]:
    outcome = cli("log", case, "--json", *db)
    assert outcome.code == 0, outcome.err
    return [e["occurred_at"] for e in json.loads(outcome.out) if e["occurred_at"] is not None]


def _assert_written_form(times: list[str]) -> None:
    """Every time is the one form casefile writes, sub-second part kept as microseconds."""
    assert times
    for when in times:
        assert format_time(datetime.fromisoformat(when)) == when, when


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_a_timed_ingest_exports_and_imports_into_a_fresh_database(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    assert cli("new", "Timed ingest", "--id", "ti").code == 0
    outcome = cli("ingest", "ti", *SOURCES[kind](tmp_path), "--yes")
    assert outcome.code == 0, outcome.err
    times = _occurred(cli, "ti")
    _assert_written_form(times)
    export = tmp_path / "export"
    exported = cli("export", "ti", str(export))
    assert exported.code == 0, exported.err
    other = f"sqlite:///{tmp_path / 'fresh.db'}"
    imported = cli("import", str(export), "--db", other)
    assert imported.code == 0, imported.err
    verified = cli("verify", "ti", "--db", other)
    assert verified.code == 0, verified.err
    assert _occurred(cli, "ti", "--db", other) == times


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_a_timed_ingest_lands_in_a_case_directory(cli: CLI, tmp_path: Path, kind: str) -> None:
    assert cli("new", "Into a directory", "--id", "dir").code == 0
    directory = tmp_path / "case"
    assert cli("export", "dir", str(directory)).code == 0
    outcome = cli("ingest", str(directory), *SOURCES[kind](tmp_path), "--yes")
    assert outcome.code == 0, outcome.err
    assert "appended" in outcome.out
    _assert_written_form(_occurred(cli, str(directory)))
    verified = cli("verify", str(directory))
    assert verified.code == 0, verified.err
    other = f"sqlite:///{tmp_path / 'fresh.db'}"
    imported = cli("import", str(directory), "--db", other)
    assert imported.code == 0, imported.err
