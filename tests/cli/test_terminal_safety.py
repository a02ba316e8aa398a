"""Terminal safety: escape sequences in what people typed (or imported, or pasted) never reach the
terminal raw through a human-readable command, while every JSON output keeps the exact text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from casefile.cli.terminal import json_safe, terminal_safe
from tests.cli.conftest import CLI

#: OSC (set the window title, BEL-terminated), CSI (clear the screen), a C1 CSI, DEL, NUL, CR
HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m\x7f\x00\r\x85"
#: any control character but the newline (and the tab, which is kept)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


#: the same, for a command-line word that must name a path (which cannot hold a NUL)
ARGUMENT = HOSTILE.replace("\x00", "")


def hostile(word: str) -> str:
    return f"{word}{HOSTILE}end"


def assert_clean(text: str, where: str) -> None:
    found = RAW_CONTROL.search(text)
    assert found is None, f"{where}: raw {found.group()!r} in {text!r}"


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


@pytest.fixture
def case(cli: CLI, tmp_path: Path) -> str:
    made = cli(
        "new",
        hostile("title"),
        "--id",
        "t1",
        "--symptom",
        hostile("symptom"),
        "--env",
        f"driver={hostile('env')}",
        "--actor",
        "alice ⟨ops⟩",  # an actor with control characters is refused outright (see
        # test_cli_arguments), so actors never carry them
    )
    assert made.code == 0, made.err
    steps = [
        ["note", "t1", hostile("note"), "--actor", "bob"],
        ["act", "t1", hostile("action"), "--outcome", hostile("outcome")],
        ["question", "add", "t1", hostile("question"), "--id", "q"],
        ["hypothesis", "add", "t1", hostile("hyp-a"), "--under", "q", "--prior", "0.5"],
        ["hypothesis", "add", "t1", hostile("hyp-b"), "--under", "q", "--prior", "0.4"],
    ]
    for words in steps:
        done = cli(*words)
        assert done.code == 0, (words, done.err)
    ids = [h["id"] for h in json.loads(cli("status", "t1", "--json").out)["hypotheses"]]
    first = next(i for i in ids if "catch-all" not in i)
    pasted = tmp_path / "pasted.txt"
    pasted.write_text(f"line one {HOSTILE}\nline two\n", encoding="utf-8")
    more = [
        ["evidence", "add", "t1", "--likelihood", f"{first}=0.9", "--because", hostile("why")],
        [
            "probe",
            "t1",
            "command",
            "--paste",
            str(pasted),
            "--note",
            hostile("remark"),
            "--",
            "echo",
            "x",
        ],
        ["hypothesis", "refine", "t1", first, hostile("refined"), "--because", hostile("b")],
        ["conclude", "t1", hostile("summary"), "--recommend", hostile("rec"), "--lesson", "l"],
    ]
    for words in more:
        done = cli(*words)
        assert done.code in (0, 1), (words, done.err)
    return "t1"


def human_commands(case: str, cli: CLI) -> list[list[str]]:
    ids = [h["id"] for h in json.loads(cli("status", case, "--json").out)["hypotheses"]]
    events = len(json.loads(cli("log", case, "--json").out))
    commands = [
        ["log", case],
        ["status", case],
        ["replay", case],
        ["cases"],
        ["graph", case, "--format", "dot"],
        ["graph", case, "--format", "mermaid"],
        ["graph", case, "--format", "graphml"],
        ["verify", case],
    ]
    commands += [["show", case, str(seq)] for seq in range(1, events + 1)]
    commands += [["hypothesis", "show", case, hid] for hid in ids]
    return commands


def test_no_human_readable_output_carries_a_raw_control_character(cli: CLI, case: str) -> None:
    for words in human_commands(case, cli):
        result = cli(*words)
        assert result.code == 0, (words, result.err)
        assert_clean(result.out, " ".join(words))
        assert_clean(result.err, " ".join(words))
    # the hostile text is there, made visible
    assert "title\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\x7f\\x00\\x0d\\x85end" in cli("log", case).out


def test_the_pasted_output_keeps_its_lines_but_not_its_escapes(cli: CLI, case: str) -> None:
    log = json.loads(cli("log", case, "--json").out)
    run = next(e["seq"] for e in log if e["type"] == "probe.ran")
    shown = cli("show", case, str(run)).out
    assert_clean(shown, "show")
    assert "│ line one \\x1b]0;owned" in shown and "│ line two" in shown


def test_json_outputs_keep_the_exact_strings(cli: CLI, case: str) -> None:
    texts = set()
    for words in (["log", case, "--json"], ["status", case, "--json"], ["cases", "--json"]):
        result = cli(*words)
        assert_clean(result.out, " ".join(words))
        texts |= set(strings(json.loads(result.out)))
    replay = cli("replay", case, "--json")
    assert_clean(replay.out, "replay --json")
    texts |= set(strings(json.loads(replay.out)))
    for word in (
        "title",
        "symptom",
        "env",
        "note",
        "action",
        "outcome",
        "question",
        "hyp-a",
        "why",
        "refined",
        "summary",
        "rec",
    ):
        assert hostile(word) in texts, word


@pytest.mark.parametrize(
    "words",
    [
        ["parse", "command", f"x{ARGUMENT}"],  # casefile: error: cannot read PATH
        ["log", "t1", f"x{HOSTILE}"],  # argparse: unrecognized arguments
        ["status", "t1", f"--x{HOSTILE}"],  # argparse, an unknown option
    ],
    ids=["error-line", "argparse-extra", "argparse-option"],
)
def test_an_error_that_quotes_input_is_escaped(cli: CLI, case: str, words: list[str]) -> None:
    # (errors that quote an id with repr(), e.g. `hypothesis show C ID`, were escaped already)
    result = cli(*words)
    assert result.code != 0, words
    assert_clean(result.err, " ".join(words))
    assert_clean(result.out, " ".join(words))
    assert "\\x1b]0;owned" in result.err and "Traceback" not in result.err


def test_the_escape_form() -> None:
    assert terminal_safe("a\x1b[2Jb\x07\x9b\x7f\n\tc") == "a\\x1b[2Jb\\x07\\x9b\\x7f\n\tc"
    assert terminal_safe("\ud83d") == "\\ud83d"
    plain = "nothing to see here — ünïcödé\n"
    assert terminal_safe(plain) is plain
    text = 'x\x9b\x7f\u2028\u2029\udcff"'
    encoded = json_safe(json.dumps({"k": text}, ensure_ascii=False))
    assert json.loads(encoded) == {"k": text}
    assert_clean(encoded, "json")
    assert "\u2028" not in encoded and "\u2029" not in encoded


def test_a_newline_in_a_log_field_cannot_pose_as_another_row(cli: CLI) -> None:
    assert cli("new", "title\n#9    2026-01-01 00:00  admin     concluded", "--id", "t2").code == 0
    assert cli("note", "t2", "one\n#8    forged row").code == 0
    for words in (["log", "t2"], ["cases"]):
        out = cli(*words).out
        assert not any(line.startswith(("#9", "#8")) for line in out.splitlines()), out
        assert "\\x0a#8" in out or words == ["cases"]
