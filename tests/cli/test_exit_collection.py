"""The cyclic collector around a command: paused for a one-shot command, with no collection
of its whole heap when the process is about to end; on throughout a front end or a server."""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from casefile.cli import serve_commands, tui_commands
from casefile.cli.main import main
from tests.cli.conftest import CLI

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "glm5-pcie-pivot"


@pytest.fixture
def reference(cli: CLI, tmp_path: Path) -> str:
    case_dir = tmp_path / "glm5"
    shutil.copytree(ROOT / "casefile" / "reference" / REFERENCE, case_dir)
    assert cli("import", str(case_dir)).code == 0
    return REFERENCE


#: a fresh interpreter runs one command through main (``exiting`` as given), then allocates
#: as the interpreter's own way out would; it prints the most objects one collection walked
#: (its generation and the younger ones) from the moment the command began
_ONE_COMMAND = """
import gc, sys
from casefile.cli import main as cli

walked = [0]
began = []

def watch(phase, info):
    if phase == "start" and began:
        generations = range(info["generation"] + 1)
        walked.append(sum(len(gc.get_objects(generation=g)) for g in generations))

def run(args, _run=cli._run):
    began.append(True)
    return _run(args)

cli._run = run
gc.callbacks.append(watch)
code = cli.main(sys.argv[2:], exiting=sys.argv[1] == "exiting")
kept = [[n] for n in range(5 * gc.get_threshold()[0])]
del kept
gc.callbacks.remove(watch)
print(code, max(walked))
"""


def _most_walked(exiting: bool, *words: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", _ONE_COMMAND, "exiting" if exiting else "goes-on", *words]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    code, walked = done.stdout.split()[-2:]
    assert code == "0", done.stderr
    return int(walked)


def test_a_one_shot_command_leaves_nothing_to_collect_when_the_process_ends(
    reference: str,
) -> None:
    # in a process that goes on, the heap the command built (the modules it imported, its
    # fold) is collected once the collector is back on: that collection walks all of it
    goes_on = _most_walked(False, "status", reference)
    # in the executable, that heap is frozen instead: no collection walks it
    exiting = _most_walked(True, "status", reference)
    assert exiting * 10 < goes_on, (exiting, goes_on)


def test_the_collector_is_on_again_after_a_command(reference: str, cli: CLI) -> None:
    try:
        assert main(["status", reference], exiting=True) == 0
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # what `exiting` froze is this test process's heap


def test_front_ends_and_servers_collect_cycles_while_they_run(
    reference: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    collecting: dict[str, bool] = {}

    def seen(command: str) -> object:
        def handler(args: argparse.Namespace) -> int:
            collecting[command] = gc.isenabled()
            return 0

        return handler

    monkeypatch.setattr(tui_commands, "cmd_tui", seen("tui"))
    monkeypatch.setattr(serve_commands, "cmd_serve", seen("serve"))
    assert main(["tui"]) == 0
    assert main(["serve", reference]) == 0
    assert collecting == {"tui": True, "serve": True}


def test_a_one_shot_command_runs_with_the_collector_paused(
    reference: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from casefile.cli import reasoning_commands

    seen: list[bool] = []
    status = reasoning_commands.cmd_status

    def watched(args: argparse.Namespace) -> int:
        seen.append(gc.isenabled())
        return status(args)

    monkeypatch.setattr(reasoning_commands, "cmd_status", watched)
    assert main(["status", reference]) == 0
    assert seen == [False]
    assert gc.isenabled()
    capsys.readouterr()
