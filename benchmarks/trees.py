"""Two trees of casefile's code to measure side by side: a revision's, from ``git archive``, and
the working tree's, copied. Both are imported from a copy outside the checkout, because a child
started inside it imports the checkout (the editable install points there) whatever
``PYTHONPATH`` says."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("casefile", "plugins")


def old_tree(rev: str, into: Path) -> Path:
    """The code of revision ``rev``, under ``into/old``."""
    archive = into / "old.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", rev, *PARTS], cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "old", filter="data")
    return into / "old"


def new_tree(into: Path) -> Path:
    """A copy of the working tree's code, under ``into/new``: both trees are imported from a
    copy, so that where a tree lies costs both the same."""
    for part in PARTS:
        shutil.copytree(
            ROOT / part, into / "new" / part, ignore=shutil.ignore_patterns("__pycache__")
        )
    return into / "new"
