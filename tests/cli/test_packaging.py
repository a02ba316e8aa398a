"""Packaging: a licence, the version written once, the POSIX-only classifier, and an sdist that
carries the tests and the reference case (built from a copy of the tree, with the setuptools
installed here: no network, no build isolation)."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

import casefile

ROOT = Path(__file__).resolve().parents[2]
#: what is not source: never copied, never in the sdist
NOT_SOURCE = (".venv", ".git", "*.egg-info", "__pycache__", ".*_cache", "build", "dist", "*.pyc")


def _setuptools_version() -> tuple[int, ...]:
    try:
        from importlib.metadata import version

        return tuple(int(p) for p in version("setuptools").split(".")[:2])
    except Exception:  # not installed, or an odd version string
        return (0,)


def test_the_version_is_written_once(capsys: pytest.CaptureFixture[str]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "casefile.__version__"}
    from casefile.cli.main import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"casefile {casefile.__version__}\n"


def test_the_licence_and_the_posix_classifier() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "the casefile developers" in licence
    assert "Operating System :: POSIX" in project["classifiers"]
    assert not any("Windows" in c for c in project["classifiers"])  # the lock is POSIX-only


@pytest.mark.skipif(
    _setuptools_version() < (77,), reason="the build backend needs setuptools>=77 (pyproject)"
)
def test_the_sdist_carries_the_tests_and_the_reference_case(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*NOT_SOURCE), symlinks=True)
    out = tmp_path / "dist"
    program = (
        "import sys\n"
        "from setuptools import build_meta\n"
        "print(build_meta.build_sdist(sys.argv[1]))\n"
    )
    built = subprocess.run(
        [sys.executable, "-c", program, str(out)],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    name = built.stdout.strip().splitlines()[-1]
    prefix = f"casefile-{casefile.__version__}/"
    assert name == f"casefile-{casefile.__version__}.tar.gz"
    with tarfile.open(out / name) as sdist:
        members = set(sdist.getnames())
        info = sdist.extractfile(prefix + "PKG-INFO")
        assert info is not None
        metadata = email.parser.Parser().parsestr(info.read().decode())
    for path in (
        "LICENSE",
        "README.md",
        "MANIFEST.in",
        "casefile/__init__.py",
        "casefile/py.typed",
        "plugins/casefile_probes/lspci.py",
        "plugins/casefile_gpu_playbook/__init__.py",
        "tests/cli/conftest.py",
        "tests/cli/test_packaging.py",
        "tests/golden/lspci/001.json",
        "cases/glm5-pcie-pivot/events.jsonl",
        "cases/glm5-pcie-pivot/README.md",
        "cases/_build/build_glm5_pcie_pivot.py",
        "benchmarks/README.md",
    ):
        assert prefix + path in members, path
    assert not [m for m in members if "__pycache__" in m or m.endswith(".pyc")]
    assert any(m.startswith(prefix + "cases/glm5-pcie-pivot/artifacts/") for m in members)
    assert metadata["Version"] == casefile.__version__
    assert metadata["License-Expression"] == "MIT"
    assert "Operating System :: POSIX" in metadata.get_all("Classifier", [])
