"""Packaging: a licence, the version written once, the POSIX-only classifier, dependencies as
imported, an sdist that carries the tests and the reference case, and a wheel that carries
everything casefile reads at run time, proven by installing it outside the checkout and opening
the reference case in the TUI there.

Built from a copy of the tree with the setuptools installed here (no network, no build
isolation); installed with ``--no-deps`` into a venv that sees the test environment's packages
(the wheel's own casefile first on the path), so no registry is needed either. ``.ci/run`` does
the same install from the registry."""

from __future__ import annotations

import ast
import email.parser
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import casefile
from tests.tmux import Terminal
from tests.waiting import PROCESS_S

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


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sdist and the wheel, built once from a copy of the tree."""
    if _setuptools_version() < (77,):
        pytest.skip("the build backend needs setuptools>=77 (pyproject)")
    work = tmp_path_factory.mktemp("build")
    tree = work / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*NOT_SOURCE), symlinks=True)
    out = work / "dist"
    names: list[str] = []
    for hook in ("build_sdist", "build_wheel"):  # one process each, as a build front end does
        program = (
            f"import sys\nfrom setuptools import build_meta\nprint(build_meta.{hook}(sys.argv[1]))"
        )
        done = subprocess.run(
            [sys.executable, "-c", program, str(out)],
            cwd=tree,
            capture_output=True,
            text=True,
            timeout=PROCESS_S * 3,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        names.append(done.stdout.strip().splitlines()[-1])  # the backend logs to stdout too
    sdist_name, wheel_name = names
    assert sdist_name == f"casefile-{casefile.__version__}.tar.gz"
    assert wheel_name == f"casefile-{casefile.__version__}-py3-none-any.whl"
    return Built(out / sdist_name, out / wheel_name)


def runtime_files() -> list[str]:
    """Every file of the installed packages that is not Python source: what casefile reads at
    run time (the stylesheet, the playbooks, the reference case, the type marker). New data
    files join this list by themselves, so the wheel cannot silently miss one again."""
    found: list[str] = []
    for top, under in (("casefile", ROOT), ("casefile_probes", ROOT / "plugins")):
        found += _data_files(under, top)
    found += _data_files(ROOT / "plugins", "casefile_gpu_playbook")
    return sorted(found)


def _data_files(under: Path, package: str) -> list[str]:
    return [
        path.relative_to(under).as_posix()
        for path in (under / package).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]


def test_the_sdist_carries_the_tests_and_the_reference_case(built: Built) -> None:
    prefix = f"casefile-{casefile.__version__}/"
    with tarfile.open(built.sdist) as sdist:
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
        "casefile/tui/casefile.tcss",
        "plugins/casefile_probes/lspci.py",
        "plugins/casefile_gpu_playbook/__init__.py",
        "plugins/casefile_gpu_playbook/gpu_throughput_v2.toml",
        "tests/cli/conftest.py",
        "tests/cli/test_packaging.py",
        "tests/golden/lspci/001.json",
        "casefile/reference/glm5-pcie-pivot/events.jsonl",
        "casefile/reference/glm5-pcie-pivot/README.md",
        "cases/_build/build_glm5_pcie_pivot.py",
        "cases/dev/SOURCES.md",
        "benchmarks/README.md",
    ):
        assert prefix + path in members, path
    assert not [m for m in members if "__pycache__" in m or m.endswith(".pyc")]
    artifacts = prefix + "casefile/reference/glm5-pcie-pivot/artifacts/"
    assert any(m.startswith(artifacts) for m in members)
    assert metadata["Version"] == casefile.__version__
    assert metadata["License-Expression"] == "MIT"
    assert "Operating System :: POSIX" in metadata.get_all("Classifier", [])


def test_the_wheel_carries_everything_casefile_reads_at_run_time(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as wheel:
        members = set(wheel.namelist())
        entry_points = wheel.read(f"casefile-{casefile.__version__}.dist-info/entry_points.txt")
    wanted = runtime_files()
    assert [f for f in wanted if f not in members] == []
    assert "casefile/tui/casefile.tcss" in wanted  # the one a user met as a crash
    assert "casefile/reference/glm5-pcie-pivot/events.jsonl" in wanted
    assert "casefile_gpu_playbook/gpu_throughput_v2.toml" in wanted
    assert b"casefile = casefile.cli.main:program" in entry_points
    assert not [m for m in members if m.startswith(("tests/", "benchmarks/", "cases/"))]


def test_every_package_the_code_imports_is_a_declared_dependency() -> None:
    """Directly imported third-party packages are named, not left to arrive through another
    (pydantic, SQLAlchemy and Rich came only with sqlmodel and textual)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_requirement_name(r) for r in project["dependencies"]}
    optional = project["optional-dependencies"]
    declared_postgres = {_requirement_name(r) for r in optional["postgres"]}
    declared_postgres |= {_requirement_name(r) for r in optional["mcp"]}  # casefile.mcp's
    declared_postgres |= {_requirement_name(r) for r in optional["serve"]}  # casefile serve's
    distribution = {"pynvml": "nvidia-ml-py", "yaml": "pyyaml", "textual_serve": "textual-serve"}
    imported = _imported_top_level_names()
    missing = sorted(
        distribution.get(name, name)
        for name in imported
        if distribution.get(name, name) not in declared | declared_postgres
    )
    assert missing == []
    for name in ("pydantic", "sqlalchemy", "rich", "textual", "paramiko"):
        assert name in declared, name
    paramiko = next(r for r in project["dependencies"] if r.lower().startswith("paramiko"))
    assert "<" in paramiko  # a private paramiko API is used: capped at the tested major
    assert {"ruff", "mypy", "import-linter"} <= {_requirement_name(r) for r in optional["dev"]}


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower()


def _imported_top_level_names() -> set[str]:
    """Top-level names of third-party modules imported anywhere in casefile and its plugins."""
    local = {"casefile", "casefile_probes", "casefile_gpu_playbook"}
    names: set[str] = set()
    sources = [*(ROOT / "casefile").rglob("*.py"), *(ROOT / "plugins").rglob("*.py")]
    for source in sources:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {
        n.lower()
        for n in names
        if n not in sys.stdlib_module_names and n not in local and not n.startswith("_")
    }


@dataclass(frozen=True)
class Installed:
    """casefile installed from the wheel into a venv outside the checkout."""

    bin: Path
    env: dict[str, str]
    home: Path

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "casefile"), *argv],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=PROCESS_S,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    home = tmp_path_factory.mktemp("user")
    venv = home / "venv"
    # The venv's own site-packages (the wheel's casefile) come first on the path; the test
    # environment's are appended by a .pth line, which adds them without running their .pth
    # files, so the checkout's editable install is not seen.
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=PROCESS_S
    )
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=PROCESS_S,
    ).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "test-environment.pth").write_text("\n".join(ours) + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    done = subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--quiet", str(built.wheel)],
        capture_output=True,
        text=True,
        timeout=PROCESS_S * 2,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "TZ": "UTC",
        "CASEFILE_ACTOR": "new-user",
    }
    return Installed(venv / "bin", env, home)


def test_the_installed_package_is_whole_outside_the_checkout(installed: Installed) -> None:
    where = subprocess.run(
        [str(installed.bin / "python"), "-c", "import casefile; print(casefile.__file__)"],
        cwd=installed.home,
        env=installed.env,
        capture_output=True,
        text=True,
        timeout=PROCESS_S,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(installed.bin.parent)), where  # the wheel's, not the checkout's
    version = installed.run("--version")
    assert version.stdout == f"casefile {casefile.__version__}\n", version.stderr
    # into the default database: the data directory, no --db, no CASEFILE_DB
    first = installed.run("demo", "--no-tui")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "glm5-pcie-pivot\n"
    assert first.stderr.startswith("casefile: imported the reference case glm5-pcie-pivot into ")
    assert str(installed.home / "data") in first.stderr
    again = installed.run("demo", "--no-tui")
    assert (again.returncode, again.stdout, again.stderr) == (0, "glm5-pcie-pivot\n", "")
    report = installed.run("report", "glm5-pcie-pivot", "--format", "html", "-o", "pm.html")
    assert report.returncode == 0, report.stderr
    html = (installed.home / "pm.html").read_text(encoding="utf-8")
    assert "compute-launch" in html and "pcie-bound" in html
    plugins = installed.run("plugins")
    assert plugins.returncode == 0 and "gpu-throughput" in plugins.stdout, plugins.stderr


def test_demo_keeps_a_different_case_under_the_reference_id(installed: Installed) -> None:
    db = f"sqlite:///{installed.home / 'other.db'}"
    made = installed.run("new", "--db", db, "--id", "glm5-pcie-pivot", "Mine")
    assert made.returncode == 0, made.stderr
    demo = installed.run("demo", "--no-tui", "--db", db)
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout == "glm5-pcie-pivot\n"
    assert len(demo.stderr.splitlines()) == 1, demo.stderr
    assert "already holds a different case under the id glm5-pcie-pivot" in demo.stderr
    log = installed.run("log", "glm5-pcie-pivot", "--db", db, "--no-pager")
    assert "Mine" in log.stdout and "GLM-5" not in log.stdout  # left as it was


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_the_installed_demo_opens_the_reference_case_in_the_tui(installed: Installed) -> None:
    """What a pipx user meets first: the TUI, its stylesheet read from the installed package,
    the hypothesis tree with its confidences on screen; q quits."""
    terminal = Terminal("demo")
    db = f"sqlite:///{installed.home / 'tui.db'}"
    try:
        terminal.start(
            shlex.join([str(installed.bin / "casefile"), "demo", "--db", db]), installed.env
        )
        shown = terminal.wait_for("★ leader compute-launch")
        assert "47.4%" in shown and "pcie-bound" in shown, shown
        assert "StylesheetError" not in shown
        terminal.keys("q")
        terminal.wait_gone()
    finally:
        terminal.close()
