from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from casefile.app import opening
from casefile.cli.main import main
from casefile.plugins import Registry
from casefile.probes.api import Probe

#: the probes that ship with casefile (plugins/casefile_probes), by module
BUILTIN_PROBE_MODULES = (
    "topo",
    "query_gpu",
    "smi_q",
    "smi_table",
    "dmon",
    "pmon",
    "lspci",
    "lspci_tree",
    "kernel_cmdline",
    "iommu_dmesg",
    "numa",
    "nccl",
    "p2p",
    "bandwidth",
    "nccl_debug",
    "nvbandwidth",
    "virt",
    "nvml",
    "command",
    "torch_profiler",
    "nsys_stats",
    "py_spy",
    "cpu_load",
    "app_log",
    "ollama_ps",
    "torch_env",
    "ibstat",
    "tegrastats",
    "nvpmodel",
    "perftest",
)


@dataclass
class Outcome:
    code: int
    out: str
    err: str


CLI = Callable[..., Outcome]


#: modules that ship a second probe beside their PROBE (module, attribute)
BUILTIN_EXTRA_PROBES = (
    ("numa", "LSCPU_PROBE"),
    ("smi_q", "PERFORMANCE_PROBE"),
    ("cpu_load", "MPSTAT_PROBE"),
    ("cpu_load", "PIDSTAT_PROBE"),
)


def builtin_probes() -> list[Probe]:
    """The built-in probe objects, imported directly rather than found through entry points
    (a test that compares them with pyproject.toml's entry points keeps the lists equal)."""
    found = [(module, "PROBE") for module in BUILTIN_PROBE_MODULES] + list(BUILTIN_EXTRA_PROBES)
    probes = []
    for module, attribute in found:
        probe = getattr(importlib.import_module(f"casefile_probes.{module}"), attribute)
        assert isinstance(probe, Probe)
        probes.append(probe)
    return probes


def builtin_registry() -> Registry:
    """The built-in probes and every version of the GPU playbook, whatever else is (or is
    not) installed."""
    from casefile_gpu_playbook import PLAYBOOK_V1, PLAYBOOK_V2, PLAYBOOK_V3

    return Registry.of(probes=builtin_probes(), playbooks=[PLAYBOOK_V1, PLAYBOOK_V2, PLAYBOOK_V3])


@pytest.fixture
def cli_registry() -> Registry:
    """The plugins the `cli` fixture's commands see.

    Override this fixture in a test module (or with ``@pytest.mark.parametrize(
    "cli_registry", [...])``) to inject other probes or playbooks; the default is the built-in
    ones, so that no CLI test depends on what happens to be installed. Only
    test_plugin_discovery.py exercises real entry-point discovery, in a subprocess.
    """
    return builtin_registry()


@pytest.fixture
def cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cli_registry: Registry,
) -> CLI:
    """Run `casefile ARGS…` in-process against a fresh SQLite database and `cli_registry`."""
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{tmp_path / 'cli.db'}")
    # a developer's own config file (say, color = "always") must not reach the tests
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(opening, "registry", lambda: cli_registry)

    def run(*args: str) -> Outcome:
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = 0 if exit_.code is None else exit_.code if isinstance(exit_.code, int) else 1
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run
