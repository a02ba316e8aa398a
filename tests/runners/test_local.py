"""LocalRunner: the contract, plus what only a local subprocess can show."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from casefile.probes.runners import LocalRunner
from tests.runners.contract import RunnerContract
from tests.waiting import process_running, wait_until


class TestLocalRunnerContract(RunnerContract):
    expected_source = "local"

    @pytest.fixture
    def runner(self) -> LocalRunner:
        return LocalRunner()


def test_host_is_localhost() -> None:
    assert LocalRunner().run(["true"]).host == "localhost"


def test_command_not_found_is_data() -> None:
    result = LocalRunner().run(["nvidia-smi-does-not-exist", "-q"])
    assert result.error == "command not found: nvidia-smi-does-not-exist"
    assert result.error_kind == "not_found"
    assert result.exit_status is None
    assert not result.ok


def test_not_executable_is_data(tmp_path: Path) -> None:
    script = tmp_path / "probe.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    result = LocalRunner().run([str(script)])
    assert result.error_kind == "permission"
    assert result.exit_status is None


def test_timeout_kills_the_whole_process_group() -> None:
    start = time.monotonic()
    result = LocalRunner().run(["sh", "-c", "sleep 30 & echo $!; wait"], timeout_s=1)
    assert result.timed_out
    assert time.monotonic() - start < 4
    grandchild = int(result.stdout.split()[0])
    wait_until(
        lambda: not process_running(grandchild),
        what="the backgrounded sleep is gone (it survived the timeout?)",
    )


def test_default_timeout_applies_when_none_given() -> None:
    result = LocalRunner(default_timeout_s=0.5).run(["sleep", "5"])
    assert result.timed_out


def test_env_and_cwd(tmp_path: Path) -> None:
    runner = LocalRunner(env={"PATH": "/usr/bin:/bin", "PROBE": "x"}, cwd=tmp_path)
    result = runner.run(["sh", "-c", 'echo "$PROBE $PWD"'])
    assert result.stdout == f"x {tmp_path}\n"
