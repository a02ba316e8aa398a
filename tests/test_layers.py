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
        "import casefile.domain.beliefs, casefile.domain.beliefs.views, casefile.domain.commands,"
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


def test_cli_help_imports_neither_the_database_nor_ssh() -> None:
    loaded = modules_after(
        "import contextlib, io\n"
        "from casefile.cli.main import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])"
    )
    for heavy in ("sqlalchemy", "paramiko", "textual"):
        assert heavy not in loaded
