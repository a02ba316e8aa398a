"""Runners: where a probe runs. All of them return :class:`RunResult`.

``LocalRunner`` runs on this machine, ``SshRunner`` on other machines over SSH (bind a target
with ``SshRunner.target`` to get a :class:`Runner`), :mod:`.pasted` turns output captured
elsewhere into a result, and :func:`fan_out` runs one command on many runners at once.
"""

from casefile.probes.runners.fanout import Runner, fan_out, fan_out_as_completed
from casefile.probes.runners.local import LocalRunner
from casefile.probes.runners.pasted import from_file, from_stream, from_text
from casefile.probes.runners.result import RunResult
from casefile.probes.runners.ssh import (
    HostKeyChanged,
    HostKeyInfo,
    HostKeyUnknown,
    SshRunner,
    SshTarget,
    SshTargetRunner,
    resolve_target,
    trust_host,
)

__all__ = [
    "HostKeyChanged",
    "HostKeyInfo",
    "HostKeyUnknown",
    "LocalRunner",
    "RunResult",
    "Runner",
    "SshRunner",
    "SshTarget",
    "SshTargetRunner",
    "fan_out",
    "fan_out_as_completed",
    "from_file",
    "from_stream",
    "from_text",
    "resolve_target",
    "trust_host",
]
