"""Shell completion: the bash script, sourced in a real (non-interactive) bash, completes
commands, actions, options, choices, probe names and case ids as bash's completion machinery
would ask it to (``COMP_WORDS``/``COMP_CWORD`` set, the function called, ``COMPREPLY`` read);
the zsh script is checked with ``zsh -n`` where zsh is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import CLI

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shell_env(cli: CLI, tmp_path: Path) -> dict[str, str]:
    """PATH with a ``casefile`` that runs this checkout, the cli fixture's database."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "casefile"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m casefile "$@"\n')
    wrapper.chmod(0o755)
    return {
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "CASEFILE_DB": os.environ["CASEFILE_DB"],
    }


@pytest.fixture
def bash_script(cli: CLI, tmp_path: Path) -> Path:
    result = cli("completion", "bash")
    assert result.code == 0, result.err
    path = tmp_path / "casefile.bash"
    path.write_text(result.out)
    return path


def complete(script: Path, env: dict[str, str], *words: str) -> list[str]:
    """What bash completes for the command line ``words`` (the last one under the cursor)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({quoted})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_casefile\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return [line for line in result.stdout.splitlines() if line]


def test_the_bash_script_is_valid_bash(bash_script: Path) -> None:
    subprocess.run(["bash", "-n", str(bash_script)], check=True)


def test_commands_actions_options_and_choices(bash_script: Path, shell_env: dict[str, str]) -> None:
    env = shell_env
    assert complete(bash_script, env, "casefile", "st") == ["status"]
    assert "completion" in complete(bash_script, env, "casefile", "")
    assert "__complete" not in complete(bash_script, env, "casefile", "")  # hidden
    assert set(complete(bash_script, env, "casefile", "hypothesis", "")) >= {
        "add",
        "refine",
        "retire",
        "reinstate",
        "show",
    }
    status_options = complete(bash_script, env, "casefile", "status", "c1", "--")
    assert {"--json", "--to", "--db", "--color", "--no-pager"} <= set(status_options)
    assert complete(bash_script, env, "casefile", "graph", "c1", "--format", "") == [
        "dot",
        "graphml",
        "mermaid",
        "json",
    ]
    assert complete(bash_script, env, "casefile", "--color", "n") == ["never"]
    assert complete(bash_script, env, "casefile", "completion", "") == ["bash", "zsh"]
    load = complete(bash_script, env, "casefile", "probe", "c1", "lspci", "--load", "")
    assert "under-load" in load and "idle" in load
    # an option's value is not taken for a positional: the probe is still the second one
    words = ("casefile", "probe", "--load", "idle", "c1", "nvidia-smi-t")
    assert complete(bash_script, env, *words) == ["nvidia-smi-topo"]


def test_probe_names_and_case_ids_come_from_casefile(
    cli: CLI, bash_script: Path, shell_env: dict[str, str], tmp_path: Path
) -> None:
    env = shell_env
    for case_id in ("alpha-1", "alpha-2", "beta-1"):
        cli("new", "A case", "--id", case_id)
    assert complete(bash_script, env, "casefile", "status", "al") == ["alpha-1", "alpha-2"]
    assert complete(bash_script, env, "casefile", "note", "") == ["alpha-1", "alpha-2", "beta-1"]
    probes = complete(bash_script, env, "casefile", "probe", "alpha-1", "nvidia-smi")
    assert "nvidia-smi" in probes and "nvidia-smi-topo" in probes
    assert all(p.startswith("nvidia-smi") for p in probes)
    assert "lspci" in complete(bash_script, env, "casefile", "parse", "ls")
    assert complete(bash_script, env, "casefile", "playbook", "open", "alpha-1", "g") == [
        "gpu-throughput",
        "gpu-throughput@1",
        "gpu-throughput@2",
    ]
    # --db on the line is the database asked
    other = tmp_path / "other.db"
    cli("new", "Elsewhere", "--id", "gamma-1", "--db", str(other))
    words = ("casefile", "--db", str(other), "log", "")
    assert complete(bash_script, env, *words) == ["gamma-1"]
    assert complete(bash_script, env, "casefile", "log", "--db", str(other), "") == ["gamma-1"]


def test_the_helper_is_fast_loading_no_database_driver_for_probe_names(
    shell_env: dict[str, str],
) -> None:
    program = (
        "import json, sys\n"
        "from casefile.cli.main import main\n"
        "main(['__complete', 'probes', 'lsp'])\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], env=shell_env, capture_output=True, text=True, check=True
    )
    found = result.stdout.splitlines()
    assert "lspci" in found and all(name.startswith("lsp") for name in found)
    loaded = set(json.loads(result.stderr))
    heavy = {"sqlalchemy", "sqlmodel", "psycopg", "sqlite3", "paramiko", "networkx", "textual"}
    assert not heavy & {name.split(".")[0] for name in loaded}
    assert not any(name.startswith("casefile_probes") for name in loaded)  # no plugin imported


def test_the_helper_never_fails_loudly(shell_env: dict[str, str], tmp_path: Path) -> None:
    def helper(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "casefile", "__complete", *words],
            env=shell_env,
            capture_output=True,
            text=True,
        )

    for words in (
        ("cases", "--db", "nosuchdriver://x", ""),
        ("cases", "--db", str(tmp_path / "missing" / "dir" / "x.db"), ""),
        ("nonsense", ""),
        (),
    ):
        result = helper(*words)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), words


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_script_is_valid_zsh(cli: CLI, tmp_path: Path) -> None:
    result = cli("completion", "zsh")
    assert result.code == 0 and result.out.startswith("#compdef casefile\n")
    path = tmp_path / "_casefile"
    path.write_text(result.out)
    subprocess.run(["zsh", "-n", str(path)], check=True)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_function_completes_like_the_bash_one(
    cli: CLI, tmp_path: Path, shell_env: dict[str, str]
) -> None:
    """zsh's completion system is stood in for by ``compadd`` (which, as the real one does,
    keeps the words that start with what is under the cursor) and ``_files``."""
    cli("new", "A case", "--id", "alpha-1")
    path = tmp_path / "_casefile"
    path.write_text(cli("completion", "zsh").out)

    def complete_zsh(*words: str) -> list[str]:
        quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
        program = (
            "compdef() { :; }\n"
            'compadd() { shift; local w; for w in "$@"; do '
            '[[ $w == "${words[CURRENT]}"* ]] && print -r -- "$w"; done; return 0; }\n'
            "_files() { print -r -- FILES; }\n"
            f"source {path}\n"
            f"words=({quoted}); CURRENT={len(words)}\n"
            "_casefile\n"
        )
        result = subprocess.run(
            ["zsh", "-f", "-c", program], env=shell_env, capture_output=True, text=True
        )
        assert result.returncode == 0 and result.stderr == "", result.stderr
        return result.stdout.splitlines()

    assert complete_zsh("casefile", "st") == ["status"]
    assert complete_zsh("casefile", "status", "al") == ["alpha-1"]
    assert complete_zsh("casefile", "probe", "alpha-1", "nvidia-smi-t") == ["nvidia-smi-topo"]
    assert complete_zsh("casefile", "graph", "alpha-1", "--format", "j") == ["json"]
    assert complete_zsh("casefile", "import", "") == ["FILES"]


def test_the_zsh_script_shares_the_bash_scripts_data(cli: CLI) -> None:
    zsh = cli("completion", "zsh").out
    bash = cli("completion", "bash").out
    assert "compdef _casefile casefile" in zsh and "complete -o bashdefault" in bash
    shared = bash[bash.index("_casefile_is_group()") : bash.index("\n_casefile() {")]
    assert shared in zsh
    assert cli("completion", "fish").code == 2
