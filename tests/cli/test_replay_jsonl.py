"""``replay --jsonl`` from the command line: one JSON line per step as the case folds, which
rebuilds into exactly what ``replay --json`` prints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from casefile.app.views.replay_lines import rebuild_replay
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
    upto = cli("replay", str(case_dir), "--jsonl", "--to", "29").out.splitlines()
    assert [json.loads(row).get("seq") for row in upto[1:-1]] == list(range(1, 30))


def test_json_and_jsonl_are_one_or_the_other(cli: CLI, tmp_path: Path) -> None:
    case_dir = tmp_path / "glm5"
    shutil.copytree(ROOT / "casefile" / "reference" / "glm5-pcie-pivot", case_dir)
    both = cli("replay", str(case_dir), "--json", "--jsonl")
    assert both.code == 2 and "not allowed with" in both.err and both.out == ""
