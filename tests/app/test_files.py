"""The one reader both front ends use for a file a person names: a FIFO, a device or a file
over the limit costs one line, never a hang; the TUI's transcript reader says the same."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from casefile.app.files import read_regular_file, read_transcript
from casefile.errors import CasefileError


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"$ nvidia-smi\n")
    assert read_regular_file(str(path), 100) == b"$ nvidia-smi\n"


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_what_would_hang_or_never_end_is_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)  # nobody writes: a blocking open would wait forever
        name = str(path)
    elif kind == "device":
        name = "/dev/zero"
    else:
        name = str(tmp_path)
    with pytest.raises(CasefileError) as caught:
        read_transcript(name)
    message = str(caught.value)
    assert "cannot read the transcript" in message and "\n" not in message


def test_a_file_over_the_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big.log"
    path.write_bytes(b"x" * 101)
    with pytest.raises(CasefileError, match="more than 100 bytes"):
        read_regular_file(str(path), 100, label="the transcript big.log")
