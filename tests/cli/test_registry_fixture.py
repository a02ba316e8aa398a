"""The `cli` fixture runs against an injected Registry, never against entry-point discovery."""

from __future__ import annotations

import pytest

from casefile.plugins import Registry
from tests.cli.conftest import CLI, builtin_probes


def test_the_default_registry_does_not_discover(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> Registry:
        raise AssertionError("the cli fixture must not depend on installed plugins")

    monkeypatch.setattr(Registry, "discover", classmethod(refuse))
    case = cli("new", "No discovery", "--playbook", "gpu-throughput")
    assert case.code == 0, case.err
    assert cli("probe", case.out.strip(), "command", "--", "printf", "ok").code == 0


class TestAnInjectedRegistry:
    @pytest.fixture
    def cli_registry(self) -> Registry:
        """Only the generic probe and no playbook, whatever is installed."""
        return Registry.of(probes=[p for p in builtin_probes() if p.name == "command"])

    def test_commands_see_only_the_injected_plugins(self, cli: CLI) -> None:
        case = cli("new", "Injected").out.strip()
        assert cli("probe", case, "command", "--", "printf", "ok").code == 0
        missing = cli("probe", case, "lspci", "--", "lspci")
        assert missing.code == 1 and "no probe 'lspci' (installed: command)" in missing.err
        nobook = cli("playbook", "open", case, "gpu-throughput")
        assert nobook.code == 1 and "no playbook 'gpu-throughput' (installed: none)" in nobook.err
