"""Another benchmark script, imported by path: the scripts are not a package, and some build
their cases with another's helpers (``commands_harness.sealed_case``, ``bench_engine``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def sibling(stem: str) -> ModuleType:
    """``benchmarks/STEM.py``, loaded once per process."""
    name = f"casefile_{stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{stem}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
