"""``replay --jsonl`` from the command line: one JSON line per step as the case folds, which
rebuilds into exactly what ``replay --json`` prints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from casefile.app.views.replay_lines import rebuild_replay
from casefile.cli import reasoning_commands
from tests.cli.conftest import CLI

ROOT = Path(__file__).resolve().parents[2]


def test_jsonl_rebuilds_into_the_json_replay(cli: CLI, tmp_path: Path) -> None:
    case_dir = tmp_path / "glm5"
    shutil.copytree(ROOT / "casefile" / "reference" / "glm5-pcie-pivot", case_dir)
    whole = cli("replay", str(case_dir), "--json")
    lines = cli("replay", str(case_dir), "--jsonl")
    assert whole.code == 0 and lines.code == 0, lines.err
    assert whole.out.count("\n") == 1  # one line, as before
    rows = lines.out.splitlines()
    assert len(rows) == json.loads(whole.out)["case"]["last_seq"] + 2
    rebuilt = json.dumps(rebuild_replay(rows), ensure_ascii=False)
    assert rebuilt + "\n" == whole.out
    # a step's changes follow from the confidences: the lines leave them out, the rebuild
    # gives them back, to the last digit (the comparison above), and some step had some
    steps = [json.loads(row) for row in rows[1:-1]]
    assert not any("changes" in step for step in steps)
    assert any(step["changes"] for step in json.loads(whole.out)["steps"])
    upto = cli("replay", str(case_dir), "--jsonl", "--to", "29").out.splitlines()
    assert [json.loads(row).get("seq") for row in upto[1:-1]] == list(range(1, 30))


def test_json_and_jsonl_are_one_or_the_other(cli: CLI, tmp_path: Path) -> None:
    case_dir = tmp_path / "glm5"
    shutil.copytree(ROOT / "casefile" / "reference" / "glm5-pcie-pivot", case_dir)
    both = cli("replay", str(case_dir), "--json", "--jsonl")
    assert both.code == 2 and "not allowed with" in both.err and both.out == ""


def test_lines_printed_in_batches_are_the_lines_printed_one_by_one(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streamed replay is printed a batch of lines at a time: batches that end mid-case,
    and the last one short, give the same bytes as a line at a time (both shapes)."""
    case_dir = tmp_path / "glm5"
    shutil.copytree(ROOT / "casefile" / "reference" / "glm5-pcie-pivot", case_dir)
    printed: dict[tuple[str, int], str] = {}
    for batch in (1, 7, 10**9):
        monkeypatch.setattr(reasoning_commands, "SAY_BATCH", batch)
        for shape in ("--jsonl", "--json"):
            done = cli("replay", str(case_dir), shape)
            assert done.code == 0, done.err
            printed[shape, batch] = done.out
    for shape in ("--jsonl", "--json"):
        assert printed[shape, 1] == printed[shape, 7] == printed[shape, 10**9]
    rows = printed["--jsonl", 7].split("\n")
    assert rows[-1] == "" and len(rows) - 1 == json.loads(rows[0])["case"]["last_seq"] + 2
    assert printed["--json", 7].count("\n") == 1 and printed["--json", 7].endswith("}\n")
