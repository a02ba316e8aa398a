"""``casefile log --json`` writes the whole array while reading the case a page at a time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from casefile.app.reader import CaseReader
from casefile.cli import case_commands
from casefile.cli.terminal import json_safe
from tests.cli.conftest import CLI


def test_log_json_reads_pages_and_writes_the_whole_array(
    cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    case_id = cli("new", "Paged", "--id", "paged").out.strip()
    for n in range(6):  # 7 events: two full pages of 3 and one of 1
        cli("note", case_id, f"note {n}: é \u2028 \x7f")
    monkeypatch.setattr(case_commands, "LOG_PAGE", 3)
    reads: list[int] = []
    events = CaseReader.events

    def counted(self: CaseReader, case: str, **kwargs: Any) -> Any:
        got = events(self, case, **kwargs)
        reads.append(len(got))
        return got

    monkeypatch.setattr(CaseReader, "events", counted)
    out = cli("log", case_id, "--json").out
    assert reads == [3, 3, 1]
    whole = json.loads(out)
    assert [e["seq"] for e in whole] == list(range(1, 8))
    # the bytes of one json.dumps of the whole array, printed as the CLI prints JSON
    assert out == json_safe(json.dumps(whole, indent=2, ensure_ascii=False)) + "\n"
    assert "\\u2028" in out and "\\u007f" in out
