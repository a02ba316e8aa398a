"""The behaviour every runner promises, written once and subclassed per runner (STYLE.md #2).

A subclass provides the ``runner`` fixture; pytest collects the subclasses (``Test…``) only.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from casefile.probes.runners import Runner, RunResult

HOSTILE_ARGUMENTS = [
    "; rm -rf /tmp/x",
    "$(touch {pwned})",
    "`touch {pwned}`",
    "a b  c",
    'it\'s "quoted"',
    "back\\slash",
    "*",
    "-n",
    "",
    "tab\there\nnewline",
    "ünïcødé ✓",
]


class RunnerContract:
    """Subclass and define a ``runner`` fixture returning the runner under test."""

    expected_source: str

    def test_runs_a_command_and_captures_stdout(self, runner: Runner) -> None:
        result = runner.run(["echo", "hello"])
        assert result.ok, result
        assert result.exit_status == 0
        assert result.stdout == "hello\n"
        assert result.stderr == ""
        assert result.argv == ("echo", "hello")
        assert result.host == runner.host
        assert result.source == self.expected_source
        assert result.error is None and result.error_kind is None

    def test_nonzero_exit_status_and_stderr(self, runner: Runner) -> None:
        result = runner.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
        assert result.exit_status == 3
        assert result.stdout == "out\n"
        assert result.stderr == "err\n"
        assert result.error is None
        assert not result.ok

    def test_times_are_iso_utc_and_ordered(self, runner: Runner) -> None:
        result = runner.run(["true"])
        started = datetime.fromisoformat(result.started_at)
        finished = datetime.fromisoformat(result.finished_at)
        assert result.started_at.endswith("Z")
        assert started <= finished
        assert result.duration_s >= 0

    def test_every_argument_arrives_literally(self, runner: Runner, tmp_path: Path) -> None:
        pwned = tmp_path / "pwned"
        args = [a.format(pwned=pwned) for a in HOSTILE_ARGUMENTS]
        result = runner.run(["printf", "%s\\0", *args])
        assert result.ok, result
        assert result.stdout.split("\0")[:-1] == args
        assert not pwned.exists()

    def test_output_is_utf8_with_bad_bytes_replaced(self, runner: Runner) -> None:
        result = runner.run(["printf", "caf\\303\\251 \\377\\n"])
        assert result.stdout == "café \ufffd\n"

    def test_timeout_returns_partial_output(self, runner: Runner) -> None:
        result = runner.run(["sh", "-c", "echo started; exec sleep 30"], timeout_s=1)
        assert result.timed_out
        assert result.exit_status is None
        assert result.stdout == "started\n"
        assert 0.9 <= result.duration_s < 3
        assert not result.ok

    def test_large_interleaved_output_does_not_deadlock(self, runner: Runner) -> None:
        # 3 MB on stderr before any stdout: more than one SSH window or pipe buffer.
        script = (
            "head -c 3000000 /dev/zero | tr '\\0' e >&2; head -c 1000000 /dev/zero | tr '\\0' o"
        )
        result = runner.run(["sh", "-c", script], timeout_s=30)
        assert result.ok, result.error
        assert len(result.stderr) == 3_000_000
        assert len(result.stdout) == 1_000_000

    def test_stdin_is_closed(self, runner: Runner) -> None:
        result = runner.run(["cat"], timeout_s=5)
        assert result.ok
        assert result.stdout == ""
        assert not result.timed_out

    def test_empty_argv_is_an_error_result(self, runner: Runner) -> None:
        result = runner.run([])
        assert result.error is not None
        assert result.exit_status is None

    def test_result_is_a_run_result(self, runner: Runner) -> None:
        assert isinstance(runner.run(["true"]), RunResult)
        assert isinstance(runner, Runner)
