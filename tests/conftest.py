"""The whole suite: no test reads or writes the real user's data directory (the default
database, the snapshot key): it is a temporary folder for the run, inherited by subprocesses."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_data_directory() -> Iterator[None]:
    saved = os.environ.get("XDG_DATA_HOME")
    with tempfile.TemporaryDirectory(prefix="casefile-test-data-") as folder:
        os.environ["XDG_DATA_HOME"] = folder
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("XDG_DATA_HOME", None)
            else:
                os.environ["XDG_DATA_HOME"] = saved
