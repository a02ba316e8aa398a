"""SSH probes from the TUI against a real sshd on loopback: a healthy host is recorded with its
facts, and an unknown (refused) host and an unreachable (silent) one are recorded as failed
runs that say why, beside it, in one fan-out; nothing else is lost."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from casefile.app.probing import SshOptions
from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from casefile.tui import make_app
from tests.cli.conftest import builtin_registry
from tests.runners.conftest import sshd  # noqa: F401  (the session's loopback sshd)
from tests.runners.sshd import SshdCluster
from tests.tui.helpers import open_form, recorded, settle
from tests.tui.test_actions import events_after, fill

pytestmark = pytest.mark.ssh


@pytest.fixture(autouse=True)
def no_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    # only the alias's IdentityFile may log in: the developer's agent must not be consulted
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never says a word (an unreachable host)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    server.close()


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = int(probe.getsockname()[1])
    probe.close()  # nothing listens there now: connection refused
    return port


async def test_an_ssh_fan_out_records_every_host_as_it_lands(
    db_url: str,
    tmp_path: Path,
    sshd: SshdCluster,  # noqa: F811
    silent_port: int,
) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(
        sshd.ssh_config_path.read_text()
        + f"Host refusing\n    HostName 127.0.0.1\n    Port {closed_port()}\n"
        + f"Host silent\n    HostName 127.0.0.1\n    Port {silent_port}\n"
    )
    ssh = SshOptions(ssh_config=config, known_hosts=sshd.known_hosts_path, connect_timeout_s=2)
    service = CaseService(SqlEventStore(db_url), builtin_registry())
    app = make_app(
        service, "glm5-pcie-pivot", database_label="sqlite:///tui.db", ssh_hosts=list, ssh=ssh
    )
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        hosts = f"{sshd.alias(0)} refusing silent"
        fill(dialog, {"probe": "command", "argv": "echo hello", "hosts": hosts})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app), timeout=60)
    runs = [p for kind, p, _a in events_after(db_url, 81) if kind == "probe.ran"]
    by_host = {run["host"]: run for run in runs}
    assert set(by_host) == {sshd.alias(0), "refusing", "silent"}
    assert by_host[sshd.alias(0)].get("exit_status") == 0
    assert by_host["refusing"].get("error") and by_host["silent"].get("error")
    assert by_host["silent"].get("error_kind") != by_host["refusing"].get("error_kind")


async def test_output_that_does_not_parse_is_kept_raw_as_a_run(db_url: str) -> None:
    from tests.tui.conftest import build_app

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(dialog, {"probe": "nvidia-smi-topo", "paste": "this is not a topology matrix\n"})
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    appended = events_after(db_url, 81)
    kinds = [kind for kind, _p, _a in appended]
    assert kinds[:2] == ["probe.ran", "observation.recorded"]
    observation = appended[1][1]
    assert observation.get("parsed") is False or observation.get("problems")
