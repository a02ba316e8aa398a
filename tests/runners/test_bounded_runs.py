"""Local runs that print without end, print bytes that are not UTF-8, or are cancelled.

On main, ``yes`` under a 3 s timeout grew casefile to 5.4 GB before anything was stored; the
capture now keeps the head and the tail of each stream and counts the rest.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from casefile.probes.runners import LocalRunner
from casefile.probes.runners.cancel import CancelToken
from casefile.probes.runners.capture import DEFAULT_CAPTURE_BYTES, Capture
from tests.runners.peak_rss import measure
from tests.waiting import process_running, wait_until

PEAK_RSS_LIMIT_MB = 512


# --- the capture on its own -------------------------------------------------------------------


def test_a_stream_within_the_limit_is_kept_whole() -> None:
    capture = Capture("stdout", 10)
    for piece in (b"abc", b"def", b"ghij"):
        capture.feed(piece)
    assert capture.value() == b"abcdefghij"
    assert capture.truncation() is None
    assert capture.text() == "abcdefghij"


def test_a_longer_stream_keeps_its_head_and_tail_and_counts_the_rest() -> None:
    capture = Capture("stderr", 10)
    data = bytes(range(256)) * 40  # 10,240 bytes in uneven pieces
    for start in range(0, len(data), 7):
        capture.feed(data[start : start + 7])
    assert capture.value() == data[:5] + data[-5:]
    cut = capture.truncation()
    assert cut is not None
    assert (cut.stream, cut.total_bytes, cut.head_bytes, cut.tail_bytes) == ("stderr", 10240, 5, 5)
    assert cut.omitted_bytes == 10230
    assert "10230 bytes of stderr omitted" in capture.text()
    assert "printed 10240 bytes" in cut.describe()


def test_the_text_marks_the_cut_on_a_line_of_its_own() -> None:
    capture = Capture("stdout", 8)
    capture.feed(b"head" + b"x" * 100 + b"tail")
    head, marker, tail = capture.text().split("\n")
    assert (head, tail) == ("head", "tail")
    assert marker == "[casefile: 100 bytes of stdout omitted]"


# --- local runs ---------------------------------------------------------------------------------


def test_bytes_that_are_not_utf8_are_kept_exactly() -> None:
    result = LocalRunner().run(["printf", "caf\\303\\251 \\377\\376\\n"])
    assert result.ok
    assert result.stdout_bytes == b"caf\xc3\xa9 \xff\xfe\n"
    assert result.raw_stdout() == b"caf\xc3\xa9 \xff\xfe\n"
    assert result.stdout == "café \ufffd\ufffd\n"  # what parsers read


def test_a_flood_is_cut_to_head_and_tail_and_still_ends_at_its_timeout() -> None:
    script = "printf FIRST; head -c 20000000 /dev/zero; printf LAST"
    result = LocalRunner(capture_bytes=1000).run(["sh", "-c", script], timeout_s=30)
    assert result.ok, result.error
    assert result.stdout_bytes is not None and len(result.stdout_bytes) == 1000
    assert result.stdout_bytes.startswith(b"FIRST") and result.stdout_bytes.endswith(b"LAST")
    (cut,) = result.truncated
    assert (cut.stream, cut.total_bytes, cut.head_bytes, cut.tail_bytes) == (
        "stdout",
        20_000_009,
        500,
        500,
    )

    start = time.monotonic()
    endless = LocalRunner().run(["yes"], timeout_s=1)
    assert endless.timed_out
    assert time.monotonic() - start < 4
    assert endless.stdout_bytes is not None and len(endless.stdout_bytes) == DEFAULT_CAPTURE_BYTES
    assert endless.truncated and endless.truncated[0].total_bytes > DEFAULT_CAPTURE_BYTES


def test_peak_memory_of_a_runaway_local_probe_stays_bounded() -> None:
    measured = measure({"where": "local", "argv": ["yes"], "timeout_s": 3})
    assert measured["timed_out"] is True
    assert measured["stdout_kept"] == DEFAULT_CAPTURE_BYTES
    assert measured["peak_rss_mb"] < PEAK_RSS_LIMIT_MB, measured  # type: ignore[operator]


# --- cancelling -------------------------------------------------------------------------------


def test_a_cancelled_local_run_stops_at_once_keeping_its_output(tmp_path: Path) -> None:
    token = CancelToken()
    pid_file = tmp_path / "pid"
    cancelled_at: list[float] = []

    def cancel_once_it_runs() -> None:  # it has printed, and its child is running
        wait_until(lambda: pid_file.exists() and pid_file.read_text().endswith("\n"))
        cancelled_at.append(time.monotonic())
        token.cancel("test")

    threading.Thread(target=cancel_once_it_runs, daemon=True).start()
    script = f"echo started; sleep 30 & echo $! > {pid_file}; wait"
    result = LocalRunner(cancel=token).run(["sh", "-c", script], timeout_s=60)
    assert cancelled_at, "the command never wrote its child's pid"
    assert time.monotonic() - cancelled_at[0] < 1.0  # not the 30 s of the sleep
    assert result.cancelled and result.error_kind == "cancelled"
    assert result.error is not None and "cancelled (test)" in result.error
    assert result.stdout == "started\n"
    assert not result.ok and not result.timed_out
    grandchild = int(pid_file.read_text())
    wait_until(
        lambda: not process_running(grandchild),
        what="the cancelled probe's child is gone (it survived?)",
    )


def test_a_runner_cancelled_before_it_starts_runs_nothing(tmp_path: Path) -> None:
    token = CancelToken()
    token.cancel()
    marker = tmp_path / "ran"
    result = LocalRunner(cancel=token).run(["touch", str(marker)])
    assert result.cancelled
    assert not marker.exists()


def test_pasted_bytes_are_kept_exactly() -> None:
    from casefile.probes.runners import from_text

    result = from_text(
        ["nvidia-smi"], b"caf\xc3\xa9 \xff\n", host="gpu-1", taken_at="2026-01-01T00:00:00Z"
    )
    assert result.raw_stdout() == b"caf\xc3\xa9 \xff\n"
    assert result.stdout == "café \ufffd\n"
    typed = from_text(["x"], "typed", host="gpu-1", taken_at="2026-01-01T00:00:00Z")
    assert typed.stdout_bytes is None and typed.raw_stdout() == b"typed"


def test_the_measured_peak_is_the_childs_own_not_the_test_processs() -> None:
    """Linux carries a parent's peak resident size over fork and exec into the child's
    ``ru_maxrss``: a long pytest run grown to 512 MB once made both runaway tests above read
    512.4 MB, the test process's size, not the probe's. The child reads its own high-water
    mark; a test process grown by 300 MB leaves it where it was."""
    ballast = bytearray(300 * 1024 * 1024)
    for at in range(0, len(ballast), 4096):
        ballast[at] = 1  # touched, so resident
    measured = measure({"where": "local", "argv": ["true"], "timeout_s": 3})
    del ballast
    assert measured["peak_rss_mb"] < 150, measured  # type: ignore[operator]
