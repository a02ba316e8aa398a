"""Pasted output: a result for a command that ran where casefile could not reach."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from casefile.errors import RunnerError
from casefile.probes.runners import from_file, from_stream, from_text

ARGV = ["nvidia-smi", "topo", "-m"]


def test_from_text() -> None:
    result = from_text(ARGV, "GPU0\tX\n", host="gpu-7", taken_at="2024-05-01T12:00:00Z")
    assert result.source == "pasted"
    assert result.argv == tuple(ARGV)
    assert result.host == "gpu-7"
    assert result.stdout == "GPU0\tX\n"
    assert result.exit_status is None
    assert result.duration_s == 0.0
    assert result.started_at == result.finished_at == "2024-05-01T12:00:00.000000Z"
    assert not result.timed_out and result.error is None


def test_offset_times_are_normalised_to_utc() -> None:
    result = from_text(ARGV, "", host="h", taken_at="2024-05-01T14:00:00+02:00")
    assert result.started_at == "2024-05-01T12:00:00.000000Z"
    moment = datetime(2024, 5, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert from_text(ARGV, "", host="h", taken_at=moment).started_at == result.started_at


def test_exit_status_and_stderr_when_known() -> None:
    result = from_text(
        ARGV, "", host="h", taken_at=datetime(2024, 1, 1, tzinfo=UTC), exit_status=9, stderr="boom"
    )
    assert result.exit_status == 9
    assert result.stderr == "boom"
    assert not result.ok


def test_from_file_decodes_bad_bytes(tmp_path: Path) -> None:
    path = tmp_path / "topo.txt"
    path.write_bytes(b"caf\xc3\xa9 \xff\n")
    result = from_file(ARGV, path, host="h", taken_at="2024-05-01T12:00:00Z", exit_status=0)
    assert result.stdout == "café \ufffd\n"
    assert result.ok


def test_from_stream() -> None:
    result = from_stream(ARGV, io.StringIO("line\n"), host="h", taken_at="2024-05-01T12:00:00Z")
    assert result.stdout == "line\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"taken_at": "2024-05-01T12:00:00"}, "time zone"),
        ({"taken_at": datetime(2024, 5, 1)}, "time zone"),
        ({"taken_at": "yesterday"}, "ISO 8601"),
        ({"host": " "}, "host"),
    ],
)
def test_refusals(kwargs: dict[str, object], message: str) -> None:
    options: dict[str, object] = {"host": "h", "taken_at": "2024-05-01T12:00:00Z"} | kwargs
    with pytest.raises(RunnerError, match=message):
        from_text(ARGV, "", **options)  # type: ignore[arg-type]


def test_empty_argv_refused() -> None:
    with pytest.raises(RunnerError, match="which command"):
        from_text([], "", host="h", taken_at="2024-05-01T12:00:00Z")


def test_missing_file_refused(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="cannot read"):
        from_file(ARGV, tmp_path / "nope", host="h", taken_at="2024-05-01T12:00:00Z")
