"""``casefile rm CASE``: type the case id to confirm (or ``--yes``); never without a terminal
unless told; a case directory is the user's to delete."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.cli.conftest import CLI


class Terminal(io.StringIO):
    """stdin as a terminal that answers with ``answer``."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def case(cli: CLI) -> str:
    case_id = cli("new", "Doomed", "--id", "doomed-case").out.strip()
    assert cli("probe", case_id, "command", "--", "printf", "only mine").code == 0
    return case_id


def cases(cli: CLI) -> list[str]:
    return [c["id"] for c in json.loads(cli("cases", "--json").out)]


def test_yes_removes_without_asking(cli: CLI, case: str) -> None:
    other = cli("new", "Stays").out.strip()
    result = cli("rm", case, "--yes")
    assert result.code == 0, result.err
    assert result.out.strip() == "removed case doomed-case: 3 events, 1 artifact"
    assert cases(cli) == [other]
    gone = cli("log", case)
    assert gone.code == 1 and "no case 'doomed-case'" in gone.err


def test_without_a_terminal_rm_refuses_unless_yes(
    cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("doomed-case\n"))  # a pipe, not a terminal
    result = cli("rm", case)
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert "stdin is not a terminal: pass --yes" in result.err
    assert cases(cli) == [case]


def test_typing_the_id_confirms(cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", Terminal("doomed-case\n"))
    result = cli("rm", case)
    assert result.code == 0, result.err
    assert "This removes case doomed-case ('Doomed'): 3 events" in result.err
    assert "Type the case id to confirm:" in result.err
    assert cases(cli) == []


@pytest.mark.parametrize("answer", ["doomed\n", "\n", "", "y\n"])
def test_any_other_answer_removes_nothing(
    cli: CLI, case: str, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    monkeypatch.setattr("sys.stdin", Terminal(answer))
    result = cli("rm", case)
    assert result.code == 1
    assert "did not match 'doomed-case': nothing removed" in result.err
    assert cases(cli) == [case]


def test_a_prefix_is_not_enough_to_remove(cli: CLI, case: str) -> None:
    result = cli("rm", "doomed", "--yes")
    assert result.code == 1
    assert "rm needs the whole case id: 'doomed' is short for 'doomed-case'" in result.err
    assert cases(cli) == [case]


def test_a_case_directory_is_refused_with_the_folder_named(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    out = tmp_path / "exported"
    assert cli("export", case, str(out)).code == 0
    result = cli("rm", str(out), "--yes")
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert f"{out} is a case directory" in result.err and "delete the folder" in result.err
    assert (out / "events.jsonl").exists()


def test_an_unknown_case_is_one_line(cli: CLI) -> None:
    result = cli("rm", "nothing-here", "--yes")
    assert result.code == 1 and result.err.count("\n") == 1
