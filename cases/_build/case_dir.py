"""Clearing an earlier build of a case folder before a builder exports the case again.

Both GLM-5 builders write into a folder that may hold a previous build; a changed story must
not leave stale files (an artifact no event names any more), and a folder that is not a build
of the case (a typo in the output path) must never be emptied.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def clear_previous_build(target: Path, case_id: str, files: Iterable[str]) -> None:
    """Remove an earlier build of ``case_id`` in ``target``: the ``files`` named and the
    artifact blobs (its own files only); anything that is not a build of it is refused."""
    if not target.exists():
        return
    events = target / "events.jsonl"
    first = events.read_text(encoding="utf-8").split("\n", 1)[0] if events.is_file() else ""
    if f'"case_id":"{case_id}"' not in first:
        raise SystemExit(f"{target} exists and is not a build of {case_id}; not touching it")
    for name in files:
        (target / name).unlink(missing_ok=True)
    blobs = target / "artifacts"
    if blobs.is_dir() and not blobs.is_symlink():
        for blob in blobs.iterdir():
            if blob.is_file() and not blob.is_symlink():
                blob.unlink()
        if not any(blobs.iterdir()):
            blobs.rmdir()
