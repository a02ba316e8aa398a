"""Hostile lines in events.jsonl are refused in one line naming file and line, never a traceback.

Each of these once got through or crashed: a deeply nested line raised ``RecursionError`` in
import, verify, status, note and export; a key given twice was taken (the last one wins, so two
readers could disagree on what the event says); and an event that left out a field with a
default (evidence ``kind``, a fact's ``subject``) imported, then crashed ``log`` and ``replay``
with ``KeyError``. The hash covers the payload as written, so that one is refused rather than
filled in: filling it in would change what the hash covers.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from casefile.app.library import import_directory, verify_directory
from casefile.app.service import CaseService
from casefile.domain.events import GENESIS_HASH, Event, NewEvent, compute_hash
from casefile.errors import ImportRefused, StoreError
from casefile.store.casedir import export_case, read_case_dir
from casefile.store.casedir_import import MAX_DEPTH
from casefile.store.directory import DirectoryEventStore
from casefile.store.head_file import HEAD_FILE
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore


def make_case(directory: Path) -> list[Event]:
    source = MemoryEventStore()
    source.append("c1", 0, [NewEvent("case.opened", {"title": "slow decode"})])
    source.append("c1", 1, [NewEvent("note.added", {"text": "first"})])
    events = source.load("c1")
    export_case(events, {}, directory)
    return events


def sealed_line(data: dict[str, Any]) -> str:
    """``data`` (an event's fields but its hash) with a valid hash, as canonical JSON."""
    return json.dumps({**data, "hash": compute_hash(data)}, sort_keys=True, separators=(",", ":"))


def append_raw_line(directory: Path, line: str) -> None:
    """Add a line after the last, and drop the head file (as an older export would have none)."""
    with (directory / "events.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    (directory / HEAD_FILE).unlink(missing_ok=True)


def third_event(
    events: list[Event], payload: Any, event_type: str = "note.added"
) -> dict[str, Any]:
    content = replace(events[-1], seq=3, type=event_type, prev_hash=events[-1].hash).content()
    content["payload"] = payload
    return content


def refused(directory: Path) -> str:
    with pytest.raises(ImportRefused) as error:
        read_case_dir(directory)
    message = str(error.value)
    assert "\n" not in message
    return message


# -- nesting -------------------------------------------------------------------------------------


# With the event and its payload around it, MAX_DEPTH - 1 arrays make MAX_DEPTH + 1 levels.
@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, 5_000, 200_000])
def test_a_deeply_nested_line_is_refused_naming_its_line(tmp_path: Path, depth: int) -> None:
    events = make_case(tmp_path / "case")
    # The nesting inside the payload, so the line is otherwise a well-formed event.
    nested = "[" * depth + "]" * depth
    line = sealed_line(third_event(events, {"text": "x"}))
    append_raw_line(tmp_path / "case", line.replace('"text":"x"', f'"text":{nested}'))
    message = refused(tmp_path / "case")
    assert f"events.jsonl:3: bad JSON: nested more than {MAX_DEPTH} levels deep" in message
    assert not verify_directory(tmp_path / "case").ok
    with pytest.raises(ImportRefused):
        DirectoryEventStore(tmp_path / "case")  # what status and note open
    with SqlEventStore(f"sqlite:///{tmp_path / 'db'}") as store:
        with pytest.raises(ImportRefused):
            import_directory(store, tmp_path / "case")
        assert store.case_ids() == []


def test_nesting_up_to_the_limit_is_still_read(tmp_path: Path) -> None:
    """The limit refuses what is hostile, not what is merely nested: a probe's conditions may
    hold objects inside objects."""
    events = make_case(tmp_path / "case")
    value: Any = "deep"
    for _ in range(MAX_DEPTH - 2):  # with the event and its payload: MAX_DEPTH levels
        value = {"k": value}
    append_raw_line(tmp_path / "case", sealed_line(third_event(events, {"text": value})))
    # Parsed (no nesting refusal): the payload itself is then refused as not a note's text.
    assert "invalid payload" in refused(tmp_path / "case")


def test_export_over_a_directory_with_a_deep_line_is_refused_cleanly(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    (tmp_path / "case" / "events.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(StoreError, match="holds no casefile export"):
        export_case(events, {}, tmp_path / "case")


# -- duplicate keys --------------------------------------------------------------------------------


def test_a_key_given_twice_at_the_top_is_refused(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    line = sealed_line(third_event(events, {"text": "x"}))
    append_raw_line(tmp_path / "case", line[:-1] + ',"actor":"mallory"}')
    message = refused(tmp_path / "case")
    assert "events.jsonl:3: bad JSON: key 'actor' appears twice" in message


def test_a_key_given_twice_in_the_payload_is_refused(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    line = sealed_line(third_event(events, {"text": "honest"}))
    append_raw_line(tmp_path / "case", line.replace('"text":"honest"', '"text":"a","text":"b"'))
    assert "events.jsonl:3: bad JSON: key 'text' appears twice" in refused(tmp_path / "case")


# -- a payload without the fields casefile writes ---------------------------------------------


def reasoning_case(directory: Path) -> list[Event]:
    source = MemoryEventStore()
    service = CaseService(source)
    case = service.writer.new_case("slow decode", case_id="c1")
    service.writer.add_question(case, "what limits decode?", question_id="q")
    service.writer.add_hypothesis(case, "PCIe-bound", under="q", prior=0.5, hypothesis_id="pcie")
    service.writer.add_hypothesis(
        case, "compute-bound", under="q", prior=0.4, hypothesis_id="compute"
    )
    service.writer.assess(case, {"pcie": 0.8}, "78 layers of all-reduce", kind="calculated")
    events = source.load("c1")
    export_case(events, {}, directory)
    return events


def rewrite_payload(directory: Path, events: list[Event], seq: int, payload: Any) -> None:
    """Replace one event's payload and reseal the chain from there, hashes and all."""
    lines: list[str] = []
    prev = GENESIS_HASH
    for event in events:
        content = event.content()
        content["prev_hash"] = prev
        if event.seq == seq:
            content["payload"] = payload
        line = sealed_line(content)
        prev = json.loads(line)["hash"]
        lines.append(line + "\n")
    (directory / "events.jsonl").write_text("".join(lines), encoding="utf-8")
    (directory / HEAD_FILE).unlink()


def test_evidence_without_its_kind_is_refused_not_imported(tmp_path: Path) -> None:
    events = reasoning_case(tmp_path / "case")
    evidence = next(e for e in events if e.type == "evidence.assessed")
    payload = {k: v for k, v in evidence.payload.items() if k != "kind"}
    rewrite_payload(tmp_path / "case", events, evidence.seq, payload)
    message = refused(tmp_path / "case")
    assert f"events.jsonl:{evidence.seq}: seq {evidence.seq}: payload is not in the form" in message
    assert "payload.kind is missing (casefile writes 'measured')" in message
    with SqlEventStore(f"sqlite:///{tmp_path / 'db'}") as store:
        with pytest.raises(ImportRefused):
            import_directory(store, tmp_path / "case")
        assert store.case_ids() == []  # nothing imported that `log` would then crash on


def test_a_fact_without_its_subject_is_refused(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    fact = {"name": "gpu.count", "value": 2}
    observation = {
        "probe_run_seq": 1,
        "probe": "nvidia-smi",
        "facts": [fact],
        "parsed": True,
        "problems": [],
        "conditions": {"load": "unknown"},
    }
    line = sealed_line(third_event(events, observation, "observation.recorded"))
    append_raw_line(tmp_path / "case", line)
    message = refused(tmp_path / "case")
    assert "payload.facts[0].subject is missing (casefile writes 'host')" in message


def test_payloads_as_the_commands_write_them_import(tmp_path: Path) -> None:
    events = reasoning_case(tmp_path / "case")
    assert [e.hash for e in read_case_dir(tmp_path / "case")[0]] == [e.hash for e in events]
