"""Fixtures for the runner tests: real OpenSSH servers on loopback, and a silent listener."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]
if str(_REPO) not in sys.path:  # so the benchmark and the tests share one sshd helper
    sys.path.insert(0, str(_REPO))

from casefile.probes.runners import SshRunner  # noqa: E402
from tests.runners.sshd import (  # noqa: E402
    SSHD,
    SilentListener,
    SshdCluster,
    make_runner,
    start_cluster,
)

SSHD_COUNT = 4


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshdCluster]:
    """Four sshd processes on 127.0.0.1, one shared host key, one authorized user key."""
    if not SSHD.exists():
        message = f"{SSHD} is not installed (apt-get install openssh-server)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the SSH tests: {message}")
        pytest.skip(message)
    cluster = start_cluster(tmp_path_factory.mktemp("sshd"), SSHD_COUNT)
    yield cluster
    cluster.stop()


@pytest.fixture
def ssh_runner(sshd: SshdCluster) -> Iterator[SshRunner]:
    runner = make_runner(sshd)
    yield runner
    runner.close()


@pytest.fixture
def silent_listener() -> Iterator[SilentListener]:
    listener = SilentListener()
    yield listener
    listener.close()
