"""What a front end advises for each SSH failure kind: keyed by ``error_kind``, never read from
the runner's message (which states what happened and advises nothing), and worded without any
front end's flags (each front end names its own control for a remedy's option)."""

from __future__ import annotations

import pytest

from casefile.app.probing import ADVICE, failure_reason
from casefile.probes.runners.result import RunResult

#: messages as the SSH runner writes them (ssh_login.py ``login``, ssh.py ``_through_jump``,
#: ssh_hostkeys.py)
REVOKED = (
    "host key for box (box) is REVOKED, refusing to connect: the server sent ssh-ed25519 "
    "SHA256:abc, which /home/u/.ssh/known_hosts marks @revoked"
)
UNKNOWN = (
    "host key for box (box) is not trusted: ssh-ed25519 SHA256:abc is not in "
    "/home/u/.ssh/known_hosts"
)
CLOSED = (
    "connection closed by 127.0.0.1:2222 during key exchange (the server dropped the connection: "
    "sshd's MaxStartups or access rules, or not an SSH server)"
)
JUMP = "jump host bastion could not connect to 10.0.0.7:22: Connect failed"


def failed(error: str, kind: str) -> RunResult:
    return RunResult(
        argv=("nvidia-smi",),
        host="box",
        exit_status=None,
        stdout="",
        stderr="",
        started_at="2026-01-01T00:00:00.000000Z",
        finished_at="2026-01-01T00:00:00.000000Z",
        duration_s=0.1,
        error=error,
        error_kind=kind,
        source="ssh",
    )


def test_a_revoked_key_is_never_to_be_trusted() -> None:
    reason = str(failure_reason(failed(REVOKED, "host_key_revoked")))
    assert reason.startswith("host key for box (box) is REVOKED")
    assert "@revoked" in reason and "do not trust it" in reason
    assert "check with the host's owner" in reason
    assert reason.count("the host's owner") == 1
    assert "--" not in reason


def test_an_unknown_key_names_the_remedy_each_front_end_words() -> None:
    from casefile.cli.errors import flag_hint
    from casefile.tui.errors import control_hint

    result = failed(UNKNOWN, "host_key_unknown")
    reason = str(failure_reason(result))
    assert reason.startswith(UNKNOWN) and "trust the key" in reason and "--" not in reason
    remedy = ADVICE["host_key_unknown"]
    assert flag_hint(remedy) == " (--trust-host)"
    assert control_hint(remedy) == " (the field “Trust a new host key”)"


@pytest.mark.parametrize(
    ("message", "kind", "advice"),
    [
        (CLOSED, "closed", "MaxStartups"),
        (JUMP, "jump", "AllowTcpForwarding"),
    ],
)
def test_closed_and_jump_failures_say_what_to_check(message: str, kind: str, advice: str) -> None:
    reason = str(failure_reason(failed(message, kind)))
    assert reason.startswith(message)  # the runner's account is kept whole
    assert reason.endswith(ADVICE[kind].does) and advice in reason


def test_the_same_message_under_another_kind_gets_no_advice() -> None:
    assert failure_reason(failed(CLOSED, "ssh")) == CLOSED
    assert "do not trust" not in str(failure_reason(failed(REVOKED, "host_key_changed")))
