"""The development set's builder (``cases/_build/build_dev_cases.py``) writes the same bytes
each time: every event and every pasted run is recorded at the time the story gives it, not at
the moment the builder runs, so a rebuild shows in ``git diff`` only what a change did."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "cases" / "_build"
#: a case with intake, pastes (probe runs) and an A/B with figures
SLUG = "pytorch-117748-p5-nvlstree-chunksize"


@pytest.fixture(scope="module")
def builder() -> ModuleType:
    sys.path.insert(0, str(BUILD))
    spec = importlib.util.spec_from_file_location("build_dev_cases", BUILD / "build_dev_cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_dev_cases", module)
    spec.loader.exec_module(module)
    return module


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_building_a_case_twice_gives_the_same_bytes(builder: ModuleType, tmp_path: Path) -> None:
    builder.build([SLUG], tmp_path / "first")
    builder.build([SLUG], tmp_path / "second")
    first, second = files(tmp_path / "first" / SLUG), files(tmp_path / "second" / SLUG)
    assert "events.jsonl" in first and any(name.startswith("artifacts") for name in first)
    assert first == second


def test_the_shipped_case_is_what_the_builder_writes(builder: ModuleType, tmp_path: Path) -> None:
    """Times included: the shipped case is not stale after a change to the playbook or the
    readers (rebuild the set with the builder if this fails)."""
    builder.build([SLUG], tmp_path)
    assert files(tmp_path / SLUG) == files(ROOT / "cases" / "dev" / SLUG)


def test_events_are_recorded_at_the_story_s_times(builder: ModuleType, tmp_path: Path) -> None:
    builder.build([SLUG], tmp_path)
    text = (tmp_path / SLUG / "events.jsonl").read_text(encoding="utf-8")
    assert '"recorded_at":"2026-01-05T09:04:00.000000Z"' in text
    assert '"started_at":"2026-01-05T' in text and '"finished_at":"2026-01-05T' in text
