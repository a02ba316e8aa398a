"""Colour, the pager and terminals that are not UTF-8, tried in a real pseudo-terminal.

casefile runs as a subprocess whose stdin, stdout and stderr are the slave end of an
``os.openpty()`` pair (so ``isatty()`` is true, as at a real terminal); the test reads what it
wrote from the master end. The pager is a small script that records its argument list, its
environment's ``LESS`` and what it was sent, then prints it, except in the one test that runs
the real ``less -FRX``.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.cli.conftest import CLI
from tests.signals import default_signals

ROOT = Path(__file__).resolve().parents[2]
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

FAKE_PAGER = """\
import json, os, sys
text = sys.stdin.read()
with open(sys.argv[1], "w", encoding="utf-8") as record:
    json.dump({"argv": sys.argv[2:], "less": os.environ.get("LESS"), "text": text}, record)
sys.stdout.write(text)
"""


@pytest.fixture
def case(cli: CLI) -> str:
    """A case whose status has a leader, a warning-free tree and some length."""
    case_id = cli("new", "Slow decode", "--id", "cp").out.strip()
    cli("question", "add", case_id, "What limits decode?", "--id", "q")
    cli("hypothesis", "add", case_id, "PCIe-bound", "--under", "q", "--prior", "0.5", "--id", "p")
    cli("hypothesis", "add", case_id, "compute", "--under", "q", "--prior", "0.3", "--id", "c")
    cli("evidence", "add", case_id, "--likelihood", "p=0.9", "--likelihood", "c=0.05",
        "--otherwise", "0.2", "--because", "bandwidth at the PCIe limit")  # fmt: skip
    return case_id


@pytest.fixture
def pager_record(tmp_path: Path) -> Path:
    return tmp_path / "pager.json"


@pytest.fixture
def env(tmp_path: Path, pager_record: Path) -> dict[str, str]:
    """The subprocess's environment: the cli fixture's database, a clean config directory, a
    colour terminal, the recording pager, and nothing that turns colour off."""
    script = tmp_path / "fake_pager.py"
    script.write_text(FAKE_PAGER)
    chosen = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "CASEFILE_DB": os.environ["CASEFILE_DB"],
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "CASEFILE_PAGER": shlex.join([sys.executable, str(script), str(pager_record)]),
        "CASEFILE_ACTOR": "tester",
        "TZ": "UTC",
    }
    return chosen


def casefile(*words: str) -> list[str]:
    return [sys.executable, "-m", "casefile", *words]


def run_in_pty(
    argv: list[str], env: dict[str, str], *, until: bytes | None = None, timeout: float = 30
) -> tuple[int, str]:
    """Run ``argv`` on a pseudo-terminal (80×24); its exit status and everything it wrote.
    With ``until``, Ctrl-C is sent (to its process group) once that text has appeared."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        preexec_fn=default_signals,  # Ctrl-C as a terminal's foreground job gets it
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    interrupted = False
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every writer has closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            if until is not None and not interrupted and until in b"".join(chunks):
                os.killpg(process.pid, signal.SIGINT)
                interrupted = True
            if process.poll() is not None and not ready:
                break
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        os.close(master)
    # the terminal turns \n into \r\n
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def recorded(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_status_on_a_terminal_is_coloured_and_paged(
    case: str, env: dict[str, str], pager_record: Path
) -> None:
    code, shown = run_in_pty(casefile("status", case), env)
    assert code == 0, shown
    assert "  leader: \x1b[1;32mp\x1b[0m — PCIe-bound" in shown
    sent = recorded(pager_record)
    assert sent["less"] == "FRX"  # set for the pager when LESS is not
    assert isinstance(sent["text"], str) and "\x1b[1;32mp\x1b[0m" in sent["text"]
    # colour only underlines: without it the text is the same, word for word
    plain = subprocess.run(
        casefile("status", case), env=env, capture_output=True, text=True, check=True
    ).stdout
    assert ESCAPE.sub("", sent["text"]) == plain
    assert ESCAPE.search(plain) is None


def test_the_replay_colours_pivots_and_warnings(cli: CLI, env: dict[str, str]) -> None:
    case_id = cli("new", "Pivot", "--id", "pv").out.strip()
    cli("question", "add", case_id, "Why?", "--id", "q")
    cli("hypothesis", "add", case_id, "a", "--under", "q", "--prior", "0.6", "--id", "a")
    cli("hypothesis", "add", case_id, "b", "--under", "q", "--prior", "0.3", "--id", "b")
    cli("evidence", "add", case_id, "--likelihood", "a=0.01", "--likelihood", "b=0.99",
        "--because", "b it is")  # fmt: skip
    out = subprocess.run(
        casefile("replay", case_id, "--color", "always"),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"\x1b\[1;35m⚑ PIVOT \[q\].*\x1b\[0m", out), out
    assert "leads at the end: \x1b[1;32mb\x1b[0m" in out


@pytest.mark.parametrize(
    ("extra_env", "flag", "config", "coloured"),
    [
        ({"NO_COLOR": "1"}, None, None, False),
        ({"NO_COLOR": ""}, None, None, True),  # set but empty: colour stays on
        ({}, "never", None, False),
        ({"NO_COLOR": "1"}, "always", None, True),  # the flag beats the environment
        ({}, None, "never", False),
        ({"NO_COLOR": "1"}, None, "always", False),  # the environment beats the config file
        ({"TERM": "dumb"}, None, None, False),
    ],
)
def test_when_a_terminal_gets_colour(
    case: str,
    env: dict[str, str],
    tmp_path: Path,
    extra_env: dict[str, str],
    flag: str | None,
    config: str | None,
    coloured: bool,
) -> None:
    if config is not None:
        path = tmp_path / "xdg" / "casefile" / "config.toml"
        path.parent.mkdir(parents=True)
        path.write_text(f'color = "{config}"\n')
    words = ["status", case, *(["--color", flag] if flag else []), "--no-pager"]
    code, shown = run_in_pty(casefile(*words), {**env, **extra_env})
    assert code == 0, shown
    assert (ESCAPE.search(shown) is not None) == coloured, shown
    assert "leader: " in shown


def test_an_error_on_a_terminal_is_red_and_still_one_line(cli: CLI, env: dict[str, str]) -> None:
    code, shown = run_in_pty(casefile("show", "no-such-case", "1"), env)
    assert code == 1
    (line,) = shown.strip().splitlines()
    assert line.startswith("\x1b[1;31mcasefile: error:\x1b[0m ")
    code, shown = run_in_pty(casefile("show", "no-such-case", "1"), {**env, "NO_COLOR": "1"})
    assert shown.strip().startswith("casefile: error: ")


def test_colour_in_a_pipe_only_when_asked(case: str, env: dict[str, str]) -> None:
    def out(*words: str) -> str:
        return subprocess.run(
            casefile(*words), env=env, capture_output=True, text=True, check=True
        ).stdout

    assert ESCAPE.search(out("status", case)) is None
    assert "\x1b[1;32mp\x1b[0m" in out("status", case, "--color", "always")
    assert "\x1b[1;32mp\x1b[0m" in out("--color", "always", "status", case)
    # JSON is never coloured
    assert ESCAPE.search(out("status", case, "--json", "--color", "always")) is None


def test_no_pager_when_piped_or_asked_not_to(
    case: str, env: dict[str, str], pager_record: Path
) -> None:
    subprocess.run(casefile("status", case), env=env, capture_output=True, check=True)
    assert not pager_record.exists()
    code, shown = run_in_pty(casefile("status", case, "--no-pager"), env)
    assert code == 0 and "leader: " in shown
    code, shown = run_in_pty(casefile("--no-pager", "log", case), env)
    assert code == 0 and "Case cp: Slow decode" in shown
    assert not pager_record.exists()
    # an empty pager setting, or cat, means none too
    for pager in ("", "cat"):
        code, shown = run_in_pty(casefile("log", case), {**env, "CASEFILE_PAGER": pager})
        assert code == 0 and "Case cp: Slow decode" in shown
    assert not pager_record.exists()


def test_a_follower_is_never_paged(case: str, env: dict[str, str], pager_record: Path) -> None:
    code, shown = run_in_pty(casefile("log", case, "--follow"), env, until=b"evidence")
    assert code == 0, shown
    assert re.search(r"^#5    \d{4}-\d\d-\d\d \d\d:\d\d UTC  \S+ +evidence ", shown, re.M), shown
    assert not pager_record.exists()


def test_the_pager_command_is_split_not_run_by_a_shell(
    case: str, env: dict[str, str], pager_record: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "shell-ran"
    pager = env["CASEFILE_PAGER"] + f" 'two words' ';' touch {shlex.quote(str(marker))}"
    code, _ = run_in_pty(casefile("status", case), {**env, "CASEFILE_PAGER": pager})
    assert code == 0
    assert recorded(pager_record)["argv"] == ["two words", ";", "touch", str(marker)]
    assert not marker.exists()
    # $PAGER is used when CASEFILE_PAGER is not set, and LESS as the user set it is kept
    pager_record.unlink()
    env_pager = {k: v for k, v in env.items() if k != "CASEFILE_PAGER"}
    env_pager |= {"PAGER": env["CASEFILE_PAGER"], "LESS": "-S"}
    code, _ = run_in_pty(casefile("cases"), env_pager)
    assert code == 0 and recorded(pager_record)["less"] == "-S"


def test_quitting_the_pager_early_ends_the_command_quietly(
    cli: CLI, case: str, env: dict[str, str]
) -> None:
    """The reader presses q with most of a long log unread: casefile's writes to the closed
    pipe are dropped, and it exits 0 with nothing on the terminal about a broken pipe."""
    cli("note", case, "x" * 300_000)  # far more than a pipe holds
    quitter = shlex.join([sys.executable, "-c", "import sys; sys.stdin.buffer.read(100)"])
    code, shown = run_in_pty(casefile("log", case), {**env, "CASEFILE_PAGER": quitter})
    assert code == 0, shown
    assert "Traceback" not in shown and "BrokenPipe" not in shown and "Broken pipe" not in shown
    assert shown == ""


def test_a_pager_that_cannot_start_is_a_warning_and_the_text_is_printed(
    case: str, env: dict[str, str]
) -> None:
    missing = {**env, "CASEFILE_PAGER": "/nonexistent/pager -x"}
    code, shown = run_in_pty(casefile("status", case), missing)
    assert code == 0, shown
    assert "casefile: warning: cannot start the pager '/nonexistent/pager'" in shown
    assert "leader: " in shown


def test_an_unsplittable_pager_is_one_line(case: str, env: dict[str, str]) -> None:
    code, shown = run_in_pty(casefile("status", case), {**env, "CASEFILE_PAGER": "less 'oops"})
    assert code == 1
    (line,) = ESCAPE.sub("", shown).strip().splitlines()
    assert (
        line
        == 'casefile: error: cannot split the pager command "less \'oops": No closing quotation'
    )


@pytest.mark.skipif(shutil.which("less") is None, reason="less is not installed")
def test_the_real_less_shows_short_output_and_quits(case: str, env: dict[str, str]) -> None:
    real = {k: v for k, v in env.items() if k != "CASEFILE_PAGER"}
    code, shown = run_in_pty(casefile("status", case), real)
    assert code == 0, shown
    assert "leader: " in ESCAPE.sub("", shown) and "PCIe-bound" in shown


#: a C locale, as a minimal container or cron has it, with Python's own UTF-8 rescue turned off
C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


@pytest.mark.parametrize(
    ("encoding", "settings"),
    [
        ("ascii", {"PYTHONIOENCODING": "ascii"}),
        ("latin-1", {"PYTHONIOENCODING": "latin-1"}),
        ("ascii", C_LOCALE),
    ],
)
def test_a_terminal_that_is_not_utf8_gets_ascii_glyphs_not_a_crash(
    cli: CLI, env: dict[str, str], encoding: str, settings: dict[str, str]
) -> None:
    case_id = cli("new", "Décodage — lent ✓ 𝄞", "--id", "nu").out.strip()
    cli("question", "add", case_id, "Why?", "--id", "q")
    cli("hypothesis", "add", case_id, "PCIe — ünï 字", "--under", "q", "--prior", "0.5",
        "--id", "p")  # fmt: skip
    cli("evidence", "add", case_id, "--likelihood", "p=0.9", "--because", "x")
    run_env = {**env, **settings}
    for words in (["status", case_id], ["replay", case_id], ["log", case_id], ["probe", "-h"]):
        result = subprocess.run(casefile(*words), env=run_env, capture_output=True)
        assert result.returncode == 0, result.stderr.decode(encoding, "replace")
        assert b"Traceback" not in result.stderr
        result.stdout.decode(encoding)  # encoded as the terminal can show
    status = subprocess.run(
        casefile("status", case_id), env=run_env, capture_output=True, check=True
    ).stdout.decode(encoding)
    assert "  leader: p - PCIe - " in status
    assert "#############......." in status  # the bar, in ASCII
    # JSON stays exact: the same value, with \\u escapes where the encoding lacks a character
    as_json = subprocess.run(
        casefile("status", case_id, "--json"), env=run_env, capture_output=True, check=True
    ).stdout
    assert as_json.isascii()
    assert json.loads(as_json)["case"]["title"] == "Décodage — lent ✓ 𝄞"
    # an error naming such text does not crash either
    error = subprocess.run(casefile("show", case_id, "99"), env=run_env, capture_output=True)
    assert error.returncode == 1 and b"Traceback" not in error.stderr
