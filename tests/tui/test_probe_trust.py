"""The probe dialog offers the remedy of an unknown host key, trusting it, as the CLI's
``--trust-host`` does: the request trusts, and the echoed command line says so."""

from __future__ import annotations

import shlex

import pytest

from casefile.app.probing import Ssh
from casefile.tui.dialogs.probe import build_probe


def test_trusting_a_new_host_key_goes_into_the_request_and_the_command() -> None:
    built = build_probe(
        {"probe": "command", "hosts": "gpu-1 gpu-2", "trust": "yes"}, ["command"], "c1"
    )
    assert isinstance(built.request.where, Ssh) and built.request.where.trust_host
    assert "--trust-host" in shlex.split(built.command)
    plain = build_probe({"probe": "command", "hosts": "gpu-1"}, ["command"], "c1")
    assert isinstance(plain.request.where, Ssh) and not plain.request.where.trust_host
    assert "--trust-host" not in plain.command


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"probe": "command", "trust": "yes"}, "goes with SSH hosts"),
        ({"probe": "command", "hosts": "gpu-1", "trust": "maybe"}, "yes or no"),
    ],
)
def test_trust_is_refused_where_it_means_nothing(values: dict[str, str], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        build_probe(values, ["command"], "c1")
