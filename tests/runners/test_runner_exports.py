"""The runners package exports every host-key error the SSH runner raises, lazily like the rest."""

from __future__ import annotations

import casefile.probes.runners as runners
from casefile.probes.runners.ssh_hostkeys import HostKeyChanged, HostKeyRevoked, HostKeyUnknown


def test_every_host_key_error_is_exported_from_the_package() -> None:
    for error in (HostKeyChanged, HostKeyRevoked, HostKeyUnknown):
        assert error.__name__ in runners.__all__
        assert getattr(runners, error.__name__) is error


def test_every_exported_name_resolves() -> None:
    for name in runners.__all__:
        assert getattr(runners, name) is not None
