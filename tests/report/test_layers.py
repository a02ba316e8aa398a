"""The report reads the case through the service's views only: no module of it imports the
belief engine (its import contract says so too) or asks the service for the fold, its events,
its candidates or its session."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "casefile" / "report"
#: Service methods that hand out the fold or its raw parts (the report has a view for them).
INTERNALS = {"projection", "candidates", "events", "session"}
ENGINE = "casefile.domain.beliefs"


def _imports(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_report_module_imports_the_belief_engine() -> None:
    for path in sorted(REPORT.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        engine = {
            m for m in _imports(tree) if m.split(".")[:3] == ["casefile", "domain", "beliefs"]
        }
        assert not engine, f"{path.name} imports {sorted(engine)}"


def test_no_report_module_asks_the_service_for_the_fold() -> None:
    for path in sorted(REPORT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "service"
            ):
                assert node.func.attr not in INTERNALS, f"{path.name}: service.{node.func.attr}()"


def test_the_report_contract_forbids_the_belief_engine() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    report = [c for c in contracts if c.get("source_modules") == ["casefile.report"]]
    assert len(report) == 1
    assert "casefile.domain.beliefs" in report[0]["forbidden_modules"]
