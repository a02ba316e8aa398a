"""What a case directory holds: its file names, and the README written beside the events.

Layout of ``cases/<name>/``::

    events.jsonl          one event per line, Event.to_line() + "\\n", in seq order
    artifacts/<sha256>    raw blobs (probe output …), named by their digest
    README.md             a few lines for humans: title, symptom, counts, how to verify

Writing the directory is :mod:`casefile.store.casedir`; reading it back,
:mod:`casefile.store.casedir_import`; doing either safely, :mod:`casefile.store.safe_files`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from casefile.domain.event_types.case import CaseOpened
from casefile.domain.events import Event

EVENTS_FILE = "events.jsonl"
ARTIFACTS_DIR = "artifacts"
README_FILE = "README.md"

DIGEST = re.compile(r"[0-9a-f]{64}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def readme(events: Sequence[Event], artifact_count: int) -> str:
    first, last = events[0], events[-1]
    opened = next((e for e in events if e.type == "case.opened"), None)
    case = None if opened is None else CaseOpened.of(opened.payload)
    title = _one_line(first.case_id if case is None else case.title)
    lines = [f"# {title}", ""]
    symptom = None if case is None else case.symptom
    if symptom:
        lines += [f"Symptom: {_one_line(str(symptom))}", ""]
    lines += [
        f"- Case: `{first.case_id}`",
        f"- Events: {len(events)} (seq 1 to {last.seq})",
        f"- First: {first.when}",
        f"- Last: {last.when}",
        f"- Artifacts: {artifact_count}",
        "",
        f"`{EVENTS_FILE}` holds one event per line (canonical JSON, each hash-chained to the",
        f"one before); `{ARTIFACTS_DIR}/` holds raw outputs named by their SHA-256.",
        "",
        "Verify with `casefile verify <dir>`; import with `casefile import <dir>`.",
        "",
    ]
    return "\n".join(lines)
