"""No EOF races a command's end: many short commands on one shared connection all report their
exit status, and one that reads stdin ends at once (stdin is /dev/null on the remote side).

Before, each run sent EOF after its exec request; paramiko builds that message under the
channel's lock but sends it after, so for a command that ended at once the CLOSE answering the
server's could leave first and the EOF arrive for a channel the server had freed: OpenSSH then
dropped the whole connection ("ieof packet referred to nonexistent channel"), and every other
command on it ended without an exit status. On a loaded machine 4 runs in 26 of the
eight-command fan-out failed that way."""

from __future__ import annotations

from casefile.probes.runners.ssh import SshRunner
from casefile.probes.runners.ssh_channel import remote_command
from tests.runners.sshd import SshdCluster


def test_the_remote_command_reads_stdin_from_dev_null() -> None:
    assert remote_command(["cat", "$(touch /tmp/x)"]) == "cat '$(touch /tmp/x)' </dev/null"


def test_a_command_that_reads_stdin_ends_at_once(ssh_runner: SshRunner, sshd: SshdCluster) -> None:
    result = ssh_runner.run(sshd.target(0), ["cat"], timeout_s=60.0)
    assert result.ok and result.exit_status == 0 and result.stdout == ""


def test_many_short_commands_on_one_connection_all_report_their_status(
    ssh_runner: SshRunner, sshd: SshdCluster
) -> None:
    ssh_runner.connect_timeout_s = 30.0
    for _ in range(5):
        results = ssh_runner.fan_out([sshd.target(1)] * 16, ["true"])
        assert all(r.ok and r.exit_status == 0 for r in results), [
            (r.error_kind, r.error) for r in results if not r.ok
        ]
