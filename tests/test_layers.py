"""Dependencies point inward: the domain imports no UI, storage, SSH or NVML library.

Checked in a fresh interpreter, so nothing another test imported can hide a violation.
"""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN_IN_DOMAIN = ("sqlalchemy", "sqlmodel", "psycopg", "textual", "paramiko", "pynvml")


def modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_domain_imports_no_infrastructure() -> None:
    loaded = modules_after(
        "import casefile.domain.beliefs, casefile.domain.beliefs.ranking, casefile.domain.commands,"
        " casefile.domain.playbook, casefile.domain.rules, casefile.domain.catalogue"
    )
    leaked = {
        m for m in loaded for bad in FORBIDDEN_IN_DOMAIN if m == bad or m.startswith(bad + ".")
    }
    assert not leaked


def test_probes_never_import_paramiko() -> None:
    loaded = modules_after(
        "import casefile.probes.api\n"
        "import casefile_probes.topo, casefile_probes.smi_q, casefile_probes.lspci,"
        " casefile_probes.nvml, casefile_probes.dmon, casefile_probes.query_gpu"
    )
    assert "paramiko" not in loaded and "pynvml" not in loaded


#: What a command that touches no case must not pay for: the database, SSH, the TUI, the
#: payload models, the graph library and the fold.
HEAVY = (
    "sqlalchemy",
    "sqlmodel",
    "psycopg",
    "paramiko",
    "textual",
    "pydantic",
    "networkx",
    "casefile.store",
    "casefile.domain.beliefs",
)


def _run_cli(words: list[str]) -> str:
    return (
        "import contextlib, io\n"
        "from casefile.cli.main import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()),"
        " contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main({words!r})"
    )


def heavy_in(loaded: set[str], heavy: tuple[str, ...] = HEAVY) -> set[str]:
    return {m for m in loaded for bad in heavy if m == bad or m.startswith(bad + ".")}


def test_cli_help_and_version_load_nothing_heavy() -> None:
    for words in (["--help"], ["--version"], ["status", "--help"], ["probe", "--help"]):
        assert not heavy_in(modules_after(_run_cli(words))), words


def test_commands_without_a_database_do_not_load_one() -> None:
    loaded = modules_after(_run_cli(["plugins"]))
    assert not heavy_in(loaded, ("sqlalchemy", "sqlmodel", "psycopg", "paramiko", "textual"))
