"""Runners: where a probe runs. All of them return :class:`RunResult`.

``LocalRunner`` runs on this machine, ``SshRunner`` on other machines over SSH (bind a target
with ``SshRunner.target`` to get a :class:`Runner`), :mod:`.pasted` turns output captured
elsewhere into a result, and :func:`fan_out` runs one command on many runners at once.

Names are imported on first use, so importing a probe or the CLI does not load paramiko.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from casefile.probes.runners.result import RunResult

if TYPE_CHECKING:
    from casefile.probes.runners.fanout import Runner, fan_out, fan_out_as_completed
    from casefile.probes.runners.local import LocalRunner
    from casefile.probes.runners.pasted import from_file, from_stream, from_text
    from casefile.probes.runners.ssh import (
        HostKeyChanged,
        HostKeyInfo,
        HostKeyRevoked,
        HostKeyUnknown,
        SshRunner,
        SshTarget,
        SshTargetRunner,
        resolve_target,
        trust_host,
    )

_HOMES = {
    "Runner": "fanout",
    "fan_out": "fanout",
    "fan_out_as_completed": "fanout",
    "LocalRunner": "local",
    "from_file": "pasted",
    "from_stream": "pasted",
    "from_text": "pasted",
    "HostKeyChanged": "ssh",
    "HostKeyInfo": "ssh",
    "HostKeyRevoked": "ssh",
    "HostKeyUnknown": "ssh",
    "SshRunner": "ssh",
    "SshTarget": "ssh",
    "SshTargetRunner": "ssh",
    "resolve_target": "ssh",
    "trust_host": "ssh",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)


__all__ = [
    "HostKeyChanged",
    "HostKeyInfo",
    "HostKeyRevoked",
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
